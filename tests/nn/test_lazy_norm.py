"""``nn.LazyBatchNorm1d/2d/3d`` and ``nn.LazyInstanceNorm1d/2d/3d`` (issue 17), compared with torch."""
import numpy as np
import pytest
import torch

import ember

CASES = [("LazyBatchNorm1d", (4, 3), {}), ("LazyBatchNorm1d", (2, 3, 5), {"affine": False}),
         ("LazyBatchNorm2d", (2, 3, 4, 4), {}), ("LazyBatchNorm3d", (2, 3, 2, 2, 2), {"momentum": None}),
         ("LazyInstanceNorm1d", (2, 3, 5), {}), ("LazyInstanceNorm2d", (2, 3, 4, 4), {"bias": False}),
         ("LazyInstanceNorm3d", (2, 3, 2, 2, 2), {"track_running_stats": False}),
         ("LazyBatchNorm2d", (2, 3, 4, 4), {"affine": False, "track_running_stats": False})]


@pytest.mark.parametrize("name,shape,kw", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_lazy_norm_matches_torch(name, shape, kw):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    res = []
    for lib in (torch, ember):
        m = getattr(lib.nn, name)(**kw)
        before = repr(m)
        xt = lib.tensor(x, requires_grad=True)
        y = m(xt)
        (y * y).sum().backward()
        res.append((before, type(m).__name__, repr(m), y.detach().numpy(), xt.grad.numpy(),
                    {k: v.detach().numpy() for k, v in m.state_dict().items()}))
    (tb, tn, tr, ty, tg, ts), (eb, en, er, ey, eg, es) = res
    assert (eb, en, er) == (tb, tn, tr)
    np.testing.assert_allclose(ey, ty, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(eg, tg, rtol=1e-4, atol=1e-4)
    assert list(es) == list(ts)
    for k in ts:
        np.testing.assert_allclose(es[k], ts[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_unbatched_instance_norm_error_like_torch():
    for lib in (torch, ember):
        with pytest.raises(ValueError, match="num_features"):
            lib.nn.LazyInstanceNorm2d()(lib.randn(3, 4, 5))
