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


def softmax(input, dim, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim`` (stable); ``dtype`` casts the input first.

    >>> import ember
    >>> ember.softmax(ember.tensor([1., 1.]), 0)
    tensor([0.5000, 0.5000])
    """
    if type(input) not in PLAIN_TYPES:
        r = try_torch_function(softmax, (input,), input, dim, dtype=dtype)
        if r is not NotImplemented:
            return r
    if dtype is not None:
        input = input.to(as_dtype(dtype))
    return dispatch(NN.softmax, input, dim=dim_arg(dim, input.dim()))


def log_softmax(input, dim, dtype=None):
    """``x - log(sum(exp(x)))`` along ``dim`` (stable); ``dtype`` casts the input first.

    >>> import ember
    >>> ember.log_softmax(ember.tensor([0., 0.]), 0)
    tensor([-0.6931, -0.6931])
    """
    if type(input) not in PLAIN_TYPES:
        r = try_torch_function(log_softmax, (input,), input, dim, dtype=dtype)
        if r is not NotImplemented:
            return r
    if dtype is not None:
        input = input.to(as_dtype(dtype))
    return dispatch(NN.log_softmax, input, dim=dim_arg(dim, input.dim()))


for _f in (softmax, log_softmax):
    _f.__module__ = "ember"


class NNMixin:
    __slots__ = ()
    softmax, log_softmax = softmax, log_softmax


FUNCTIONS = dict(softmax=softmax, log_softmax=log_softmax)
