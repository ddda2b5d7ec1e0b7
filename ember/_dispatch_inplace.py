"""In-place and ``out=`` variants of dispatch (layer L2): write a result into an existing tensor.

``dispatch_inplace(op, self, *args)`` runs ``op`` through the one path, checks that the result fits
``self`` (torch's shape and dtype-cast rules), writes it into self's memory, bumps the version counter
and, when autograd records the op, makes ``self`` the op's output; for a view it rewrites the base's
history with a ``CopySlices`` node (``autograd/_recording.py``). Outside autograd, pointwise ops whose dtypes already agree write
straight into self with their ufunc (no temporary). ``dispatch_out`` is the ``out=`` form.
"""
from __future__ import annotations

import numpy as np

from . import _dtype as D
from . import _dtype_complex32 as C32
from ._dispatch import MODES, dispatch, flat_tensors
from ._errors import dtype_title
from ._primitives._registry import OpDef
from ._tensor_base import TensorBase, shape_of as _shape
from .autograd._recording import check_multi_view_write, record_inplace, saved_input_read
from .autograd.grad_mode import STATE

__all__ = ["dispatch_inplace", "dispatch_out", "WRITE_HOOKS"]

# ``hook(target, result)`` after every in-place or out= write; make_fx's functionalisation observes
# writes here (dispatch modes see only the out-of-place op). Empty outside tracing: one check.
WRITE_HOOKS: list = []

def _check_inplace_leaf(t, op_name):
    if t._requires_grad and STATE.enabled:
        if t._grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        b = t._base
        if b is not None and b._grad_fn is None and b._requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                               "in-place operation.")


_FAST_INPLACE = (np.dtype(np.float32), np.dtype(np.float64))
_SCALAR_TYPES = (int, float)


def _inplace_ufunc(op, self, args, params) -> bool:
    """Write ``op(self, *args)`` straight into self's memory with the op's ufunc when dtypes already
    agree (float32/float64 with a same-dtype tensor or a real Python scalar): no temporary, no copy."""
    d = self._data
    if d is None or d.dtype not in _FAST_INPLACE or not d.flags.writeable:
        return False
    operands = [d]
    for a in args:
        if type(a) in _SCALAR_TYPES:
            operands.append(a)
        elif isinstance(a, TensorBase) and a._data is not None and a._data.dtype == d.dtype:
            operands.append(a._data)
        else:
            return False
    try:
        op.ufunc(*operands, out=d, **params)
    except ValueError:  # SlowPath from the writer, or broadcasting would change self's shape
        return False
    return True


def dispatch_inplace(op: OpDef, self, *args, **params):
    """``self.op_(*args)``: compute, check shape and dtype, write into self, bump its version."""
    grad = STATE.enabled and op.backward is not None and (
        self._requires_grad or any(a._requires_grad for a in flat_tensors(args)))
    if grad and self._ameta is not None:
        check_multi_view_write(self)
    _check_inplace_leaf(self, op.name)
    if not grad and op.ufunc is not None and (not params or op.ufunc_params) and not MODES.stack \
            and _inplace_ufunc(op, self, args, params):
        self._version_cell().value += 1
        return self
    if grad:
        # self's old value, when a needed gradient reads it (else record keeps self's array unchecked)
        saved_self = self.clone() if 0 in op.save_inputs and saved_input_read(op, 0, (self,) + args) else None
        prev = STATE.enabled
        STATE.enabled = False
        try:
            res = dispatch(op, self, *args, **params)
        finally:
            STATE.enabled = prev
    else:
        res = dispatch(op, self, *args, **params)
    _write_result(op.name, self, res)
    if grad:
        record_inplace(op, self, args, params, res, saved_self)
    return self


def _values_for(target, res):
    """``res``'s array, converted when complex32 pairs meet another dtype (NumPy cannot cast them)."""
    src = res._data
    if src.dtype != target._data.dtype and D.complex32 in (res._dtype, target._dtype):
        return C32.cast(src, target._data.dtype)
    return src


def _write_result(name, self, res):
    if _shape(res) != _shape(self):
        raise RuntimeError(f"output with shape {list(_shape(self))} doesn't match the broadcast shape "
                           f"{list(_shape(res))}")
    if res._dtype is not self._dtype and not D.can_cast(res._dtype, self._dtype):
        raise RuntimeError(f"result type {dtype_title(res._dtype)} can't be cast to the desired "
                           f"output type {dtype_title(self._dtype)}")
    if self._data is not None and self._data.size:  # nothing to write into an empty tensor
        if not self._data.flags.writeable:  # an expanded (broadcast) view: elements overlap
            raise RuntimeError(f"{name}(): unsupported operation: more than one element of the "
                               "written-to tensor refers to a single memory location. Please clone() "
                               "the tensor before performing the operation.")
        np.copyto(self._data, _values_for(self, res), casting="unsafe")
    self._version_cell().value += 1
    if WRITE_HOOKS:
        for hook in WRITE_HOOKS:
            hook(self, res)


def dispatch_out(op: OpDef, out, *args, **params):
    """``op(*args, out=out)``: no autograd; resize an empty ``out``; cast to its dtype."""
    if STATE.enabled and any(a._requires_grad for a in flat_tensors(args)):
        raise RuntimeError(f"{op.name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    if out._requires_grad and STATE.enabled:
        raise RuntimeError(f"{op.name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    res = dispatch(op, *args, **params)
    if isinstance(res, tuple):
        raise RuntimeError(f"{op.name}(): out= for multi-output ops takes a tuple")
    if _shape(res) != _shape(out):
        if out.numel() != 0:
            import warnings
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(_shape(out))}, which does not match the required output shape "
                          f"{list(_shape(res))}. This behavior is deprecated.", UserWarning, stacklevel=3)
        out._resize_for_out(_shape(res))
    if res._dtype is not out._dtype and not D.can_cast(res._dtype, out._dtype):
        raise RuntimeError(f"result type {dtype_title(res._dtype)} can't be cast to the desired "
                           f"output type {dtype_title(out._dtype)}")
    if out._data is not None:
        np.copyto(out._data, _values_for(out, res), casting="unsafe")
    out._version_cell().value += 1
    if WRITE_HOOKS:
        for hook in WRITE_HOOKS:
            hook(out, res)
    return out
