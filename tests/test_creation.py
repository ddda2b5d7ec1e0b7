"""Tensor creation against torch: values, dtypes and shapes of tensor/as_tensor/zeros/ones/full/empty/
arange/linspace/logspace/eye/*_like, the cuda and meta devices, default dtype and default device."""
import warnings

import numpy as np
import pytest
import torch

import ember


def _check(e, t, exact=True):
    assert str(e.dtype) == str(t.dtype), (e.dtype, t.dtype)
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.device) == str(t.device)
    if t.device.type == "meta":
        return
    if t.dtype == torch.bfloat16:
        e, t = e.float(), t.float()
    en = e.detach().numpy()
    tn = t.detach().numpy()
    if exact:
        np.testing.assert_array_equal(en, tn)
    else:
        np.testing.assert_allclose(en, tn, rtol=1e-6, atol=1e-6)


def _both(fn, exact=True):
    """Run ``fn`` with both libraries: same result, or the same exception class and message."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            t = fn(torch)
        except Exception as err:
            with pytest.raises(type(err)) as got:
                fn(ember)
            assert str(got.value) == str(err)
            return
        e = fn(ember)
    _check(e, t, exact)


DATA = [1, 2.5, True, 1 + 2j, [1, 2, 3], [1.0, 2], [True, False], [1, 2.5, True], [[1, 2], [3, 4]],
        [[1.5], [2.0]], [], [[]], [[], []], [1 + 1j, 2], (1, 2), [(1, 2), (3, 4)],
        [np.float32(1.5), 2], [np.int32(3)], np.float64(2.0), [True, 2]]


@pytest.mark.parametrize("i", range(len(DATA)))
def test_tensor_from_python(i):
    _both(lambda L: L.tensor(DATA[i]))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16",
                                   "bfloat16", "float32", "float64", "complex64", "complex128"])
def test_tensor_dtype_arg(dtype):
    vals = [[0, 1], [1, 0]] if dtype == "bool" else [[1, 2], [3, 4]]
    _both(lambda L: L.tensor(vals, dtype=getattr(L, dtype)))
    _both(lambda L: L.tensor(2.75 if "float" in dtype else 3, dtype=getattr(L, dtype)))


@pytest.mark.parametrize("npdtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16",
                                     "float32", "float64", "complex64", "complex128"])
def test_tensor_from_numpy_array(npdtype):
    a = np.arange(6).reshape(2, 3).astype(npdtype)
    _both(lambda L: L.tensor(a))
    _both(lambda L: L.tensor(a.T))
    e = ember.tensor(a)
    assert not np.shares_memory(e.numpy(), a)


def test_tensor_from_tensors():
    _both(lambda L: L.tensor([L.tensor(1.5), L.tensor(2.0)]))
    _both(lambda L: L.tensor(L.arange(3)))
    with pytest.warns(UserWarning):
        ember.tensor(ember.ones(2))
    src = ember.ones(2, requires_grad=True)
    with pytest.warns(UserWarning):
        out = ember.tensor(src.detach())
    assert not out.requires_grad and out.data_ptr() != src.data_ptr()
    assert ember.tensor([1.0], requires_grad=True).requires_grad


def test_tensor_errors():
    for bad in ([[1, 2], [3]], [[1], 2]):
        with pytest.raises((ValueError, TypeError)) as te:
            torch.tensor(bad)
        with pytest.raises(type(te.value)):
            ember.tensor(bad)
    with pytest.raises(TypeError):
        ember.tensor("abc")
    with pytest.raises(RuntimeError):
        torch.tensor([1.0], dtype=torch.int64, requires_grad=True)
    with pytest.raises(RuntimeError):
        ember.tensor([1.0], dtype=ember.int64, requires_grad=True)


def test_as_tensor():
    a = np.arange(4.0)
    e = ember.as_tensor(a)
    assert np.shares_memory(e.numpy(), a) and e.dtype is ember.float64
    e32 = ember.as_tensor(a, dtype=ember.float32)
    assert not np.shares_memory(e32.numpy(), a) and e32.dtype is ember.float32
    t = ember.ones(3)
    assert ember.as_tensor(t) is t
    assert ember.as_tensor(t, dtype=ember.float64).dtype is ember.float64
    _both(lambda L: L.as_tensor([1, 2, 3]))
    _both(lambda L: L.as_tensor([1.5, 2], dtype=L.float16))
    _both(lambda L: L.as_tensor(np.arange(5)[::-1]))


SIZES = [(), (0,), (3,), (2, 3), (1, 0, 2)]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("fn", ["zeros", "ones"])
def test_zeros_ones(size, fn):
    _both(lambda L: getattr(L, fn)(size))
    _both(lambda L: getattr(L, fn)(*size))
    _both(lambda L: getattr(L, fn)(list(size), dtype=L.int32))
    _both(lambda L: getattr(L, fn)(L.Size(size), dtype=L.bool))


@pytest.mark.parametrize("fill", [0, 7, 2.5, True, 1 + 2j, -3])
def test_full(fill):
    _both(lambda L: L.full((2, 3), fill))
    _both(lambda L: L.full([2], fill, dtype=L.float64))
    _both(lambda L: L.full((), fill))


def test_empty_shapes_and_dtypes():
    for size in SIZES:
        e, t = ember.empty(size), torch.empty(size)
        assert tuple(e.shape) == tuple(t.shape) and str(e.dtype) == str(t.dtype)
        assert e.stride() == t.stride()
    assert ember.empty(2, 3, dtype=ember.int16).dtype is ember.int16
    s = ember.empty_strided((2, 3), (1, 2))
    assert s.stride() == torch.empty_strided((2, 3), (1, 2)).stride() and s.shape == (2, 3)


ARANGE = [(5,), (0,), (2, 7), (1, 10, 3), (10, 1, -2), (0.0, 1.0, 0.1), (1, 2.5, 0.5), (-1.5, 1.5),
          (0, 5, 1.5), (2.5,), (0, 1, 0.3), (5, 5)]


@pytest.mark.parametrize("args", ARANGE)
def test_arange(args):
    _both(lambda L: L.arange(*args), exact=False)
    _both(lambda L: L.arange(*args, dtype=L.float64), exact=False)
    if all(isinstance(a, int) for a in args):
        _both(lambda L: L.arange(*args, dtype=L.int32))


def test_arange_keywords_and_tensor_bounds():
    _both(lambda L: L.arange(start=1, end=4))
    _both(lambda L: L.arange(L.tensor(4)))
    _both(lambda L: L.arange(0, 10, 3, dtype=L.float32))


def test_arange_errors():
    for args in ((0, 5, 0), (5, 0, 1)):
        with pytest.raises(RuntimeError) as te:
            torch.arange(*args)
        with pytest.raises(RuntimeError) as ee:
            ember.arange(*args)
        assert str(ee.value) == str(te.value)


LINSPACE = [(0, 1, 5), (-2, 2, 1), (0, 10, 0), (1, 0, 4), (0, 1, 11), (3, 3, 3), (0, 100, 7)]


@pytest.mark.parametrize("args", LINSPACE)
def test_linspace(args):
    _both(lambda L: L.linspace(*args), exact=False)
    _both(lambda L: L.linspace(*args, dtype=L.float64), exact=False)
    _both(lambda L: L.linspace(*args, dtype=L.int64))


@pytest.mark.parametrize("args", [(0, 2, 3), (-1, 1, 5), (0, 3, 4, 2.0), (1, 0, 3)])
def test_logspace(args):
    _both(lambda L: L.logspace(*args), exact=False)
    _both(lambda L: L.logspace(*args, dtype=L.float64), exact=False)


def test_integer_linspace_logspace_random_calls():
    # torch's integer rule (truncate start/end into the dtype, float64 steps by fused multiply-add
    # from both ends for linspace, plain float64 for logspace's exponents, then truncate), and its
    # range errors, over random float/int endpoints and every integer dtype
    rng = np.random.default_rng(0)
    for _ in range(300):
        fn = str(rng.choice(["linspace", "logspace"]))
        dt = str(rng.choice(["int64", "int32", "int16", "int8", "uint8"]))
        lim = 100 if fn == "linspace" else 5
        a, b = (float(rng.uniform(-lim, lim)) if rng.random() < 0.5 else int(rng.integers(-lim, lim))
                for _ in range(2))
        steps = int(rng.integers(0, 60))
        kw = {"base": float(rng.choice([10.0, 2.0, 3.0, 0.5, 1.5]))} if fn == "logspace" else {}
        _both(lambda L: getattr(L, fn)(a, b, steps, dtype=getattr(L, dt), **kw))


@pytest.mark.parametrize("args", [(3,), (2, 4), (4, 2), (0,), (1, 0)])
def test_eye(args):
    _both(lambda L: L.eye(*args))
    _both(lambda L: L.eye(*args, dtype=L.int64))
    _both(lambda L: L.eye(*args, dtype=L.bool))


def test_linspace_eye_errors():
    with pytest.raises(RuntimeError) as te:
        torch.linspace(0, 1, -1)
    with pytest.raises(RuntimeError) as ee:
        ember.linspace(0, 1, -1)
    assert str(ee.value) == str(te.value)
    with pytest.raises(RuntimeError) as te:
        torch.eye(-1)
    with pytest.raises(RuntimeError) as ee:
        ember.eye(-1)
    assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("src_dtype", ["float32", "float64", "int32", "bool", "float16"])
def test_like_functions(src_dtype):
    def src(L):
        return L.ones(2, 3, dtype=getattr(L, src_dtype))
    _both(lambda L: L.zeros_like(src(L)))
    _both(lambda L: L.ones_like(src(L)))
    _both(lambda L: L.full_like(src(L), 3))
    _both(lambda L: L.full_like(src(L), 0.5, dtype=L.float64))
    _both(lambda L: L.ones_like(src(L), dtype=L.int8))
    for fn in ("empty_like", "rand_like", "randn_like"):
        if fn != "empty_like" and src_dtype in ("int32", "bool"):
            continue
        e, t = getattr(ember, fn)(src(ember)), getattr(torch, fn)(src(torch))
        assert str(e.dtype) == str(t.dtype) and tuple(e.shape) == tuple(t.shape)
    assert ember.zeros_like(ember.ones(2), requires_grad=True).requires_grad


def test_new_factories():
    _both(lambda L: L.ones(2, dtype=L.float64).new_zeros(3))
    _both(lambda L: L.ones(2, dtype=L.int32).new_ones((2, 2)))
    _both(lambda L: L.ones(2).new_full((2,), 7))
    _both(lambda L: L.ones(2, dtype=L.float64).new_tensor([1, 2]))
    assert ember.ones(2, dtype=ember.int16).new_empty(3).dtype is ember.int16


def test_cuda_device_constructs_but_cannot_allocate():
    d = ember.device("cuda")
    assert repr(d) == repr(torch.device("cuda")) and d.type == "cuda"
    assert repr(ember.device("cuda:1")) == repr(torch.device("cuda:1"))
    allocs = [lambda L: L.zeros(2, device="cuda"), lambda L: L.ones(2, device=L.device("cuda")),
              lambda L: L.tensor([1.0], device="cuda"), lambda L: L.empty(2, device="cuda"),
              lambda L: L.full((2,), 1.0, device="cuda"), lambda L: L.rand(2, device="cuda"),
              lambda L: L.ones(2).cuda(), lambda L: L.ones(2).to("cuda"),
              lambda L: L.arange(3, device="cuda"), lambda L: L.eye(2, device="cuda")]
    for fn in allocs:
        with pytest.raises(AssertionError) as te:
            fn(torch)
        with pytest.raises(AssertionError) as ee:
            fn(ember)
        assert str(ee.value) == str(te.value) == "Torch not compiled with CUDA enabled"


META = [lambda L: L.zeros(2, 3, device="meta"), lambda L: L.ones(4, device="meta", dtype=L.int64),
        lambda L: L.empty(0, 2, device="meta"), lambda L: L.full((2,), 3.0, device="meta"),
        lambda L: L.tensor([1, 2], device="meta"), lambda L: L.arange(5, device="meta"),
        lambda L: L.arange(0, 1, 0.25, device="meta"), lambda L: L.linspace(0, 1, 4, device="meta"),
        lambda L: L.logspace(0, 1, 3, device="meta"), lambda L: L.eye(3, 2, device="meta"),
        lambda L: L.zeros_like(L.empty(2, device="meta")),
        lambda L: L.full_like(L.ones(3), 2, device="meta"), lambda L: L.ones(2).to("meta"),
        lambda L: L.empty_strided((2, 3), (1, 2), device="meta")]


@pytest.mark.parametrize("i", range(len(META)))
def test_meta_device(i):
    e, t = META[i](ember), META[i](torch)
    _check(e, t)
    assert e.is_meta and e.stride() == t.stride()


def test_set_default_dtype_affects_creation():
    try:
        for d in ("float64", "float16", "bfloat16"):
            ember.set_default_dtype(getattr(ember, d))
            torch.set_default_dtype(getattr(torch, d))
            for fn in (lambda L: L.tensor([1.5]), lambda L: L.zeros(2), lambda L: L.arange(0.0, 2),
                       lambda L: L.full((2,), 1.5), lambda L: L.linspace(0, 1, 3),
                       lambda L: L.tensor([1, 2]), lambda L: L.eye(2), lambda L: L.empty(1).fill_(0),
                       lambda L: L.tensor(1 + 1j) if d == "float64" else L.tensor(0.5)):
                _both(fn, exact=False)
    finally:
        ember.set_default_dtype(ember.float32)
        torch.set_default_dtype(torch.float32)


def test_set_default_device():
    try:
        ember.set_default_device("meta")
        torch.set_default_device("meta")
        for fn in (lambda L: L.zeros(2), lambda L: L.ones(2, 3), lambda L: L.empty(3),
                   lambda L: L.full((2,), 1.0), lambda L: L.rand(2), lambda L: L.arange(4)):
            e, t = fn(ember), fn(torch)
            _check(e, t)
        assert str(ember.get_default_device()) == str(torch.get_default_device())
        assert repr(ember.zeros(2)) == repr(torch.zeros(2))
    finally:
        ember.set_default_device(None)
        torch.set_default_device(None)
    assert ember.zeros(2).device.type == "cpu"
    with ember.device("meta"):
        assert ember.ones(2).is_meta
    assert not ember.ones(2).is_meta


def test_scalar_tensor_and_requires_grad():
    _both(lambda L: L.scalar_tensor(3))
    _both(lambda L: L.scalar_tensor(3, dtype=L.int64))
    for fn in ("zeros", "ones", "empty"):
        assert getattr(ember, fn)(2, requires_grad=True).requires_grad
    assert ember.arange(3.0, requires_grad=True).requires_grad
    assert ember.full((2,), 1.0, requires_grad=True).requires_grad


def test_out_argument():
    for lib in (ember, torch):
        out = lib.empty(3)
        r = lib.zeros(3, out=out)
        assert r is out and out.tolist() == [0.0, 0.0, 0.0]
        r = lib.arange(3, out=lib.empty(3, dtype=lib.int64))
        assert r.tolist() == [0, 1, 2]
        r = lib.linspace(0, 1, 3, out=lib.empty(3))
        assert r.tolist() == [0.0, 0.5, 1.0]


def test_linspace_float32_is_bitwise_torchs():
    # torch's kernel counts the first half up from start and the second half down from end, one fused
    # multiply-add per value; models fed linspace inputs then agree with torch to the last bit
    for start, end, steps in [(-2, 2, 24576), (-1.5, 3.7, 1001), (3, -5, 100), (0, 1, 10), (5, 5, 3)]:
        a = torch.linspace(start, end, steps).numpy()
        b = ember.linspace(start, end, steps).numpy()
        assert (a == b).all(), (start, end, steps, int((a != b).sum()))
        a64 = torch.linspace(start, end, steps, dtype=torch.float64).numpy()
        b64 = ember.linspace(start, end, steps, dtype=ember.float64).numpy()
        np.testing.assert_allclose(b64, a64, rtol=0, atol=4e-16 * max(abs(start), abs(end)))


@pytest.mark.parametrize("make", [
    lambda lib: lib.zeros(-1), lambda lib: lib.zeros(2, -3), lambda lib: lib.ones(2, -1),
    lambda lib: lib.full((-1,), 1.0), lambda lib: lib.empty(-2), lambda lib: lib.zeros(2, -1, device="meta"),
    lambda lib: lib.empty(-1, device="meta")])
def test_negative_sizes_raise_torchs_error(make):
    errors = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as info:
            make(lib)
        errors.append((info.type, str(info.value)))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int64",
                                   "bool", "complex64", "complex32"])
@pytest.mark.parametrize("value", [0, 1, -0.0, 2.5, 7])
def test_full_values_match_torch(dtype, value):
    """``full``'s kernel (zeros for an int 0, else a fill) stores what torch stores, bit for bit."""
    if dtype == "uint8" and value == -0.0:
        value = 0.0
    e = ember.full((3,), value, dtype=getattr(ember, dtype))
    t = torch.full((3,), value, dtype=getattr(torch, dtype))
    if dtype == "complex32":
        e, t = ember.view_as_real(e), torch.view_as_real(t)
    assert e.numpy().tobytes() == t.numpy().tobytes() if dtype != "bfloat16" else \
        e.float().numpy().tobytes() == t.float().numpy().tobytes()


class _Opaque:
    pass


@pytest.mark.parametrize("data", [[0, 1, object()], [[1, 2], [3, _Opaque()]], [None], object(), ["a"],
                                  [["ab"], ["c"]], [1, "a"], [[1], ["a"]], "a", [b"a"]],
                         ids=lambda d: repr(d)[:20])
def test_uninferable_data_raises_torchs_error(data):
    """Objects without a dtype: RuntimeError; strings read as one more dimension when first, else
    torch's "invalid data type" TypeError."""
    with pytest.raises(Exception) as want:
        torch.tensor(data)
    with pytest.raises(Exception) as got:
        ember.tensor(data)
    assert (type(got.value), str(got.value)) == (type(want.value), str(want.value))


def test_arange_values_and_errors_match_torch_bit_for_bit():
    """start/end/step of both signs, ints and floats (incl. -0.0, fractional steps into integer
    dtypes, which torch truncates: int64 refuses, the others repeat the start), in nine dtypes."""
    import itertools
    for start, end, step in itertools.product([0, -0.0, 1, 2.5, -1.5], [0, 5, -5, 7.25], [1, 2, -1, 0.5, -0.25, 1.0]):
        for dt in (None, "float32", "float64", "int64", "int32", "uint8", "float16", "bfloat16"):
            got = []
            for lib in (torch, ember):
                try:
                    t = lib.arange(start, end, step, dtype=getattr(lib, dt) if dt else None)
                    got.append((str(t.dtype).split(".")[1], t.to(lib.float64).numpy().tobytes()))
                except (RuntimeError, ValueError) as e:
                    got.append((type(e), str(e)))
            assert got[0] == got[1], (start, end, step, dt)
