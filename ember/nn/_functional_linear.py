"""``linear`` and ``bilinear`` of ``ember.nn.functional`` (layer L4), in their own file so attention and
the rest of nn.functional use them without importing ``nn.functional`` itself.

Example:
    >>> import ember
    >>> linear(ember.ones(2, 3), ember.ones(4, 3), ember.zeros(4)).shape
    torch.Size([2, 4])
"""
from __future__ import annotations

from .._tensor_methods.linalg import addmm
from ..overrides import public

__all__ = ["linear", "bilinear"]


@public
def linear(input, weight, bias=None):
    """``input @ weight.T + bias``; input ``(*, in)``, weight ``(out, in)``, bias ``(out,)``."""
    if bias is not None and input.dim() == 2:  # one fused addmm, as torch does (AddmmBackward0)
        return addmm(bias, input, weight.t())
    if bias is not None and input.dim() > 2 and input.is_contiguous():  # torch folds to addmm too
        shape = input.shape  # shape: (*, in) -> (N, in) -> (N, out) -> (*, out)
        return addmm(bias, input.view(-1, shape[-1]), weight.t()).view(*shape[:-1], weight.shape[0])
    out = input.matmul(weight.t())
    return out if bias is None else out + bias


@public
def bilinear(input1, input2, weight, bias=None):
    """``y_k = x1 @ W_k @ x2 + b_k``; inputs ``(*, in1)``, ``(*, in2)``, weight ``(out, in1, in2)``."""
    # (*, 1, 1, in1) @ (out, in1, in2) -> (*, out, 1, in2), then dot with x2
    t = input1.unsqueeze(-2).unsqueeze(-2).matmul(weight)
    prod = t.squeeze(-2) * input2.unsqueeze(-2)
    out = prod.sum(-1, dtype=prod.dtype)  # integers keep their dtype, as torch
    return out if bias is None else out + bias
