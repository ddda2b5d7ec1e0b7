"""torch's removed linear-algebra functions and its deprecated Tensor methods, against torch:
solve/symeig raise, resize/resize_as reshape (view or copy), storage() reads the elements,
record_stream/reinforce raise the same exception class."""
import warnings

import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore:non-inplace resize")


@pytest.mark.parametrize("name,args", [("solve", (2,)), ("symeig", ()), ("eig", ()), ("lstsq", (2,))])
def test_removed_functions_raise_like_torch(name, args):
    t_args = tuple(torch.eye(a) for a in args)
    e_args = tuple(ember.eye(a) for a in args)
    for call_t, call_e in ((lambda: getattr(torch, name)(torch.eye(2), *t_args),
                            lambda: getattr(ember, name)(ember.eye(2), *e_args)),
                           (lambda: getattr(torch.eye(2), name)(*t_args),
                            lambda: getattr(ember.eye(2), name)(*e_args))):
        with pytest.raises(RuntimeError) as t_err:
            call_t()
        with pytest.raises(RuntimeError) as e_err:
            call_e()
        first = str(t_err.value).split(". ")[0]
        assert str(e_err.value).startswith(first)


def test_removed_matrix_rank_raises_like_torch():
    with pytest.raises(RuntimeError) as t_err:
        torch.matrix_rank(torch.eye(2))
    with pytest.raises(RuntimeError) as e_err:
        ember.matrix_rank(ember.eye(2))
    assert str(e_err.value).splitlines()[0] == str(t_err.value).splitlines()[0]
    assert not hasattr(torch.Tensor, "matrix_rank") and not hasattr(ember.Tensor, "matrix_rank")


@pytest.mark.parametrize("contiguous", [True, False])
def test_resize_and_resize_as(contiguous):
    t = torch.arange(6.).reshape(2, 3)
    e = ember.arange(6.).reshape(2, 3)
    if not contiguous:
        t, e = t.t(), e.t()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tr, er = t.resize(3, 2), e.resize(3, 2)
        tra, era = t.resize_as(torch.zeros(6)), e.resize_as(ember.zeros(6))
    # torch's warning, then ember's, for each call
    assert [str(w.message) for w in caught if "resize" in str(w.message)] == [
        "non-inplace resize is deprecated"] * 2 + ["non-inplace resize_as is deprecated"] * 2
    np.testing.assert_array_equal(er.numpy(), tr.numpy())
    np.testing.assert_array_equal(era.numpy(), tra.numpy())
    # shares memory exactly when torch's does (a view of a contiguous tensor)
    assert (er.data_ptr() == e.data_ptr()) == (tr.data_ptr() == t.data_ptr())
    with pytest.raises(RuntimeError, match="can only change the shape"):
        torch.arange(6.).resize(4)
    with pytest.raises(RuntimeError, match="can only change the shape"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ember.arange(6.).resize(4)


def test_resize_gradient():
    x = torch.arange(6., requires_grad=True)
    y = ember.arange(6., requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (x.resize(2, 3) * torch.arange(6.).reshape(2, 3)).sum().backward()
        (y.resize(2, 3) * ember.arange(6.).reshape(2, 3)).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), x.grad.numpy())


def test_storage_and_stream_methods():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ts, es = torch.arange(5, dtype=torch.int32)[1:].storage(), ember.arange(5, dtype=ember.int32)[1:].storage()
    assert es.tolist() == ts.tolist() and len(es) == len(ts) and es[2] == ts[2]
    assert es.element_size() == ts.element_size() and es.nbytes() == ts.nbytes()
    assert str(es.dtype) == str(ts.dtype) and es.device.type == ts.device.type
    with pytest.raises(NotImplementedError):
        torch.zeros(2).record_stream(torch.Stream(device="cpu"))
    with pytest.raises(NotImplementedError, match="record_stream"):
        ember.zeros(2).record_stream(None)
    with pytest.raises(RuntimeError, match="reinforce"):
        torch.zeros(2).reinforce(1.0)
    with pytest.raises(RuntimeError, match="reinforce"):
        ember.zeros(2).reinforce(1.0)
