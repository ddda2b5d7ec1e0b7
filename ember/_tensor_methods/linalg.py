"""Matrix-product methods (layer L2): ``matmul`` and ``@``, ``mm``, ``bmm``, ``dot``..."""
from __future__ import annotations

from .._dispatch import dispatch, dispatch_out
from .._errors import fmt_shape
from ..ops import linalg as L
from ..overrides import PLAIN_TYPES, handle_torch_function, has_torch_function

__all__ = ["LinalgMixin", "FUNCTIONS"]


def matmul(input, other, *, out=None):
    """Matrix product with broadcasting over batch dims; 1-D operands are vectors."""
    if not (type(input) in PLAIN_TYPES and type(other) in PLAIN_TYPES) and \
            has_torch_function((input, other)):
        return handle_torch_function(matmul, (input, other), input, other, out=out)
    if out is not None:
        return dispatch_out(L.matmul, out, input, other)
    return dispatch(L.matmul, input, other)


def mm(input, mat2, *, out=None):
    """``(n, m) @ (m, p) -> (n, p)``; both must be 2-D."""
    if input.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if input.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({fmt_shape(input.shape)} and "
                           f"{fmt_shape(mat2.shape)})")
    return matmul(input, mat2, out=out)


class LinalgMixin:
    __slots__ = ()
    matmul = matmul
    mm = mm
    __matmul__ = matmul

    def __rmatmul__(self, other):
        return matmul(other, self)


FUNCTIONS = dict(matmul=matmul, mm=mm)
