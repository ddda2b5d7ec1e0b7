"""``Tensor.real`` / ``Tensor.imag`` (ember/_tensor_methods/complex_parts.py) against torch: views that
share storage, _base and version counter, their geometry, setters, autograd through them and errors."""
import contextlib
import warnings

import numpy as np
import pytest
import torch

import ember
from ember.autograd import grad_mode


def _pair(values, dtype="complex64", requires_grad=False):
    t = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=requires_grad)
    e = ember.tensor(values, dtype=getattr(ember, dtype), requires_grad=requires_grad)
    return e, t


def _same(e, t):
    assert str(e.dtype) == str(t.dtype) and tuple(e.shape) == tuple(t.shape)
    e, t = e.detach(), t.detach().resolve_conj().resolve_neg()
    if t.dtype == torch.complex32:  # no NumPy dtype: compare the float16 pairs
        e, t = ember.view_as_real(e), torch.view_as_real(t)
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def _geometry(m, x):
    if x.numel() == 0:  # ember reports contiguous strides, offset 0 and data_ptr 0 for every empty tensor
        return [(tuple(p.shape), p._is_view(), str(p.dtype)) for p in (x.real, x.imag, m.real(x), m.imag(x))]
    return [(p.stride(), p.storage_offset(), p.data_ptr() - x.data_ptr(), p._base is x, p._is_view(),
             str(p.dtype)) for p in (x.real, x.imag, m.real(x), m.imag(x))]


VALUES = [[1 + 2j, -3 + 4j, 5 - 6j], [7 + 0.5j, -8 - 9j, 10 + 11j]]


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "complex32"])
def test_parts_are_views_with_torchs_geometry(dtype):
    e, t = _pair(VALUES, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch: "ComplexHalf support is experimental"
        cases = [lambda x: x, lambda x: x.t(), lambda x: x[:, 1:], lambda x: x[1], lambda x: x[::1, ::2],
                 lambda x: x[0, 2], lambda x: x[:0]]
        for f in cases:
            ex, tx = f(e), f(t)
            assert _geometry(ember, ex) == _geometry(torch, tx)
            _same(ex.real, tx.real)
            _same(ex.imag, tx.imag)
            assert ex.real._base is e and tx.real._base is t
            # the cpu shortcut (no autograd, no mode) gives the views the dispatched ops give
            for k, p in enumerate((ex.real, ex.imag)):
                q = ember.view_as_real(ex).select(-1, k)
                assert (p.shape, p.stride(), p.storage_offset(), p.dtype, p._base, p._vc) == \
                       (q.shape, q.stride(), q.storage_offset(), q.dtype, q._base, q._vc)
            assert ex.imag.untyped_storage().data_ptr() == e.untyped_storage().data_ptr()


def test_writes_through_parts_reach_the_complex_tensor():
    e, t = _pair(VALUES)
    for m, x in ((ember, e), (torch, t)):
        x.real[0].zero_()
        x.imag += 1
        m.imag(x)[1, 2] = -5
        m.real(x).mul_(2)
    _same(e, t)
    assert e._version == t._version == 5  # x.imag += 1 is an add_ then the setter's copy_, as in torch
    assert e.real._version == t.real._version == 5
    # a part of a part's base family: the detached alias shares memory and counter too
    e.detach().imag.fill_(3)
    t.detach().imag.fill_(3)
    _same(e, t)
    assert e._version == t._version


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "complex32"])
def test_setters_match_torch(dtype):
    e, t = _pair(VALUES, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for value in (5, 2.5, True, np.int32(3), np.float64(1.5), 4 + 0j):
            for m, x in ((ember, e), (torch, t)):
                x.real = value
                x.imag = value
            _same(e, t)
        for m, x in ((ember, e), (torch, t)):
            x.real = m.tensor([1.0, 2.0, 3.0])  # broadcast over rows
            x.imag = m.tensor([[1], [2]])  # an integer tensor, cast
            x.real = x.imag  # overlapping memory of the same tensor
        _same(e, t)
        assert e._version == t._version


def test_setter_errors_match_torch():
    e, t = _pair(VALUES)
    er, tr = _pair([1.0, 2.0], "float64")
    cases = [(e, t, "real", "a"), (e, t, "imag", None), (e, t, "real", np.float32(2)),
             (e, t, "imag", np.array([1.0])), (e, t, "real", [1.0, 2.0]), (e, t, "real", 1j),
             (e, t, "real", 2 ** 70), (er, tr, "real", "a"), (er, tr, "imag", 1.0),
             (e, t, "real", ("a", "b")), (e, t, "imag", "torch shape"),
             (_pair([1, 2], "int64")[0], _pair([1, 2], "int64")[1], "real", 1j),
             (_pair([1, 2], "int32")[0], _pair([1, 2], "int32")[1], "real", 1j)]
    for ex, tx, name, value in cases:
        if value == "torch shape":
            value_e, value_t = ember.ones(4), torch.ones(4)
        else:
            value_e = value_t = value
        with pytest.raises(Exception) as te:
            setattr(tx, name, value_t)
        with pytest.raises(type(te.value)) as ee:
            setattr(ex, name, value_e)
        if value != "torch shape":  # copy_'s shape message is copy_'s own (not real/imag's)
            assert str(ee.value) == str(te.value)
    _same(e, t)


def test_real_tensors():
    for m in (ember, torch):
        x = m.tensor([1.0, -2.0])
        assert x.real is x and m.real(x) is x
        for get in (lambda: x.imag, lambda: m.imag(x)):
            with pytest.raises(RuntimeError,
                               match="^imag is not implemented for tensors with non-complex dtypes.$"):
                get()
        x.real = m.tensor([3.0, 4.0])
        assert x.tolist() == [3.0, 4.0] and x._version == 1
        x.real = 7
        assert x.tolist() == [7.0, 7.0] and x._version == 2


def test_meta_parts_have_torchs_geometry():
    e = ember.empty(3, 4, dtype=ember.complex128, device="meta").t()
    t = torch.empty(3, 4, dtype=torch.complex128, device="meta").t()
    for pe, pt in ((e.real, t.real), (e.imag, t.imag)):
        assert (pe.shape, pe.stride(), pe.storage_offset(), str(pe.dtype), pe.is_meta) == \
               (tuple(pt.shape), pt.stride(), pt.storage_offset(), str(pt.dtype), pt.is_meta)
        assert pe._base is e._base


def _leaf_pair(seed, dtype="complex128"):
    g = torch.Generator().manual_seed(seed)
    t = torch.randn(2, 3, dtype=getattr(torch, dtype), generator=g)
    return ember.tensor(t.numpy()).requires_grad_(), t.clone().requires_grad_()


@contextlib.contextmanager
def _recording(lean):
    """ember's lean recording on (``lean``) or as the context leaves it; the process-wide "anomaly
    mode or saved-tensor hooks were used" flag is restored afterwards, so the order tests run in
    does not decide which recording path a test exercises."""
    prev = grad_mode.SPECIAL_RECORDING[0]
    if lean:
        grad_mode.SPECIAL_RECORDING[0] = False
        grad_mode._update_lean()
        assert grad_mode.LEAN[0]
    try:
        yield
    finally:
        grad_mode.SPECIAL_RECORDING[0] = prev
        grad_mode._update_lean()


@contextlib.contextmanager
def _context(name, m):
    with contextlib.ExitStack() as stack:
        if m is ember:
            stack.enter_context(_recording(name == "lean"))
        if name == "anomaly":  # the general recording (not the lean one)
            stack.enter_context(m.autograd.detect_anomaly(check_nan=False))
        elif name == "saved_hooks":
            stack.enter_context(m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t))
        yield


@pytest.mark.parametrize("context", ["lean", "anomaly", "saved_hooks"])
def test_gradients_of_parts_match_torch(context):
    fns = [lambda m, x: (x.real * 2 + x.imag ** 2).sum(),
           lambda m, x: (m.real(x)[0] * m.imag(x)[1]).sum(),
           lambda m, x: (x.t().imag * 3).sum() + x.real.exp().sum(),
           lambda m, x: (x * x.conj()).real.sum() + (x ** 2).imag.sum()]
    for k, f in enumerate(fns):
        e, t = _leaf_pair(k)
        with warnings.catch_warnings(), _context(context, ember), _context(context, torch):
            warnings.simplefilter("ignore")  # anomaly mode's warning
            f(ember, e).backward()
            f(torch, t).backward()
            names = [(x.real.grad_fn.name(), x.imag.grad_fn.next_functions[0][0].name(), x.real._base is x,
                      x.imag.requires_grad, x.imag.is_leaf) for x in (e, t)]
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)
        assert names[0] == names[1] == ("SelectBackward0", "ViewAsRealBackward0", True, True, False)
    with ember.no_grad():
        assert not e.real.requires_grad and e.real._base is e and e.real.grad_fn is None


def test_dispatch_modes_see_view_as_real_and_select():
    from ember.utils._python_dispatch import TorchDispatchMode

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(func.name)
            return func(*args, **(kwargs or {}))

    for requires_grad in (False, True):
        seen = []
        x = ember.randn(2, 3, dtype=ember.complex64, requires_grad=requires_grad)
        with Log():
            r, i = x.real, x.imag
        assert seen == ["view_as_real", "select"] * 2
        assert (r._base, i._base, i.storage_offset(), i.stride()) == (x, x, 1, (6, 2))


def test_gradcheck_through_parts():
    x = ember.randn(3, dtype=ember.complex128, requires_grad=True)
    assert ember.autograd.gradcheck(lambda z: z.real * z.imag + z.imag.sin(), (x,))
    assert ember.autograd.gradgradcheck(lambda z: (z.real ** 2 * z.imag), (x,))


def test_inplace_through_parts_of_a_leaf_raises_torchs_error():
    for m in (ember, torch):
        x = m.randn(3, dtype=m.complex64, requires_grad=True)
        for write in (lambda: x.real.zero_(), lambda: x.imag.mul_(2), lambda: setattr(x, "real", 0),
                      lambda: x.imag.__iadd__(1)):
            with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is being "
                                                   "used in an in-place operation.$"):
                write()
        with m.no_grad():
            x.real.zero_()
            x.imag = 1
        assert x.tolist() == [1j] * 3


def test_inplace_through_parts_of_a_non_leaf_matches_torch():
    def f(m, x, w):
        z = x * 2
        z.real.mul_(w)  # CopySlices into z
        z.imag = w.exp()  # setter: copy_ through the view
        z[1:].real.add_(z.imag[:-1] + 3)  # a part of a slice, reading the other part
        return (z.abs() ** 2).sum() + z.imag.sum(), z

    e, t = _leaf_pair(7)
    we = ember.tensor([0.5, -1.0, 2.0], dtype=ember.float64, requires_grad=True)
    wt = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (le, ze), (lt, zt) = f(ember, e, we), f(torch, t, wt)
    assert ze.grad_fn.name() == zt.grad_fn.name()  # torch::autograd::CopySlices
    assert ze._version == zt._version
    le.backward()
    lt.backward()
    for a, b in ((le, lt), (e.grad, t.grad), (we.grad, wt.grad)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_saved_tensor_check_sees_writes_through_parts():
    for m in (ember, torch):
        x = m.randn(3, dtype=m.complex128, requires_grad=True)
        z = x * 1
        loss = (z.real * z.real).sum()  # saves z.real, a view sharing z's counter
        z.imag.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.backward()


def test_complex32_parts_write_through():
    e, t = _pair(VALUES, "complex32")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for x in (e, t):
            x.real.zero_()
            x.imag[0] = 0.125
            x.imag = x.imag * 2
    _same(e, t)
    assert str(e.real.dtype) == str(t.real.dtype) == "torch.float16"


def test_conj_is_a_physical_copy_in_ember():
    """Not built: torch's lazy conjugate view. ember's conj() is a conjugated copy (is_conj() False),
    with the same values; what a program can observe differently is pinned here."""
    e, t = _pair(VALUES)
    ce, ct = e.conj(), t.conj()
    _same(ce, ct)
    assert ct.is_conj() and ct._base is t and ct.data_ptr() == t.data_ptr()
    assert not ce.is_conj() and ce._base is None and ce.data_ptr() != e.data_ptr()
    _same(ce.imag, ct.imag)
    x = ember.randn(3)
    assert x.conj() is x


def test_subclass_torch_function_sees_part_reads_only():
    logs = {}
    for m in (ember, torch):
        log = logs[m.__name__] = []

        class Logged(m.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                part = {m.Tensor.real.__get__: "real", m.Tensor.imag.__get__: "imag"}
                log.append(next((v for k, v in part.items() if func == k), getattr(func, "__name__", "?")))
                return super().__torch_function__(func, types, args, kwargs or {})

        x = m.tensor([1 + 2j, 3 - 4j]).as_subclass(Logged)
        r, i = x.real, x.imag
        x.imag = 5  # setters are not offered to __torch_function__ (torch's neither)
        x.real = 6
        assert type(r) is Logged and type(i) is Logged
        assert [type(m.real(x)), type(m.imag(x))] == [Logged, Logged]
        with pytest.raises(RuntimeError, match="^imag is not implemented"):
            m.tensor([1.0]).as_subclass(Logged).imag
        assert x.as_subclass(m.Tensor).tolist() == [6 + 5j, 6 + 5j]
    assert logs["ember"] == logs["torch"] == ["real", "imag", "real", "imag", "imag"]


def test_functions_refuse_non_tensors_as_torch():
    for value in (3, 2.5, 1j, np.array([1 + 2j]), [1j]):
        for name in ("real", "imag"):
            with pytest.raises(TypeError) as te:
                getattr(torch, name)(value)
            with pytest.raises(TypeError) as ee:
                getattr(ember, name)(value)
            assert str(ee.value) == str(te.value)


def test_parts_of_a_complex_view_of_a_real_base():
    res = {}
    for m in (ember, torch):
        a0 = m.tensor([[1.0, 2.0], [3.0, -4.0], [0.5, 2.0]], dtype=m.float64, requires_grad=True)
        a = a0 * 1
        y = m.view_as_complex(a)
        r = y.real
        y.imag.mul_(3)
        r.add_(a[:, 1].detach())
        (a ** 3).sum().backward()
        res[m.__name__] = (r._base is a, r.stride(), y.imag.storage_offset(), a.grad_fn.name(), a0.grad.tolist())
    assert res["ember"] == res["torch"]
