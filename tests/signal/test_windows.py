"""ember.signal.windows against torch.signal.windows: values, sym, dtypes, requires_grad, errors."""
import numpy as np
import pytest
import torch

import ember

NAMES = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
         "general_hamming", "hamming", "hann", "kaiser", "nuttall"]
EXTRA = {"general_cosine": [{"a": [0.46, 0.4, 0.14]}, {"a": (1.0,)}],
         "general_hamming": [{}, {"alpha": 0.6}], "exponential": [{}, {"tau": 2.5}],
         "gaussian": [{}, {"std": 0.7}], "kaiser": [{}, {"beta": 0.0}, {"beta": 4.5}]}


def _pair(name):
    return getattr(ember.signal.windows, name), getattr(torch.signal.windows, name)


@pytest.mark.parametrize("name", NAMES)
def test_values_match_torch(name):
    e_fn, t_fn = _pair(name)
    for kw in EXTRA.get(name, [{}]):
        for M in (0, 1, 2, 3, 6, 11):
            for sym in (True, False):
                for dt in ("float32", "float64"):
                    e = e_fn(M, sym=sym, dtype=getattr(ember, dt), **kw)
                    t = t_fn(M, sym=sym, dtype=getattr(torch, dt), **kw)
                    assert str(e.dtype) == str(t.dtype) and tuple(e.shape) == tuple(t.shape)
                    torch.testing.assert_close(torch.from_numpy(e.numpy().copy()), t)


@pytest.mark.parametrize("name", NAMES)
def test_default_dtype_and_requires_grad(name):
    e_fn, t_fn = _pair(name)
    kw = EXTRA.get(name, [{}])[0]
    e, t = e_fn(5, requires_grad=True, **kw), t_fn(5, requires_grad=True, **kw)
    assert str(e.dtype) == str(t.dtype) == "torch.float32"
    assert e.requires_grad and t.requires_grad and e.is_leaf == t.is_leaf
    e.sum().backward()  # differentiable through its linspace like torch's


def test_exponential_center():
    e = ember.signal.windows.exponential(6, center=1.5, sym=False, dtype=ember.float64)
    t = torch.signal.windows.exponential(6, center=1.5, sym=False, dtype=torch.float64)
    np.testing.assert_allclose(e.numpy(), t.numpy())


@pytest.mark.parametrize("call", [
    "hann(-1)", "hann(3, dtype={m}.int64)", "nuttall(3, dtype={m}.float16)", "bartlett(-2)",
    "exponential(3, center=1.0)", "exponential(3, tau=0)", "gaussian(3, std=0)",
    "kaiser(3, beta=-1)", "general_cosine(3, a=1.0)", "general_cosine(3, a=[])",
    "cosine(-1)", "gaussian(-3)"])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as te:
        eval("torch.signal.windows." + call.format(m="torch"))
    with pytest.raises(type(te.value)) as ee:
        eval("ember.signal.windows." + call.format(m="ember"))
    assert str(ee.value) == str(te.value)
