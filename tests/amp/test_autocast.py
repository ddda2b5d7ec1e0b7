"""Autocast on CPU against torch: result dtypes per op, numerics within bf16 tolerance, nesting."""
import warnings

import numpy as np
import pytest
import torch

import ember


def _pair(*shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return ember.tensor(a), torch.tensor(a)


CASES = {
    "mm": lambda m, a, b, t: m.mm(a, b),
    "matmul": lambda m, a, b, t: a @ b,
    "bmm": lambda m, a, b, t: m.bmm(a[None], b[None]),
    "addmm": lambda m, a, b, t: m.addmm(a, a, b),
    "baddbmm": lambda m, a, b, t: m.baddbmm(a[None], a[None], b[None]),
    "linear": lambda m, a, b, t: m.nn.functional.linear(a, b),
    "linear_bias_3d": lambda m, a, b, t: m.nn.functional.linear(a[None], b, b[0]),
    "einsum": lambda m, a, b, t: m.einsum("ij,jk->ik", a, b),
    "conv1d": lambda m, a, b, t: m.nn.functional.conv1d(a[None], b[:, :, None]),
    "add": lambda m, a, b, t: a + b,
    "relu": lambda m, a, b, t: m.nn.functional.relu(a),
    "sum": lambda m, a, b, t: a.sum(),
    "mm_plus_f32": lambda m, a, b, t: a @ b + a,
    "prod": lambda m, a, b, t: a.prod(),
    "cross_entropy_of_mm": lambda m, a, b, t: m.nn.functional.cross_entropy(a @ b, t),
    "nll_loss_low": lambda m, a, b, t: m.nn.functional.nll_loss(a @ b, t),
    "mse_of_mm": lambda m, a, b, t: m.nn.functional.mse_loss(a @ b, b),
    "cat_mixed": lambda m, a, b, t: m.cat([a @ b, b]),
    "mm_float64": lambda m, a, b, t: a.double() @ b.double(),
    "inv": lambda m, a, b, t: m.linalg.inv(a.bfloat16() + 4 * m.eye(4, dtype=m.bfloat16)),
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_output_dtypes_and_values_match_torch(dtype):
    ea, ta = _pair(4, 4, seed=1)
    eb, tb = _pair(4, 4, seed=2)
    et, tt = ember.tensor([0, 1, 2, 3]), torch.tensor([0, 1, 2, 3])
    for name, fn in CASES.items():
        with ember.autocast("cpu", dtype=getattr(ember, dtype)):
            got = fn(ember, ea, eb, et)
        with torch.autocast("cpu", dtype=getattr(torch, dtype)):
            want = fn(torch, ta, tb, tt)
        assert str(got.dtype) == str(want.dtype), name
        np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=3e-2, atol=3e-2,
                                   err_msg=name)


def test_nesting_decorator_and_state():
    a = ember.ones(2, 2)
    assert not ember.is_autocast_enabled("cpu")
    with ember.autocast("cpu"):
        assert ember.is_autocast_enabled("cpu") and ember.get_autocast_dtype("cpu") is ember.bfloat16
        with ember.autocast("cpu", enabled=False):
            assert (a @ a).dtype is ember.float32
        with ember.amp.autocast("cpu", dtype=ember.float16):
            assert (a @ a).dtype is ember.float16
        assert (a @ a).dtype is ember.bfloat16
    assert (a @ a).dtype is ember.float32 and not ember.is_autocast_enabled("cpu")

    @ember.autocast("cpu")
    def f(x):
        return x @ x
    assert f(a).dtype is ember.bfloat16
    assert (a @ a).dtype is ember.float32


def test_backward_through_autocast_gives_float32_grads():
    e = ember.nn.Linear(4, 3)
    t = torch.nn.Linear(4, 3)
    with torch.no_grad():
        t.weight.copy_(torch.tensor(e.weight.detach().numpy()))
        t.bias.copy_(torch.tensor(e.bias.detach().numpy()))
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    with ember.autocast("cpu"):
        le = e(ember.tensor(x)).float().pow(2).sum()
    with torch.autocast("cpu"):
        lt = t(torch.tensor(x)).float().pow(2).sum()
    le.backward()
    lt.backward()
    assert e.weight.grad.dtype is ember.float32
    np.testing.assert_allclose(e.weight.grad.numpy(), t.weight.grad.numpy(), rtol=5e-2, atol=5e-2)


def test_unsupported_dtype_and_cuda_warn_and_disable():
    a = ember.ones(2, 2)
    with pytest.warns(UserWarning, match="CPU Autocast only supports dtypes of torch.bfloat16"):
        ctx = ember.autocast("cpu", dtype=ember.float64)
    with ctx:
        assert (a @ a).dtype is ember.float32
    with pytest.warns(UserWarning, match="CUDA is not available"):
        with ember.autocast("cuda"):
            assert (a @ a).dtype is ember.float32
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with ember.cuda.amp.autocast():
            assert (a @ a).dtype is ember.float32
        with ember.cpu.amp.autocast():
            assert (a @ a).dtype is ember.bfloat16
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'xla'"):
        ember.autocast("xla")


def test_composite_losses_run_in_float32_as_torch():
    import ember
    import torch
    for name in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss"):
        got = {}
        for lib in (ember, torch):
            a = lib.linspace(-1, 1, 12).reshape(4, 3).to(lib.bfloat16)
            b = lib.linspace(1, -1, 12).reshape(4, 3).to(lib.bfloat16)
            with lib.autocast("cpu", dtype=lib.bfloat16):
                got[lib.__name__] = getattr(lib.nn.functional, name)(a, b).dtype
        assert repr(got["ember"]) == repr(got["torch"]) == "torch.float32", (name, got)


def test_function_mode_sees_public_calls():
    import ember
    from ember.overrides import TorchFunctionMode
    seen = []

    class Log(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    with Log():
        ember.nn.functional.relu(ember.ones(2))
    assert "relu" in seen
