"""Fractional max pooling (functional and modules) against torch with the same _random_samples:
values, indices, gradients, output_ratio, unbatched input, errors."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF

RNG = np.random.default_rng(0)


def _np(t):
    return np.array(t.detach().numpy())


@pytest.mark.parametrize("nd", [2, 3])
def test_values_indices_gradients(nd):
    shape = (2, 3, 7, 9) if nd == 2 else (2, 2, 6, 7, 8)
    cases = ([(2, (4, 5), None), (3, 3, None), ((2, 3), None, (0.5, 0.7)), (2, 1, None)] if nd == 2
             else [(2, (3, 4, 5), None), ((2, 3, 2), None, 0.5), (3, 2, None)])
    e_fn, t_fn = getattr(EF, f"fractional_max_pool{nd}d"), getattr(TF, f"fractional_max_pool{nd}d")
    for dtype in ("float64", "float32"):
        x = RNG.standard_normal(shape)
        for k, size, ratio in cases:
            s = RNG.random((shape[0], shape[1], nd))
            xe = ember.tensor(x, dtype=getattr(ember, dtype), requires_grad=True)
            xt = torch.tensor(x, dtype=getattr(torch, dtype), requires_grad=True)
            if ratio is not None and not isinstance(ratio, tuple):
                ratio = (ratio,) * nd  # torch's functional form wants a tuple ratio
            oe, ie = e_fn(xe, k, size, ratio, True, _random_samples=ember.tensor(s, dtype=xe.dtype))
            ot, it = t_fn(xt, k, size, ratio, True, _random_samples=torch.tensor(s, dtype=xt.dtype))
            assert str(oe.dtype) == str(ot.dtype) and str(ie.dtype) == str(it.dtype)
            np.testing.assert_array_equal(_np(ie), it.numpy())
            np.testing.assert_array_equal(_np(oe), ot.detach().numpy())
            w = RNG.standard_normal(tuple(ot.shape))
            (oe * ember.tensor(w, dtype=oe.dtype)).sum().backward()
            (ot * torch.tensor(w, dtype=ot.dtype)).sum().backward()
            torch.testing.assert_close(torch.from_numpy(_np(xe.grad)), xt.grad)


def test_unbatched_and_random_samples_drawn():
    x = RNG.standard_normal((3, 7, 7))
    s = RNG.random((1, 3, 2))
    e = EF.fractional_max_pool2d(ember.tensor(x), 2, 3, _random_samples=ember.tensor(s))
    t = TF.fractional_max_pool2d(torch.tensor(x), 2, 3, _random_samples=torch.tensor(s))
    np.testing.assert_array_equal(_np(e), t.numpy())
    out, idx = EF.fractional_max_pool2d(ember.tensor(x).unsqueeze(0), 3, output_size=(4, 4),
                                        return_indices=True)
    flat = ember.tensor(x).reshape(3, -1)
    assert out.shape == torch.Size([1, 3, 4, 4])
    # every output is the input element its index names, and the maximum of some 3x3 window
    np.testing.assert_array_equal(_np(flat.gather(1, idx.reshape(3, -1))), _np(out.reshape(3, -1)))


def test_modules_match_torch():
    x = RNG.standard_normal((2, 3, 8, 8))
    s = RNG.random((2, 3, 2))
    for kw in ({"output_size": 4}, {"output_ratio": 0.5}, {"output_size": (3, 5), "return_indices": True}):
        me = ember.nn.FractionalMaxPool2d(2, _random_samples=ember.tensor(s), **kw)
        mt = torch.nn.FractionalMaxPool2d(2, _random_samples=torch.tensor(s), **kw)
        assert me.output_size == mt.output_size and me.output_ratio == mt.output_ratio
        assert me.kernel_size == mt.kernel_size and repr(me) == repr(mt)
        re_, rt = me(ember.tensor(x)), mt(torch.tensor(x))
        for a, b in zip(re_ if isinstance(rt, tuple) else (re_,), rt if isinstance(rt, tuple) else (rt,)):
            np.testing.assert_array_equal(_np(a), b.numpy())
    x3 = RNG.standard_normal((1, 2, 6, 6, 6))
    s3 = RNG.random((1, 2, 3))
    me = ember.nn.FractionalMaxPool3d(2, output_ratio=0.5, _random_samples=ember.tensor(s3))
    mt = torch.nn.FractionalMaxPool3d(2, output_ratio=0.5, _random_samples=torch.tensor(s3))
    np.testing.assert_array_equal(_np(me(ember.tensor(x3))), mt(torch.tensor(x3)).numpy())


def test_errors_match_torch():
    def calls(m, F):
        x = m.ones(2, 3, 7, 9)
        return [lambda: F.fractional_max_pool2d(x, 3),
                lambda: F.fractional_max_pool2d(x, 5, output_size=6, _random_samples=m.rand(2, 3, 2)),
                lambda: F.fractional_max_pool2d(x, 2, output_size=(4, 5), _random_samples=m.rand(2, 3, 3)),
                lambda: F.fractional_max_pool2d(x, 2, output_size=(4, 5), _random_samples=m.rand(1, 3, 2)),
                lambda: m.nn.FractionalMaxPool2d(2),
                lambda: m.nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5),
                lambda: m.nn.FractionalMaxPool2d(2, output_ratio=1.5)]
    for ce, ct in zip(calls(ember, EF), calls(torch, TF)):
        with pytest.raises(Exception) as te:
            ct()
        with pytest.raises(type(te.value)) as ee:
            ce()
        assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("nd", [2, 3])
def test_empty_batch(nd):
    # torch returns empty outputs (and an empty gradient) for a batch of 0 planes
    shape, k = ((0, 2, 5, 4), (2, 1)) if nd == 2 else ((0, 1, 4, 5, 4), (2, 2, 1))
    t_out, t_idx = getattr(TF, f"fractional_max_pool{nd}d")(torch.zeros(shape), k, output_size=2,
                                                            return_indices=True)
    x = ember.zeros(shape, requires_grad=True)
    e_out, e_idx = getattr(EF, f"fractional_max_pool{nd}d")(x, k, output_size=2, return_indices=True)
    assert tuple(e_out.shape) == tuple(t_out.shape) and tuple(e_idx.shape) == tuple(t_idx.shape)
    assert e_idx.dtype is ember.int64
    e_out.sum().backward()
    assert tuple(x.grad.shape) == shape
