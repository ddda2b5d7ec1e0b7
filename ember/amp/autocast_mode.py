"""Autocast: inside ``with ember.autocast('cpu')`` matmul-like ops run in bfloat16 (or float16) and
precision-sensitive ops (losses, linear algebra, FFTs, ``prod``) in float32, with torch's CPU op lists.

It works at the primitive level: while any autocast region is active a dispatch mode sits on the
mode stack and casts the floating inputs (not float64) of listed primitives before they run. Losses
written as composites over listed primitives (cross_entropy -> nll_loss) follow their primitive.

Example:
    >>> import ember
    >>> a = ember.ones(2, 3)
    >>> with ember.autocast("cpu", dtype=ember.bfloat16):
    ...     (a @ a.T).dtype, (a + a).dtype
    (torch.bfloat16, torch.float32)
"""
from __future__ import annotations

import functools
import threading
import warnings

from .. import _dtype as D
from .._dispatch import TorchDispatchMode, current_modes
from .._tensor_base import TensorBase
from ..overrides import TorchFunctionMode

__all__ = ["autocast", "is_autocast_available", "custom_fwd", "custom_bwd", "is_autocast_enabled",
           "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
           "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
           "is_autocast_cpu_enabled", "get_autocast_cpu_dtype", "get_autocast_gpu_dtype"]

# torch's CPU lists (aten/src/ATen/autocast_mode.cpp), by ember primitive name
LOWER_PRECISION = frozenset({"mm", "bmm", "addmm", "baddbmm", "matmul", "convolution", "einsum",
                             "addbmm", "linalg_vecdot", "conv_tbc", "prelu"})
FP32 = frozenset({"prod", "nll_loss", "binary_cross_entropy", "mse_loss", "l1_loss",
                  "smooth_l1_loss", "huber_loss", "kl_div", "cdist", "trace", "polar", "quantile",
                  "nanquantile", "stft", "view_as_complex", "grid_sampler", "fft_c2c", "fft_r2c",
                  "fft_c2r", "linalg_inv_ex", "linalg_det", "linalg_slogdet", "linalg_solve",
                  "linalg_cholesky_ex", "linalg_solve_triangular", "linalg_qr", "linalg_svd",
                  "linalg_svdvals", "linalg_eigh", "linalg_eigvalsh", "linalg_eig", "linalg_eigvals",
                  "linalg_pinv", "linalg_matrix_exp", "linalg_lu", "linalg_vector_norm_fp32",
                  "linalg_solve_ex", "linalg_ldl_factor_ex", "linalg_ldl_solve"})
PROMOTE = frozenset({"cat", "stack", "index_copy"})
_SUPPORTED = {"cpu": (D.bfloat16, D.float16)}
_KNOWN = ("cpu", "cuda", "xpu", "mps", "mtia", "maia", "hpu", "xla", "ipu")


class _State(threading.local):
    def __init__(self):
        self.enabled = {}
        self.dtype = {"cpu": D.bfloat16, "cuda": D.float16}
        self.cache_enabled = True
        self.nesting = 0
        self.cache = {}


STATE = _State()


def is_autocast_available(device_type: str) -> bool:
    """True for 'cpu' (and 'cuda', whose autocast disables itself as torch's CPU build does)."""
    return device_type in ("cpu", "cuda")


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for ``device_type`` (torch's default with no argument is 'cuda')."""
    return STATE.enabled.get(device_type or "cuda", False)


def set_autocast_enabled(device_type, enabled=None) -> None:
    if enabled is None:  # the old one-argument form set the CUDA flag
        device_type, enabled = "cuda", device_type
    STATE.enabled[device_type] = bool(enabled)
    _sync_mode()


def get_autocast_dtype(device_type: str):
    return STATE.dtype.get(device_type, D.float16)


def set_autocast_dtype(device_type: str, dtype) -> None:
    STATE.dtype[device_type] = dtype


def is_autocast_cpu_enabled() -> bool:
    return is_autocast_enabled("cpu")


def get_autocast_cpu_dtype():
    return get_autocast_dtype("cpu")


def get_autocast_gpu_dtype():
    return get_autocast_dtype("cuda")


def is_autocast_cache_enabled() -> bool:
    return STATE.cache_enabled


def set_autocast_cache_enabled(enabled: bool) -> None:
    STATE.cache_enabled = bool(enabled)


def clear_autocast_cache() -> None:
    STATE.cache.clear()


class _AutocastMode(TorchDispatchMode):
    """Casts the inputs of listed primitives while CPU autocast is enabled."""

    # ember.matmul dispatches its general primitive while this mode is on, so torch's ``matmul`` is
    # cast as a whole (matrix @ vector, vector @ vector, mixed dtypes) while ``mv``/``dot`` are not
    casts_whole_matmul = True

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if not STATE.enabled.get("cpu"):
            return func(*args, **kwargs)
        name = func.name
        if name in LOWER_PRECISION:
            dt = STATE.dtype["cpu"]
        elif name in FP32:
            dt = D.float32
        elif name in PROMOTE:
            dt = _widest(args)
        else:
            return func(*args, **kwargs)
        if dt is not None:
            args = tuple(_cast(a, dt) for a in args)
        return func(*args, **kwargs)


_MODE = _AutocastMode()

# torch's float32 list names these losses/distances, which ember writes as composites: they are
# caught at the public level (their inputs go to float32) rather than primitive by primitive
FP32_FUNCTIONS = frozenset({
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
    "gaussian_nll_loss", "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
    "soft_margin_loss", "multilabel_soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
    "multilabel_margin_loss", "ctc_loss", "cdist"})


class _AutocastFunctionMode(TorchFunctionMode):
    """Runs the composite functions of torch's float32 list on float32 inputs."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if STATE.enabled.get("cpu") and func.__name__ in FP32_FUNCTIONS:
            args = tuple(_cast(a, D.float32) for a in args)
            kwargs = {k: _cast(v, D.float32) for k, v in kwargs.items()}
        return func(*args, **kwargs)


_FUNCTION_MODE = _AutocastFunctionMode()


def _sync_mode():
    """Keep the dispatch and function modes on their stacks exactly while CPU autocast is enabled."""
    on = STATE.enabled.get("cpu", False)
    present = any(m is _MODE for m in current_modes())
    if on and not present:
        _MODE.__enter__()
        _FUNCTION_MODE.__enter__()
    elif not on and present:
        _MODE.__exit__(None, None, None)
        _FUNCTION_MODE.__exit__(None, None, None)


def _eligible(t) -> bool:
    return isinstance(t, TensorBase) and t._dtype.is_floating_point and t._dtype is not D.float64


def _cast(a, dt):
    if type(a) in (list, tuple):
        return type(a)(_cast(x, dt) for x in a)
    if not _eligible(a) or a._dtype is dt:
        return a
    # torch caches casts of leaf weights within the outermost region (one cast per weight per step)
    if STATE.cache_enabled and a._requires_grad and a._grad_fn is None:
        hit = STATE.cache.get(id(a))
        if hit is not None and hit[0] is a and hit[1]._dtype is dt:
            return hit[1]
        out = a.to(dt)
        STATE.cache[id(a)] = (a, out)
        return out
    return a.to(dt)


def _widest(args):
    dts = [x._dtype for a in args for x in (a if type(a) in (list, tuple) else (a,))
           if isinstance(x, TensorBase) and x._dtype.is_floating_point]
    if len(set(dts)) <= 1:
        return None
    out = dts[0]
    for d in dts[1:]:
        out = D.promote_types(out, d)
    return out


class autocast:
    """Context manager / decorator enabling mixed precision for ``device_type`` (torch's signature).

    Args:
        device_type: 'cpu' (or 'cuda', which warns and disables itself: no CUDA in ember).
        dtype: bfloat16 (default on cpu) or float16.
        enabled: False makes the region a no-op (and disables an enclosing region).
        cache_enabled: cache casts of leaf weights inside the region.
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled:
            if device_type == "cuda":
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                              stacklevel=2)
                enabled = False
            elif self.fast_dtype not in _SUPPORTED[device_type]:
                name = device_type.upper()
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling "
                              f"autocast.\n{name} Autocast only supports dtypes of torch.bfloat16, "
                              f"torch.float16 currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        STATE.enabled[self.device] = self._enabled
        STATE.dtype[self.device] = self.fast_dtype
        STATE.nesting += 1
        STATE.cache_enabled = self._cache_enabled
        _sync_mode()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        STATE.nesting -= 1
        if STATE.nesting == 0:
            STATE.cache.clear()
        STATE.enabled[self.device] = self.prev
        STATE.dtype[self.device] = self.prev_fastdtype
        STATE.cache_enabled = self.prev_cache_enabled
        _sync_mode()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return decorate_autocast


def _cast_value(value, dt):
    if _eligible(value):
        return value.to(dt)
    if isinstance(value, dict):
        return {k: _cast_value(v, dt) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_value(v, dt) for v in value)
    return value


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorator for a custom Function's ``forward``: optionally cast inputs and run outside autocast."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast_value(args, cast_inputs), **_cast_value(kwargs, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorator for a custom Function's ``backward``: run with the autocast state of forward."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd
