"""Matrix-multiply primitives (layer L1): BLAS through NumPy.

``matmul`` covers torch's broadcasting rules (1-D operands gain and lose a dim); ``mm``/``bmm``
check their stricter shapes.
"""
from __future__ import annotations

import numpy as np

from .._errors import fmt_shape
from .._shape import broadcast_shapes
from ._registry import TensorMeta, primitive
from .. import _dtype as D


def _check_dtypes(op, a, b):
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_name(a.dtype)} != "
                           f"{_name(b.dtype)}")


def _name(dt):
    from .._errors import dtype_title
    return dtype_title(dt if isinstance(dt, D.dtype) else D.FROM_NP[dt])


def matmul_shape(sa, sb):
    if len(sa) == 0 or len(sb) == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{len(sa)}D and {len(sb)}D")
    if len(sa) == 1 and len(sb) == 1:
        if sa[0] != sb[0]:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] "
                               f"to have the same number of elements, but got {sa[0]} and {sb[0]} "
                               f"elements respectively")
        return ()
    a2 = (1,) + tuple(sa) if len(sa) == 1 else tuple(sa)
    b2 = tuple(sb) + (1,) if len(sb) == 1 else tuple(sb)
    if a2[-1] != b2[-2]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({fmt_shape(a2[-2:] if len(sa) > 1 else sa)}"
                           f" and {fmt_shape(b2[-2:] if len(sb) > 1 else sb)})")
    batch = broadcast_shapes(a2[:-2], b2[:-2])
    out = batch + (a2[-2], b2[-1])
    if len(sa) == 1:
        out = out[:-2] + out[-1:]
    if len(sb) == 1:
        out = out[:-1]
    return out


@primitive("matmul", kind="other", node_name="MmBackward0")
def matmul(a, b):
    _check_dtypes("matmul", a, b)
    return np.matmul(a, b)


@matmul.meta
def _(a, b):
    _check_dtypes("matmul", a, b)
    return TensorMeta(matmul_shape(tuple(a.shape), tuple(b.shape)), a.dtype)


@matmul.derivative
def _(grad, a, b):
    if a.dim() == 1 and b.dim() == 1:
        return grad * b.conj(), grad * a.conj()
    if a.dim() == 1:  # (k) @ (..., k, n) -> (..., n)
        ga = (grad.unsqueeze(-2) @ b.mT.conj()).squeeze(-2)
        gb = a.conj().unsqueeze(-1) * grad.unsqueeze(-2)
        return ga, gb
    if b.dim() == 1:  # (..., m, k) @ (k) -> (..., m)
        ga = grad.unsqueeze(-1) * b.conj()
        gb = (a.mT.conj() @ grad.unsqueeze(-1)).squeeze(-1)
        return ga, gb
    return grad @ b.mT.conj(), a.mT.conj() @ grad


__all__ = ["matmul", "matmul_shape"]
