"""torch.compile(opt.step) with an lr scheduler: same parameters as eager, no recompile storm.
(The Adam update is not captured as a graph yet: its frame breaks and resumes eagerly.)"""
import warnings

import numpy as np

import ember


def _make():
    ember.manual_seed(0)
    m = ember.nn.Linear(4, 3)
    opt = ember.optim.Adam(m.parameters(), lr=0.05)
    return m, opt, ember.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)


def test_compiled_adam_step_with_steplr_matches_eager():
    m, opt, sch = _make()
    m2, opt2, sch2 = _make()
    cstep = ember.compile(opt.step, backend="eager")
    x = ember.randn(8, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no recompile-limit warning
        for _ in range(100):
            for mm, o, s, st in ((m, opt, sch, cstep), (m2, opt2, sch2, opt2.step)):
                o.zero_grad()
                (mm(x) ** 2).mean().backward()
                st()
                s.step()
    for p, q in zip(m.parameters(), m2.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6, atol=1e-7)
    assert opt.param_groups[0]["lr"] == opt2.param_groups[0]["lr"] == 0.05 * 0.5 ** 10
