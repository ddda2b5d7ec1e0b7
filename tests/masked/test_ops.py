"""ember.masked against torch.masked: values (NaN/inf where torch has them), dtypes, keepdim, dtype=,
mask broadcasting, and input gradients."""
import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 5))
MASK = RNG.random((3, 4, 5)) > 0.4
MASK[1, 2, :] = False  # a fully masked slice along the last dim
MASK[0, :, 1] = False  # ... and along dim 1
ROWMASK = RNG.random(5) > 0.3  # broadcasts


def _e(a, **kw):
    return ember.tensor(a, **kw)


def _t(a, **kw):
    return torch.tensor(a, **kw)


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.array(t.detach().numpy())


def _compare(name, args, kwargs, dtype="float64", grad=True, mask=MASK, x=X):
    """Run torch.masked.<name> and ember.masked.<name> on the same data; compare out and grad."""
    xt = _t(x, dtype=getattr(torch, dtype), requires_grad=grad)
    xe = _e(x, dtype=getattr(ember, dtype), requires_grad=grad)
    kt, ke = dict(kwargs), dict(kwargs)
    if mask is not None:
        kt["mask"], ke["mask"] = _t(mask), _e(mask)
    for k in ("dtype",):
        if k in kwargs:
            kt[k], ke[k] = getattr(torch, kwargs[k]), getattr(ember, kwargs[k])
    rt = getattr(torch.masked, name)(xt, *args, **kt)
    re_ = getattr(ember.masked, name)(xe, *args, **ke)
    assert str(re_.dtype) == str(rt.dtype), (name, args, kwargs)
    assert tuple(re_.shape) == tuple(rt.shape), (name, args, kwargs)
    torch.testing.assert_close(torch.from_numpy(_np(re_).copy()), rt, equal_nan=True,
                               msg=lambda m: f"{name}{args}{kwargs}: {m}")
    if grad and rt.requires_grad:
        finite = np.isfinite(_np(rt))
        w = RNG.standard_normal(int(finite.sum()))
        # only outputs that are defined carry a gradient (an empty slice's NaN has no derivative)
        (rt[_t(finite)] * _t(w, dtype=rt.dtype)).sum().backward()
        (re_[_e(finite)] * _e(w, dtype=re_.dtype)).sum().backward()
        # torch's var/std leak NaN (0/0 of an empty slice) into the gradient of that slice's
        # elements, masked-out ones included; ember gives them 0: compare where torch is finite
        ok = np.isfinite(xt.grad.numpy())
        assert np.isfinite(_np(xe.grad)[ok]).all()
        torch.testing.assert_close(torch.from_numpy(_np(xe.grad)[ok]), xt.grad[_t(ok)],
                                   msg=lambda m: f"grad {name}{args}{kwargs}: {m}")
        if name not in ("var", "std"):
            assert ok.all(), f"grad {name}{args}{kwargs}: torch's gradient has NaN"


REDUCTIONS = ["sum", "prod", "amax", "amin", "mean", "logsumexp", "norm", "var", "std"]


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions(name):
    lead = (2.0,) if name == "norm" else ()
    for dim in (None, 0, -1, (0, 2), [1], ()):
        for keepdim in (False, True):
            _compare(name, lead + (dim,), {"keepdim": keepdim})
    _compare(name, lead + (1,), {}, mask=ROWMASK)
    _compare(name, lead + (2,), {}, mask=None)
    _compare(name, lead + (2,), {}, dtype="float32")
    _compare(name, lead + (1,), {"dtype": "float64"}, dtype="float32")


def test_norm_orders_and_var_corrections():
    for ord in (1.0, 3.0, float("inf"), -float("inf"), 0.0, -1.0):
        _compare("norm", (ord, 2), {}, grad=ord not in (0.0,))
    for kw in ({"unbiased": False}, {"correction": 0}, {"correction": 2}, {"correction": 7}):
        _compare("var", (2,), kw)
        _compare("std", ((0, 1),), kw)


@pytest.mark.parametrize("name", ["argmax", "argmin", "median"])
def test_index_reductions(name):
    for dim in ((None,) if name != "median" else ()) + (0, 1, -1):
        for keepdim in (False, True):
            _compare(name, (dim,), {"keepdim": keepdim}, grad=name == "median")
    _compare(name, (2,), {}, dtype="float32", grad=False)
    _compare(name, (1,), {}, mask=None, grad=False)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin", "cumsum", "cumprod"])
def test_along_one_dim(name):
    for dim in (0, 1, -1):
        _compare(name, (dim,), {})
    _compare(name, (2,), {}, mask=ROWMASK)
    _compare(name, (1,), {}, mask=None)
    _compare(name, (1,), {"dtype": "float64"}, dtype="float32")


def test_normalize():
    for ord in (2.0, 1.0, 3.0):
        for dim in (0, 2):
            _compare("normalize", (ord, dim), {})
    _compare("normalize", (2.0, 1), {"eps": 0.5}, mask=ROWMASK)


def test_logaddexp():
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    ma, mb = RNG.random((3, 4)) > 0.5, RNG.random((3, 4)) > 0.5
    for im, om in ((ma, mb), (ma, None), (None, mb), (None, None)):
        at, bt = _t(a, requires_grad=True), _t(b, requires_grad=True)
        ae, be = _e(a, requires_grad=True), _e(b, requires_grad=True)
        rt = torch.masked.logaddexp(at, bt, input_mask=None if im is None else _t(im),
                                    other_mask=None if om is None else _t(om))
        re_ = ember.masked.logaddexp(ae, be, input_mask=None if im is None else _e(im),
                                     other_mask=None if om is None else _e(om))
        torch.testing.assert_close(torch.from_numpy(_np(re_)), rt.detach())
        rt.sum().backward()
        re_.sum().backward()
        torch.testing.assert_close(torch.from_numpy(_np(ae.grad)), at.grad)
        torch.testing.assert_close(torch.from_numpy(_np(be.grad)), bt.grad)


def test_integer_inputs():
    xi = RNG.integers(-5, 6, (3, 4))
    m = RNG.random((3, 4)) > 0.5
    m[0] = False
    for name, args in (("sum", (1,)), ("prod", (1,)), ("amax", (1,)), ("amin", (0,)),
                       ("argmax", (1,)), ("argmin", (1,)), ("cumsum", (1,)), ("cumprod", (1,)),
                       ("var", (1,))):
        for dt in ("int64", "int32"):
            _compare(name, args, {}, dtype=dt, grad=False, mask=m, x=xi)
    m[:, 0] = True  # integer median refuses a fully masked slice (checked below)
    _compare("median", (1,), {}, dtype="int64", grad=False, mask=m, x=xi)


def test_errors_match_torch():
    cases = [("mean", (ember.ones(2, 3, dtype=ember.int64),), {"mask": ember.ones(2, 3, dtype=ember.bool)},
              (torch.ones(2, 3, dtype=torch.int64),), {"mask": torch.ones(2, 3, dtype=torch.bool)}),
             ("sum", (ember.ones(3, 4), 1), {"mask": ember.ones(2, 4, dtype=ember.bool)},
              (torch.ones(3, 4), 1), {"mask": torch.ones(2, 4, dtype=torch.bool)}),
             ("sum", (ember.ones(3, 4), 5), {}, (torch.ones(3, 4), 5), {}),
             ("median", (ember.ones(2, 3, dtype=ember.int64), 1), {"mask": ember.tensor([[True], [False]])},
              (torch.ones(2, 3, dtype=torch.int64), 1), {"mask": torch.tensor([[True], [False]])}),
             ("var", (ember.ones(3, 4), 1, True), {"correction": 0},
              (torch.ones(3, 4), 1, True), {"correction": 0})]
    for name, ea, ek, ta, tk in cases:
        with pytest.raises(Exception) as te:
            getattr(torch.masked, name)(*ta, **tk)
        with pytest.raises(type(te.value)) as ee:
            getattr(ember.masked, name)(*ea, **ek)
        assert str(ee.value) == str(te.value)


def test_integer_inputs_with_dtype_and_logsumexp():
    # masked-out elements take the identity of the input's dtype before ``dtype=`` casts (an empty
    # int slice gives float(int64 min), not -inf), and integer logsumexp keeps its dtype (truncated)
    xi = RNG.integers(-5, 6, (3, 4))
    m = RNG.random((3, 4)) > 0.5
    m[0] = False
    for name in ("amax", "amin", "logsumexp", "argmax", "argmin"):
        _compare(name, (1,), {"dtype": "float32"}, dtype="int64", grad=False, mask=m, x=xi)
    _compare("logsumexp", (1,), {}, dtype="int64", grad=False, mask=m, x=xi)
    _compare("logsumexp", (1,), {"dtype": "int64"}, dtype="float32", grad=False, mask=m, x=X[0, :3, :4])


def test_output_and_input_masks():
    xt, xe = _t(X), _e(X)
    mt, me = _t(MASK), _e(MASK)
    for fn, args, kw in (("sum", (1,), {}), ("amax", (), {}), ("norm", (2.0, (0, 2)), {"keepdim": True}),
                         ("var", (2, True), {}), ("argmin", (), {"dim": 0}), ("median", (), {}),
                         ("softmax", (1,), {}), ("cumsum", (2,), {}), ("normalize", (2.0, 0), {})):
        rt = torch.masked._output_mask(getattr(torch.masked, fn), xt, *args, mask=mt, **kw)
        re_ = ember.masked._output_mask(getattr(ember.masked, fn), xe, *args, mask=me, **kw)
        assert np.array_equal(_np(re_), rt.numpy()), fn
    np.testing.assert_array_equal(_np(ember.masked._input_mask(xe, mask=_e(ROWMASK))),
                                  torch.masked._input_mask(xt, mask=_t(ROWMASK)).numpy())
    for mod, x in ((torch, xt), (ember, xe)):
        with pytest.raises(ValueError, match="requires explicit mask"):
            mod.masked._input_mask(x)


def test_median_and_norm_check_the_input_dtype():
    xi = np.array([[1, 2, 3], [4, 5, 6]])
    m = np.array([[True, False, True], [False, False, False]])
    for name, args in (("median", (1,)), ("norm", (2.0, 1))):
        with pytest.raises(Exception) as te:
            getattr(torch.masked, name)(_t(xi), *args, mask=_t(m), dtype=torch.float32)
        with pytest.raises(type(te.value)) as ee:
            getattr(ember.masked, name)(_e(xi), *args, mask=_e(m), dtype=ember.float32)
        assert str(ee.value) == str(te.value)
