"""nn.functional.linear_cross_entropy and nn.LinearCrossEntropyOptions against torch."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF

RNG = np.random.default_rng(0)


def _run(x, w, t, grad=True, **kw):
    xe, we = ember.tensor(x, requires_grad=grad), ember.tensor(w, requires_grad=grad)
    xt, wt = torch.tensor(x, requires_grad=grad), torch.tensor(w, requires_grad=grad)
    ke, kt = {}, {}
    for k, v in kw.items():
        if isinstance(v, np.ndarray):
            ke[k], kt[k] = ember.tensor(v), torch.tensor(v)
        else:
            ke[k] = kt[k] = v
    te = ember.tensor(t) if isinstance(t, np.ndarray) else ember.tensor(t)
    tt = torch.tensor(t)
    re_ = EF.linear_cross_entropy(xe, we, te, **ke)
    rt = TF.linear_cross_entropy(xt, wt, tt, **kt)
    torch.testing.assert_close(torch.from_numpy(np.array(re_.detach().numpy())), rt.detach())
    if grad:
        g = RNG.standard_normal(tuple(rt.shape))
        (rt * torch.tensor(g)).sum().backward()
        (re_ * ember.tensor(g)).sum().backward()
        torch.testing.assert_close(torch.from_numpy(xe.grad.numpy()), xt.grad)
        torch.testing.assert_close(torch.from_numpy(we.grad.numpy()), wt.grad)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_matches_torch(reduction):
    x, w = RNG.standard_normal((6, 5)), RNG.standard_normal((4, 5))
    t = RNG.integers(0, 4, 6)
    _run(x, w, t, reduction=reduction)
    _run(x, w, t, reduction=reduction, linear_bias=RNG.standard_normal(4))
    t2 = t.copy()
    t2[1] = 2
    _run(x, w, t2, reduction=reduction, ignore_index=2, weight=RNG.random(4) + 0.1)
    _run(x, w, t, reduction=reduction, label_smoothing=0.2)
    probs = RNG.random((6, 4))
    _run(x, w, probs / probs.sum(1, keepdims=True), reduction=reduction)
    _run(RNG.standard_normal(5), w, np.array(3), reduction=reduction)
    # K-dimensional: weight (C, d1, in), target (N, d1)
    _run(x, RNG.standard_normal((4, 3, 5)), RNG.integers(0, 4, (6, 3)), reduction=reduction,
         linear_bias=RNG.standard_normal((4, 3)))
    _run(x, w, t, reduction=reduction, options=None)


def test_options():
    x, w, t = RNG.standard_normal((6, 5)), RNG.standard_normal((4, 5)), RNG.integers(0, 4, 6)
    oe = ember.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    ot = torch.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    assert repr(oe) == repr(ot)
    e = EF.linear_cross_entropy(ember.tensor(x), ember.tensor(w), ember.tensor(t), options=oe)
    r = TF.linear_cross_entropy(torch.tensor(x), torch.tensor(w), torch.tensor(t), options=ot)
    torch.testing.assert_close(torch.tensor(e.item(), dtype=torch.float64), r)
    for bad in ({"acc_policy": "bad"},):
        with pytest.raises(ValueError) as te:
            torch.nn.LinearCrossEntropyOptions(**bad)
        with pytest.raises(ValueError) as ee:
            ember.nn.LinearCrossEntropyOptions(**bad)
        assert str(ee.value) == str(te.value)
