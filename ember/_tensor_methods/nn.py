"""nn methods on Tensor (layer L2): ``softmax`` / ``log_softmax`` as ``ember.xxx`` and ``Tensor.xxx``,
on the same primitives ``nn.functional`` uses.

Example:
    >>> import ember
    >>> ember.tensor([0., 0.]).softmax(0).tolist(), ember.tensor([1., 1.]).log_softmax(0).exp().tolist()
    ([0.5, 0.5], [0.5, 0.5])
"""
from __future__ import annotations

from .._dispatch import dispatch
from .._primitives import nn_ops as NN
from ..overrides import PLAIN_TYPES, try_torch_function
from ._args import as_dtype, dim_arg

__all__ = ["NNMixin", "FUNCTIONS"]


def _softmax_like(op, name: str, doc: str):
    def fn(input, dim, dtype=None):
        if type(input) not in PLAIN_TYPES:
            r = try_torch_function(fn, (input,), input, dim, dtype=dtype)
            if r is not NotImplemented:
                return r
        if dtype is not None:
            input = input.to(as_dtype(dtype))
        return dispatch(op, input, dim=dim_arg(dim, input.dim()))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


softmax = _softmax_like(NN.softmax, "softmax", doc="""\
    ``exp(x) / sum(exp(x))`` along ``dim`` (stable); ``dtype`` casts the input first.

    >>> import ember
    >>> ember.softmax(ember.tensor([1., 1.]), 0)
    tensor([0.5000, 0.5000])
    """)
log_softmax = _softmax_like(NN.log_softmax, "log_softmax", doc="""\
    ``x - log(sum(exp(x)))`` along ``dim`` (stable); ``dtype`` casts the input first.

    >>> import ember
    >>> ember.log_softmax(ember.tensor([0., 0.]), 0)
    tensor([-0.6931, -0.6931])
    """)


for _f in (softmax, log_softmax):
    _f.__module__ = "ember"


class NNMixin:
    __slots__ = ()
    softmax, log_softmax = softmax, log_softmax


FUNCTIONS = dict(softmax=softmax, log_softmax=log_softmax)
