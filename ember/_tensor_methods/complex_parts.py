"""``Tensor.real`` / ``Tensor.imag`` (layer L2): views of a complex tensor's parts, and their setters.

As in torch, a part is ``view_as_real(x).select(-1, k)`` (k = 0 real, 1 imaginary): a float view that
shares ``x``'s storage, ``_base`` and version counter, with stride ``2 * x.stride()`` and offset
``2 * x.storage_offset() + k`` in float elements; its history is ``SelectBackward0`` over
``ViewAsRealBackward0``, so in-place writes through it reach ``x`` (and its autograd history) like
any view's. complex32 parts are float16 views of the (real, imag) pairs. A real tensor's ``real`` is
the tensor itself; its ``imag`` raises. ``x.real = v`` writes ``v`` into the view (``copy_`` for a
tensor, ``fill_`` for a Python number).

Example:
    >>> import ember
    >>> x = ember.tensor([1 + 2j, 3 + 4j])
    >>> x.imag.stride(), x.imag.storage_offset(), x.imag._base is x
    ((2,), 1, True)
    >>> x.real.zero_()
    tensor([0., 0.])
    >>> x.imag = 7
    >>> x
    tensor([0.+7.j, 0.+7.j])
"""
from __future__ import annotations

import operator

from .._dispatch import MODES, _any_mode, dispatch
from .._dtype import CHALF_NP
from .._dtype_scalar import setitem_scalar
from .._errors import type_name
from .._tensor_base import _TENSOR_CLASS, new_tensor
from ..autograd._recording import recorder_for
from ..autograd.grad_mode import LEAN, STATE
from .._primitives import pointwise_math as PM
from .._primitives import view as V
from .._primitives.pointwise_math import pairs_of
from ..overrides import PLAIN_TYPES, try_torch_function
from ._args import TensorBase

__all__ = ["ComplexPartsMixin", "real", "imag"]

_VIEW_AS_REAL_RECORDER, _SELECT_RECORDER = recorder_for(PM.view_as_real), recorder_for(V.select)

_NOT_COMPLEX = "imag is not implemented for tensors with non-complex dtypes."


def _part(x, k):
    """``view_as_real(x).select(-1, k)`` without the public checks (x is complex). On cpu outside
    dispatch modes the views are made here from NumPy's (same base and version counter), and with
    autograd on, the two nodes are recorded as dispatch's fast path would record them."""
    d = x._data
    if d is None or (_any_mode[0] and MODES.stack):
        return dispatch(V.select, dispatch(PM.view_as_real, x), dim=x.dim(), index=k)
    b = x._base
    b = x if b is None else b
    vc = x._vc or x._version_cell()
    dt = x._dtype.to_real()
    if x._requires_grad and STATE.enabled:
        if not LEAN[0]:  # anomaly mode or saved-tensor hooks: the general recording
            return dispatch(V.select, dispatch(PM.view_as_real, x), dim=d.ndim, index=k)
        pairs = pairs_of(d)
        v = new_tensor(_TENSOR_CLASS[0], pairs, dt, None, b, None, vc)
        _VIEW_AS_REAL_RECORDER(x, None, v)
        out = new_tensor(_TENSOR_CLASS[0], pairs[..., k], dt, None, b, None, vc)
        _SELECT_RECORDER(v, {"dim": d.ndim, "index": k}, out)
        return out
    if d.dtype == CHALF_NP:
        part = d["real" if k == 0 else "imag"]
    else:
        part = d.real if k == 0 else d.imag
    return new_tensor(_TENSOR_CLASS[0], part, dt, None, b, None, vc)


def real(input):
    """``input.real``: a view of a complex tensor's real parts (same shape), else ``input`` itself.

    Example:
        >>> import ember
        >>> ember.real(ember.tensor([1 + 2j]))
        tensor([1.])
    """
    if not isinstance(input, TensorBase):
        raise TypeError(f"real(): argument 'input' (position 1) must be Tensor, not {type_name(input)}")
    return input.real


def imag(input):
    """``input.imag``: a view of a complex tensor's imaginary parts (same shape).

    Example:
        >>> import ember
        >>> ember.imag(ember.tensor([1 + 2j]))
        tensor([2.])
    """
    if not isinstance(input, TensorBase):
        raise TypeError(f"imag(): argument 'input' (position 1) must be Tensor, not {type_name(input)}")
    return input.imag


def _type_name(t):
    return ("torch.meta." if t.is_meta else "torch.") + t._type_string()[len("torch."):]


def _scalar_for(part, value):
    """``value`` as the Python scalar torch's setter accepts for ``part``, or torch's error: the
    setter converts as ``t[...] = value`` does (long long ints, float16 parts checked as double)."""
    if not isinstance(value, (bool, float, complex)):
        try:
            value = operator.index(value)  # Python ints and integer scalars (np.int32), not np.float32
        except TypeError:
            raise TypeError(f"can't assign a {type_name(value)} to a {_type_name(part)}") from None
    return setitem_scalar(value, part.dtype)


def _assign(part, value):
    if isinstance(value, TensorBase):
        part.copy_(value)
    else:
        part.fill_(_scalar_for(part, value))


class ComplexPartsMixin:
    """``real`` and ``imag`` of a Tensor: views for complex dtypes (see the module docstring)."""

    __slots__ = ()

    @property
    def real(self):
        """The real part: a float view of a complex tensor (shape unchanged), else ``self``."""
        if not self._dtype.is_complex:
            return self  # (a subclass's __torch_function__ is not consulted here: the result is self)
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(_GETTERS[0], (self,), self)
            if r is not NotImplemented:
                return r
        return _part(self, 0)

    @real.setter
    def real(self, value):
        _assign(_part(self, 0) if self._dtype.is_complex else self, value)

    @property
    def imag(self):
        """The imaginary part of a complex tensor: a float view (shape unchanged)."""
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(_GETTERS[1], (self,), self)
            if r is not NotImplemented:
                return r
        if not self._dtype.is_complex:
            raise RuntimeError(_NOT_COMPLEX)
        return _part(self, 1)

    @imag.setter
    def imag(self, value):
        if not self._dtype.is_complex:
            raise RuntimeError(_NOT_COMPLEX)
        _assign(_part(self, 1), value)


# what a subclass's __torch_function__ receives as ``func`` for a part's read, as in torch (the
# property's ``__get__``); only reads are offered to it (torch's setters do not call it either)
_GETTERS = (ComplexPartsMixin.real.__get__, ComplexPartsMixin.imag.__get__)
