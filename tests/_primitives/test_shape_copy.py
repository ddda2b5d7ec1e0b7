"""``Tensor.copy_`` outside autograd writes straight into the destination (the copy primitive's
in-place writer): broadcasting, overlap, views, errors and version bumps as torch."""
import numpy as np
import pytest
import torch

import ember


def _both(fn):
    res = []
    for lib in (ember, torch):
        a = lib.arange(12.0).reshape(3, 4)
        res.append(fn(lib, a))
    return res


@pytest.mark.parametrize("case", [
    lambda lib, a: a.copy_(lib.tensor([1.0, 2.0, 3.0, 4.0])),               # broadcast
    lambda lib, a: a[:, 1:3].copy_(lib.ones(3, 2) * 7),                      # strided view
    lambda lib, a: a[:, :2].copy_(a[:, 2:]),                                 # same storage
    lambda lib, a: a.copy_(lib.ones(3, 4, dtype=lib.float64) / 3),           # cast: ordinary path
])
def test_copy_matches_torch(case):
    e, t = _both(lambda lib, a: (case(lib, a), a)[1].numpy().copy())
    np.testing.assert_array_equal(e, t)


def test_copy_bumps_version_and_raises_torch_errors():
    a = ember.zeros(3, 4)
    v = a._version
    a.copy_(ember.ones(4))
    assert a._version == v + 1 and a.sum().item() == 12
    with pytest.raises(RuntimeError, match="must match the existing size"):
        a.copy_(ember.ones(5))
    with pytest.raises(RuntimeError, match="more than one element"):
        ember.zeros(4).expand(3, 4).copy_(ember.ones(3, 4))


# ---- flip: the compiled row reversal (last dim, >= 256 elements) and the reversed-view copy, vs torch
@pytest.fixture
def rows_loop_now(monkeypatch):
    from ember._primitives import shape_copy as SC
    monkeypatch.setattr(SC, "REVERSE_ROWS_WARMUP", 0)


_FLIP_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
                "float64", "complex64", "complex128"]


def _flip_input(lib, dtype, shape, layout):
    rng = np.random.default_rng(0)
    # integers in int8's range: exact in every dtype, so the inputs are equal bit for bit
    a = np.round(rng.standard_normal((shape[0], shape[1], shape[2] * 2)) * 40).clip(-127, 127)
    if dtype == "bool":
        a = a > 0
    t = lib.tensor(a).to(getattr(lib, dtype))
    if dtype.startswith("complex"):
        t = t + 1j * lib.tensor(a[::-1].copy()).to(t.dtype)
    return t[:, :, ::2] if layout == "strided" else t[:, :, :shape[2]].contiguous()


@pytest.mark.parametrize("dtype", _FLIP_DTYPES)
def test_flip_matches_torch_on_every_dtype(dtype, rows_loop_now):
    for shape in ((2, 3, 64), (3, 32, 32), (1, 1, 3)):  # compiled loop, compiled loop, small
        for layout in ("contiguous", "strided"):
            for dims in ((-1,), (2,), (0, -1), (-3, 1, 2), (1,), (0,)):
                e, t = (_flip_input(lib, dtype, shape, layout) for lib in (ember, torch))
                fe, ft = e.flip(dims), t.flip(dims)
                label = f"{dtype} {shape} {layout} {dims}"
                assert fe.is_contiguous() and str(fe.dtype) == str(ft.dtype), label
                np.testing.assert_array_equal(fe.float().numpy() if dtype == "bfloat16" else fe.numpy(),
                                              ft.float().numpy() if dtype == "bfloat16" else ft.numpy(), label)
                if len(dims) == 1:  # the method's one-int form (the generated fast method)
                    np.testing.assert_array_equal(e.flip(dims[0]).numpy().view(np.uint8),
                                                  fe.numpy().view(np.uint8), label)


def test_flip_method_errors_grad_and_views_match_torch(rows_loop_now):
    for lib in (ember, torch):
        x = lib.arange(300.0).reshape(3, 100).requires_grad_()
        y = x.flip(-1)
        (y * lib.arange(300.0).reshape(3, 100)).sum().backward()
        assert x.grad[0, :3].tolist() == [99.0, 98.0, 97.0] and y.grad_fn.name() == "FlipBackward0"
        v = lib.arange(600.0).reshape(3, 200)[:, ::2]  # a non-contiguous view of >= 256 elements
        assert v.flip(1)[0, :3].tolist() == [198.0, 196.0, 194.0]
        assert lib.tensor(5.0).flip(0).item() == 5.0
    for bad in (2, -3):
        with pytest.raises(IndexError) as te:
            torch.zeros(2, 2).flip(bad)
        with pytest.raises(IndexError) as ee:
            ember.zeros(2, 2).flip(bad)
        assert str(ee.value) == str(te.value)


def test_flip_dims_arguments_match_torch():
    """What counts as dims (ints, NumPy ints, 0-d int tensors; bools only after the first element of
    a list) and torch's TypeError for the rest; many dims through the method's fast path."""
    calls = [((True,), {}), (([True],), {}), ((1.0,), {}), (([1.0],), {}), ((), {"dims": True}),
             ((), {"dims": [1, True]}), ((np.int64(1),), {}), (((0, 1),), {}), ((0, 1), {}),
             (([1, 2.0],), {}), ((1, 2.0), {}), ((1, True), {}), ((), {"dims": [0, 2.0]}), ((), {}),
             (([],), {}), ((5,), {}), ((-4,), {}), (("a",), {})]
    for args, kwargs in calls:
        got = {}
        for lib in (ember, torch):
            x = lib.arange(24.0).reshape(2, 3, 4)
            try:
                got[lib] = x.flip(*args, **kwargs).tolist()
            except (TypeError, IndexError, RuntimeError) as e:  # torch names the argument's position
                got[lib] = (type(e), str(e).replace("(position 1) ", ""))
        assert got[ember] == got[torch], (args, kwargs)
    for lib in (ember, torch):
        assert lib.arange(3).flip(lib.tensor(0)).tolist() == [2, 1, 0]
    deep = np.arange(2 ** 17, dtype=np.float32).reshape((2,) * 17)
    assert ember.from_numpy(deep).flip(-1).numpy().tolist() == torch.from_numpy(deep).flip(-1).tolist()


def test_flip_method_defers_to_torch_function_modes_and_overrides():
    from ember.overrides import TorchFunctionMode

    seen = []

    class Watch(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    x = ember.arange(300.0)
    with Watch():
        assert x.flip(0)[0].item() == 299.0
    assert seen == ["flip", "__getitem__", "item"]  # as torch: every method and operator

    class Sub(ember.Tensor):
        pass
    assert type(x.as_subclass(Sub).flip(-1)) is Sub
