"""Captured optimizer steps: compiled steps equal eager ones, lr changes do not recompile."""
import numpy as np
import pytest

import ember
from ember._dynamo.testing import CompileCounter


def _setup(make_opt, make_sched, seed=0):
    ember.manual_seed(seed)
    model = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.Tanh(), ember.nn.Linear(4, 1))
    opt = make_opt(model.parameters())
    return model, opt, make_sched(opt)


_OPTS = {
    "adam": lambda ps: ember.optim.Adam(ps, lr=0.05),
    "sgd_momentum": lambda ps: ember.optim.SGD(ps, lr=0.05, momentum=0.9),
}
_SCHEDS = {
    "steplr": lambda o: ember.optim.lr_scheduler.StepLR(o, step_size=10, gamma=0.5),
    "cosine": lambda o: ember.optim.lr_scheduler.CosineAnnealingLR(o, T_max=100),
}


@pytest.mark.parametrize("sched", list(_SCHEDS))
@pytest.mark.parametrize("name", list(_OPTS))
def test_100_compiled_steps_equal_eager(name, sched):
    ember.manual_seed(1)
    x, y = ember.randn(8, 3), ember.randn(8, 1)
    results, counts = [], []
    for compiled in (False, True):
        model, opt, scheduler = _setup(_OPTS[name], _SCHEDS[sched])
        cnt = CompileCounter()
        step = ember.compile(opt.step, backend=cnt) if compiled else opt.step
        for _ in range(100):
            opt.zero_grad()
            ember.nn.functional.mse_loss(model(x), y).backward()
            step()
            scheduler.step()
        results.append([p.detach().clone() for p in model.parameters()])
        counts.append(cnt.frame_count)
    assert 1 <= counts[1] <= 2
    for a, b in zip(*results):
        assert ember.allclose(a, b, rtol=1e-5, atol=1e-6), (a, b)


def test_train_step_forward_break_optimizer_graph():
    ember.manual_seed(0)
    model = ember.nn.Linear(3, 2)
    opt = ember.optim.Adam(model.parameters(), lr=0.1)
    x = ember.randn(4, 3)

    def train_step():
        opt.zero_grad()
        loss = model(x).pow(2).sum()
        loss.backward()
        opt.step()
        return loss

    cnt = CompileCounter()
    f = ember.compile(train_step, backend=cnt)
    ref_model = ember.nn.Linear(3, 2)
    ref_model.load_state_dict(model.state_dict())
    ref_opt = ember.optim.Adam(ref_model.parameters(), lr=0.1)
    for _ in range(3):
        loss = f()
        ref_opt.zero_grad()
        ref_loss = ref_model(x).pow(2).sum()
        ref_loss.backward()
        ref_opt.step()
        assert ember.allclose(loss, ref_loss)
    assert cnt.frame_count == 2  # the forward graph, then (after backward's break) the Adam step
    for a, b in zip(model.parameters(), ref_model.parameters()):
        assert ember.allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [
    lambda ps: ember.optim.Adam(ps, lr=0.01, weight_decay=0.1),
    lambda ps: ember.optim.AdamW(ps, lr=0.01),
    lambda ps: ember.optim.SGD(ps, lr=0.01, momentum=0.5, nesterov=True),
    lambda ps: ember.optim.RMSprop(ps, lr=0.01, momentum=0.2, centered=True),
], ids=["Adam", "AdamW", "SGD", "RMSprop"])
def test_compile_opt_step_matches_eager(make):
    ember.manual_seed(0)
    ws = [ember.randn(3, 2, requires_grad=True), ember.randn(2, requires_grad=True)]
    ref = [w.detach().clone().requires_grad_() for w in ws]
    opt, ref_opt = make(ws), make(ref)
    cnt = CompileCounter()
    step = ember.compile(opt.step, backend=cnt)
    for i in range(5):
        for params, o, s in ((ws, opt, step), (ref, ref_opt, ref_opt.step)):
            o.zero_grad()
            ((params[0] * (i + 1)).sum() + params[1].pow(2).sum()).backward()
            s()
    assert cnt.frame_count == 1 and cnt.op_count > 0
    for a, b in zip(ws, ref):
        assert ember.allclose(a, b, rtol=1e-5, atol=1e-6)
    assert ember.equal(opt.state[ws[0]]["step"], ref_opt.state[ref[0]]["step"]) \
        if "step" in opt.state[ws[0]] else True


def test_train_step_explain_names_backward_break():
    model = ember.nn.Linear(2, 1)
    opt = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    def train_step(x):
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()

    out = ember._dynamo.explain(train_step)(ember.ones(3, 2))
    assert out.graph_count == 2 and out.graph_break_count == 1
    assert "backward" in str(out) and "test_optim_capture.py:" in str(out)


def test_option_change_recompiles_lr_change_does_not():
    w = ember.ones(4, requires_grad=True)
    ref = w.detach().clone().requires_grad_()
    opt, ref_opt = ember.optim.Adam([w], lr=0.1), ember.optim.Adam([ref], lr=0.1)
    cnt = CompileCounter()
    step = ember.compile(opt.step, backend=cnt)
    for i in range(6):
        for o in (opt, ref_opt):
            o.param_groups[0]["lr"] = 0.1 / (i + 1)          # a hand-written schedule: no recompile
            if i == 3:
                o.param_groups[0]["weight_decay"] = 0.5      # another option: one recompile
        for t, s in ((w, step), (ref, ref_opt.step)):
            t.grad = None
            (t * t).sum().backward()
            s()
    assert cnt.frame_count == 2
    assert ember.allclose(w, ref, rtol=1e-6, atol=1e-7)


def test_param_without_grad_is_skipped_and_guarded():
    a, b = ember.ones(2, requires_grad=True), ember.ones(2, requires_grad=True)
    opt = ember.optim.SGD([a, b], lr=0.5)
    cnt = CompileCounter()
    step = ember.compile(opt.step, backend=cnt)
    a.sum().backward()
    step()
    assert a.tolist() == [0.5, 0.5] and b.tolist() == [1.0, 1.0]
    (a.sum() + b.sum()).backward()
    step()
    assert b.tolist() == [0.5, 0.5] and cnt.frame_count == 2


def test_compiled_adam_matches_torch():
    import torch  # the oracle: a test dependency
    ember.manual_seed(3)
    w0 = ember.randn(4, 3)
    w = w0.clone().requires_grad_()
    tw = torch.tensor(w0.numpy()).requires_grad_()
    opt, topt = ember.optim.AdamW([w], lr=0.05), torch.optim.AdamW([tw], lr=0.05)
    step = ember.compile(opt.step, backend=CompileCounter())
    for i in range(10):
        opt.zero_grad()
        topt.zero_grad()
        (w.sin() * (i + 1)).sum().backward()
        (tw.sin() * (i + 1)).sum().backward()
        step()
        topt.step()
    assert ember.allclose(w.detach(), ember.tensor(tw.detach().numpy()), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_train_step_with_zero_grad_and_scheduler_through_aot_backends(backend):
    # zero_grad and the scheduler's post-hook are effects run after the graph: an AOT backend
    # must not trace them away (gradients would accumulate across steps)
    def run(compiled):
        ember.manual_seed(0)
        m = ember.nn.Sequential(ember.nn.Linear(10, 16), ember.nn.ReLU(), ember.nn.Linear(16, 1))
        opt = ember.optim.Adam(m.parameters(), lr=1e-2)
        sched = ember.optim.lr_scheduler.StepLR(opt, 3, 0.5)
        x, y = ember.randn(32, 10), ember.randn(32, 1)

        def step():
            opt.zero_grad()
            loss = ((m(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            return loss
        f = ember.compile(step, backend=backend) if compiled else step
        for _ in range(6):
            f()
            sched.step()
        return [p.detach().numpy().copy() for p in m.parameters()]
    for a, b in zip(run(False), run(True)):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
