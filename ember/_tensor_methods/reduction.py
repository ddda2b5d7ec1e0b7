"""Reduction methods (layer L2): ``sum``, ``mean``... accepting torch's ``dim``/``keepdim``/``dtype``."""
from __future__ import annotations

from .._dispatch import dispatch, dispatch_out
from ..ops import reduction as R
from ..overrides import PLAIN_TYPES, handle_torch_function, has_torch_function
from ._args import as_dtype, dims_arg

__all__ = ["ReductionMixin", "FUNCTIONS"]


def _reduction(op, name):
    def method(input, dim=None, keepdim=False, *, dtype=None, out=None):
        if type(input) not in PLAIN_TYPES and has_torch_function((input,)):
            return handle_torch_function(method, (input,), input, dim, keepdim, dtype=dtype, out=out)
        dims = dims_arg(dim, input.dim())
        kw = dict(dim=dims, keepdim=keepdim, dtype=as_dtype(dtype))
        if out is not None:
            return dispatch_out(op, out, input, **kw)
        return dispatch(op, input, **kw)
    method.__name__ = name
    method.__qualname__ = f"Tensor.{name}"
    method.__module__ = "ember._tensor"
    method.__doc__ = f"``{name}`` over ``dim`` (all dims when None), keeping reduced dims if ``keepdim``."
    return method


sum = _reduction(R.sum, "sum")
mean = _reduction(R.mean, "mean")


class ReductionMixin:
    __slots__ = ()
    sum = sum
    mean = mean

    def sum_to_size(self, *size):
        """Sum broadcast dims away so the result has ``size`` (the inverse of ``expand``)."""
        from ._args import size_args
        size = size_args(size, "sum_to_size")
        shape = tuple(self.shape)
        if shape == size:
            return self
        lead = len(shape) - len(size)
        if lead < 0:
            raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
        dims = list(range(lead))
        for i, s in enumerate(size):
            if s == 1 and shape[lead + i] != 1:
                dims.append(lead + i)
            elif s != shape[lead + i]:
                raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
        out = dispatch(R.sum, self, dim=tuple(dims), keepdim=True, dtype=None) if dims else self
        return out.view(size) if lead else out


FUNCTIONS = dict(sum=sum, mean=mean)
