"""``parameters_to_vector`` / ``vector_to_parameters`` (layer L4).

Example:
    >>> import ember
    >>> ps = [ember.nn.Parameter(ember.ones(2, 2)), ember.nn.Parameter(ember.zeros(3))]
    >>> parameters_to_vector(ps).shape
    torch.Size([7])
"""
from __future__ import annotations

from ..._tensor_methods.shape_copy import cat

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one 1-D tensor."""
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters) -> None:
    """Copy consecutive slices of ``vec`` into the parameters' data."""
    from ..._tensor import Tensor
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[pointer:pointer + n].view_as(p).data
        pointer += n
