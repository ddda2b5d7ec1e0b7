"""One update, two executions: on Tensors, or straight on the NumPy arrays behind them.

An algorithm writes its per-parameter update once, against an ops namespace ``K`` (``K.lerp_(a, b, w)``,
``K.addcdiv_(p, a, d, v)``...). ``run_update`` picks the namespace: ``ArrayOps`` (the default CPU path)
when parameter, gradient and state are plain float32/float64 cpu tensors and nothing observes the ops
(no dispatch mode, no write hook, ``differentiable=False``); ``TensorOps`` (dispatch, autograd) otherwise;
``CaptureOps`` while ember.compile captures the step.
``ArrayOps`` calls the primitives' own kernels and in-place writers (``P.lerp.ufunc``...), the very
functions dispatch runs for those Tensor calls, so both executions give the same bits; it only skips
dispatch's per-op work. Parameters stay ordinary leaves; a gradient that views someone else's buffer
(DDP buckets) is read in place. Each tensor the update writes gets one version bump per step.

Example:
    >>> import ember
    >>> p, g = ember.ones(2), ember.full((2,), 0.5)
    >>> def sgd(K, p, g, state, group):
    ...     K.add_(p, g, -group["lr"])
    >>> run_update(sgd, p, g, {}, {"lr": 0.1, "differentiable": False}); p
    tensor([0.9500, 0.9500])
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._compiling import COMPILING
from .._dispatch import MODES
from .._dispatch_inplace import WRITE_HOOKS
from .._primitives import pointwise as P
from .._tensor_base import TensorBase
from .._tensor_methods.pointwise_math import view_as_real
from ..overrides import PLAIN_TYPES

__all__ = ["ArrayOps", "CaptureOps", "TensorOps", "run_update", "run_flat_update", "flat_update_allowed"]


class TensorOps:
    """The update as Tensor ops: every call dispatches (modes see it, autograd records it)."""

    complex_views = True  # complex parameters reach this path: ``real`` views them as (re, im) pairs

    @staticmethod
    def real(t):
        return view_as_real(t) if t.is_complex() else t

    @staticmethod
    def count_step(step_t) -> float:
        step = step_t.item() + 1
        step_t.fill_(step)  # the counter is a 0-d float tensor as in torch
        return step

    @staticmethod
    def neg(a):
        return -a

    @staticmethod
    def add(a, b, alpha):
        return a.add(b, alpha=alpha)

    @staticmethod
    def add_(a, b, alpha=1):
        a.add_(b, alpha=alpha)

    @staticmethod
    def add_scalar_(a, s):
        a.add_(s)

    @staticmethod
    def mul_(a, s):
        a.mul_(s)

    @staticmethod
    def div_scalar(a, s):
        return a / s

    @staticmethod
    def lerp_(a, b, w):
        a.lerp_(b, w)

    @staticmethod
    def addcmul(a, b, c, value):
        return a.addcmul(b, c, value=value)

    @staticmethod
    def addcmul_(a, b, c, value):
        a.addcmul_(b, c, value=value)

    @staticmethod
    def addcdiv_(a, b, c, value=1):
        a.addcdiv_(b, c, value=value)

    @staticmethod
    def maximum_(a, b):
        a.copy_(a.maximum(b))

    @staticmethod
    def sqrt(a):
        return a.sqrt()

    @staticmethod
    def sqrt_(a):
        a.sqrt_()


class CaptureOps(TensorOps):
    """The Tensor path while ember.compile captures the step: the step counter stays a 0-d tensor
    (no ``.item()``, so one graph serves every step) and lr/step sizes may be 0-d tensors."""

    @staticmethod
    def count_step(step_t):
        step_t.add_(1)
        return step_t.to(dtype=D.float64)  # bias corrections in double, as the eager float math

    @staticmethod
    def add_(a, b, alpha=1):
        if isinstance(alpha, TensorBase):
            a.add_(b * alpha)
        else:
            a.add_(b, alpha=alpha)

    @staticmethod
    def addcdiv_(a, b, c, value=1):
        if isinstance(value, TensorBase):
            a.add_(b / c * value)
        else:
            a.addcdiv_(b, c, value=value)


class ArrayOps:
    """The same ops on NumPy arrays, through the primitives' kernels (out of place) and in-place
    writers (``out=`` the target): what dispatch would run, without its per-op bookkeeping."""

    complex_views = False  # only real float arrays take this path

    @staticmethod
    def real(a):
        return a

    @staticmethod
    def count_step(step_a) -> float:
        step = step_a.item() + 1
        step_a.fill(step)
        return step

    @staticmethod
    def neg(a):
        return P.neg.kernel(a)

    @staticmethod
    def add(a, b, alpha):
        return P.add.kernel(a, b, alpha=alpha)

    @staticmethod
    def add_(a, b, alpha=1):
        P.add.ufunc(a, b, out=a, alpha=alpha)

    @staticmethod
    def add_scalar_(a, s):
        P.add.ufunc(a, s, out=a)

    @staticmethod
    def mul_(a, s):
        P.mul.ufunc(a, s, out=a)

    @staticmethod
    def div_scalar(a, s):
        return P.div.kernel(a, s)

    @staticmethod
    def lerp_(a, b, w):
        P.lerp.ufunc(a, b, w, out=a)

    @staticmethod
    def addcmul(a, b, c, value):
        return P.addcmul.kernel(a, b, c, value=value)

    @staticmethod
    def addcmul_(a, b, c, value):
        P.addcmul.ufunc(a, b, c, out=a, value=value)

    @staticmethod
    def addcdiv_(a, b, c, value=1):
        P.addcdiv.ufunc(a, b, c, out=a, value=value)

    @staticmethod
    def maximum_(a, b):
        P.maximum.ufunc(a, b, out=a)

    @staticmethod
    def sqrt(a):
        return P.sqrt.kernel(a)

    @staticmethod
    def sqrt_(a):
        P.sqrt.ufunc(a, out=a)


_FAST = (np.dtype(np.float32), np.dtype(np.float64))
_ndarray = np.ndarray


def _arrays(p, grad, state, group):
    """(param array, grad array, {name: state array}) when the array path computes what the Tensor path
    would, else None."""
    if group.get("differentiable") or MODES.stack or WRITE_HOOKS or isinstance(group["lr"], TensorBase):
        return None
    if type(p) not in PLAIN_TYPES or type(grad) not in PLAIN_TYPES:
        return None
    d, g = p._data, grad._data
    if type(d) is not _ndarray or type(g) is not _ndarray or not d.ndim:
        return None  # meta tensors; 0-d parameters (NumPy would hand back scalars)
    dt = d.dtype
    if dt not in _FAST or g.dtype != dt or g.shape != d.shape or not d.flags.writeable:
        return None
    arrays = {}
    if state:
        shape = d.shape
        for name, v in state.items():
            if type(v) not in PLAIN_TYPES:
                return None
            a = v._data
            if type(a) is not _ndarray or not a.flags.writeable:
                return None
            if a.ndim == 0:  # a step counter: any float dtype
                if a.dtype.kind != "f":
                    return None
            elif a.dtype != dt or a.shape != shape:
                return None
            arrays[name] = a
    return d, g, arrays


def run_update(update, p, grad, state, group) -> None:
    """``update(K, p, grad, state, group)`` on arrays when possible (see the module doc), else on
    Tensors; after the array path, ``p`` and every state tensor get one version bump."""
    if COMPILING[0]:
        update(CaptureOps, p, grad, state, group)
        return
    found = _arrays(p, grad, state, group)
    if found is None:
        update(TensorOps, p, grad, state, group)
        return
    d, g, arrays = found
    update(ArrayOps, d, g, arrays, group)
    p._version_cell().value += 1
    if state:
        for v in state.values():
            v._version_cell().value += 1


class FlatArrayOps(ArrayOps):
    """``ArrayOps`` over a bucket's flat buffers: the step counters are one array (all equal)."""

    @staticmethod
    def count_step(steps_a) -> float:
        step = steps_a[0].item() + 1  # what ArrayOps.count_step computes for each counter
        steps_a.fill(step)
        return step


def flat_update_allowed(group: dict) -> bool:
    """Whether ``run_flat_update`` may run for ``group`` (checked before a bucket is built: building
    one rewrites the state tensors as views of flat buffers)."""
    return not (COMPILING[0] or group.get("differentiable") or MODES.stack or WRITE_HOOKS
                or isinstance(group["lr"], TensorBase))


def run_flat_update(update, params: list, grads: list, bucket, group: dict) -> bool:
    """``update(K, p, grad, state, group)`` once over a flat bucket (``optim/_flat.py``) on arrays: the
    gradients and parameters are copied into the bucket's flat scratch buffers, the state is already
    flat, and the new parameter values are copied back. Elementwise it is the single-tensor update,
    so the bits equal ``run_update``'s; it costs one NumPy call per op instead of one per op and
    parameter. False (nothing done) when the array path does not apply or the step counts differ."""
    if not flat_update_allowed(group):
        return False
    flat_g, flat_p = bucket.grad._data, bucket.scratch._data
    dt = flat_g.dtype
    if dt not in _FAST:
        return False
    pa, ga = [], []
    for p, g in zip(params, grads):
        if type(p) not in PLAIN_TYPES or type(g) not in PLAIN_TYPES:
            return False
        d, gd = p._data, g._data
        if type(d) is not _ndarray or type(gd) is not _ndarray or d.dtype != dt or gd.dtype != dt \
                or gd.shape != d.shape or not d.flags.writeable:
            return False
        pa.append(d.reshape(-1))  # a copy only for a non-contiguous parameter (then written below)
        ga.append(gd.reshape(-1))
    arrays = {name: bucket.flat[name]._data for name in bucket.names}
    steps = bucket.flat.get("step")
    if steps is not None:
        sa = steps._data
        if sa.dtype.kind != "f" or not (sa == sa[0]).all():
            return False
        arrays["step"] = sa
    np.concatenate(ga, out=flat_g)
    np.concatenate(pa, out=flat_p)
    update(FlatArrayOps, flat_p, flat_g, arrays, group)
    for p, view in zip(params, bucket.scratch_views):
        d = p._data
        np.copyto(d, view._data)
        p._version_cell().value += 1
    for name in arrays:  # state views share their buffer's counter: one bump each, as run_update
        bucket.flat[name]._version_cell().value += 1
    return True
