"""torch.fused_moving_avg_obs_fake_quant: ember vs torch over several steps (running min/max,
scale/zero_point written in place, outputs, straight-through gradient)."""
import numpy as np
import pytest
import torch

import ember


def _run(mod, xs, obs, fq, per_row=False, sym=False, qmin=0, qmax=255):
    C = xs.shape[2]  # per_row: channels on dim 0 of x.T
    if per_row:
        bufs = [mod.full((C,), float("inf")), mod.full((C,), float("-inf")), mod.ones(C),
                mod.zeros(C, dtype=mod.int32)]
    else:
        bufs = [mod.tensor(float("inf")), mod.tensor(float("-inf")), mod.tensor([1.0]),
                mod.tensor([0], dtype=mod.int32)]
    outs, grads = [], []
    for x in xs:
        xt = mod.tensor(x.T if per_row else x, requires_grad=True)
        y = mod.fused_moving_avg_obs_fake_quant(xt, mod.tensor([obs]), mod.tensor([fq]), *bufs, 0.1,
                                                qmin, qmax, 0, per_row, sym)
        outs.append(np.array(y.detach().numpy()))
        y.sum().backward()
        grads.append(np.array(xt.grad.numpy()))
    return outs, grads, [np.array(b.numpy()) for b in bufs]


@pytest.mark.parametrize("kw", [dict(obs=1, fq=1), dict(obs=1, fq=0), dict(obs=0, fq=1),
                                dict(obs=1, fq=1, sym=True), dict(obs=1, fq=1, qmin=-128, qmax=127),
                                dict(obs=1, fq=1, sym=True, qmin=-128, qmax=127),
                                dict(obs=1, fq=1, per_row=True), dict(obs=1, fq=1, per_row=True, sym=True)])
def test_matches_torch(kw):
    rng = np.random.default_rng(0)
    for shift in (-3.0, 0.0, 3.0):
        xs = (rng.standard_normal((3, 4, 3)) * 2 + shift).astype(np.float32)
        e, t = _run(ember, xs, **kw), _run(torch, xs, **kw)
        for a, b in zip(e[0] + e[1] + e[2], t[0] + t[1] + t[2]):
            np.testing.assert_allclose(a, b, atol=1e-6)


def test_per_channel_axis_error():
    def call(m):
        return m.fused_moving_avg_obs_fake_quant(m.ones(2, 3), m.tensor([1]), m.tensor([1]),
                                                 m.zeros(3), m.zeros(3), m.ones(3),
                                                 m.zeros(3, dtype=m.int32), 0.1, 0, 255, 1, True)
    with pytest.raises(RuntimeError) as te:
        call(torch)
    with pytest.raises(RuntimeError) as ee:
        call(ember)
    assert str(ee.value) == str(te.value)
