"""fused=True optimizers: torch's flags and errors, the flat-buffer path, parameters stay leaves."""
import io

import numpy as np
import pytest
import torch

import ember


def _run(lib, name, kw, init, grads):
    ps = [lib.nn.Parameter(lib.tensor(w)) for w in init]
    opt = getattr(lib.optim, name)(ps, fused=True, **kw)
    for row in grads:
        for p, g in zip(ps, row):
            p.grad = lib.tensor(g)
        opt.step()
    return ps, opt


@pytest.mark.parametrize("name,kw", [("Adam", {"lr": 1e-2}), ("Adam", {"amsgrad": True}),
                                     ("AdamW", {"weight_decay": 0.1}),
                                     ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
                                     ("Adagrad", {"weight_decay": 0.01, "lr_decay": 0.01})])
def test_fused_matches_torch(name, kw):
    rng = np.random.default_rng(0)
    init = [rng.standard_normal(s).astype("float32") for s in ((3, 4), (5,))]
    grads = [[rng.standard_normal(w.shape).astype("float32") for w in init] for _ in range(10)]
    pe, oe = _run(ember, name, kw, init, grads)
    pt, ot = _run(torch, name, kw, init, grads)
    for a, b in zip(pe, pt):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
        assert a._base is None  # the flat layout is the optimizer's state, not the parameter
    for a, b in zip(pe, pt):
        for k, v in ot.state[b].items():
            np.testing.assert_allclose(oe.state[a][k].numpy(), v.numpy(), rtol=1e-5, atol=1e-6)
            assert oe.state[a][k].dtype == getattr(ember, str(v.dtype).split(".")[-1])


def test_fused_state_lives_in_flat_buffers():
    ps = [ember.nn.Parameter(ember.randn(3)), ember.nn.Parameter(ember.randn(2, 2))]
    for opt in (ember.optim.Adam(ps, fused=True), ember.optim.Adagrad(ps, fused=True),
                ember.optim.SGD(ps, lr=0.1, momentum=0.9, fused=True)):
        for _ in range(2):  # SGD's momentum buffers exist from the second step
            for p in ps:
                p.grad = ember.randn(p.shape)
            opt.step()
        (bucket, _), = opt._flat_buckets.values()
        assert all(st[k]._base is not None for st in opt.state.values() for k in st)
        assert sum(f.numel() for k, f in bucket.flat.items() if k != "step") % 7 == 0


def test_saved_parameter_holds_only_its_bytes():
    ps = [ember.nn.Parameter(ember.randn(3)), ember.nn.Parameter(ember.randn(4))]
    opt = ember.optim.Adam(ps, fused=True)
    for p in ps:
        p.grad = ember.randn(p.shape)
    opt.step()
    buf = io.BytesIO()
    ember.save(ps[0], buf)
    buf.seek(0)
    loaded = torch.load(buf)
    assert loaded.untyped_storage().nbytes() == 3 * 4
    np.testing.assert_array_equal(loaded.detach().numpy(), ps[0].detach().numpy())


@pytest.mark.parametrize("name", ["Adam", "AdamW", "SGD", "Adagrad"])
def test_fused_and_foreach_together_raise(name):
    p = [ember.nn.Parameter(ember.randn(2))]
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
        getattr(ember.optim, name)(p, lr=0.1, fused=True, foreach=True)
    with pytest.raises(RuntimeError):
        getattr(torch.optim, name)([torch.nn.Parameter(torch.randn(2))], lr=0.1, fused=True,
                                   foreach=True)
