"""Differentiable collectives (torch.distributed.nn.functional) and SyncBatchNorm's group statistics.

``all_reduce(t)`` returns a new tensor (the input is untouched); with ``op=SUM`` its backward is the
all-reduce (SUM) of the incoming gradients, so a loss summed over ranks gets exact gradients.
``sync_batch_norm`` is what ``nn.SyncBatchNorm`` runs in training inside a process group: mean and
biased variance over the concatenated batch of the group, running stats updated with the unbiased one.

Example (inside an initialised world)::

    total = functional.all_reduce(x.sum())      # same value on every rank, differentiable
"""
from __future__ import annotations

from ..._creation import tensor
from ..._tensor_methods.shape_copy import cat
from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from ...nn.modules import batchnorm as _batchnorm
from .._collectives import all_reduce as _all_reduce
from ..distributed_c10d import get_world_size, is_initialized
from .._reduce_op import ReduceOp

__all__ = ["all_reduce", "sync_batch_norm"]


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, t):
        ctx.op, ctx.group = op, group
        out = t.clone()
        _all_reduce(out, op=op, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        if ctx.op != ReduceOp.SUM:
            raise RuntimeError(f"ember.distributed.nn.functional.all_reduce: backward supports ReduceOp.SUM only, "
                               f"got {ctx.op}")
        grad = grad.clone()
        _all_reduce(grad, op=ReduceOp.SUM, group=ctx.group)
        return None, None, grad


def all_reduce(tensor, op=ReduceOp.SUM, group=None):
    """``tensor`` reduced over ``group`` as a new tensor; differentiable for ``ReduceOp.SUM``."""
    return _AllReduce.apply(op, group, tensor)


def sync_batch_norm(input, weight, bias, running_mean, running_var, eps, momentum, group=None):
    """Batch norm of ``input`` (N, C, *) with statistics over every rank's batch; output shaped as input."""
    dims = [0] + list(range(2, input.dim()))
    shape = [1, input.shape[1]] + [1] * (input.dim() - 2)
    count = input.numel() // input.shape[1]
    local = input.sum(dims)
    packed = all_reduce(cat([local, tensor([float(count)], dtype=local.dtype)]), group=group)  # one message
    total = packed[-1].detach()
    mean = packed[:-1] / total
    centred = input - mean.reshape(shape)
    var = all_reduce((centred * centred).sum(dims), group=group) / total
    n = float(total)
    if n <= 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {list(input.shape)}")
    out = centred * (var + eps).rsqrt().reshape(shape)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    if running_mean is not None:
        with no_grad():
            running_mean.mul_(1 - momentum).add_(mean.detach().to(running_mean.dtype), alpha=momentum)
            running_var.mul_(1 - momentum).add_((var.detach() * (n / (n - 1))).to(running_var.dtype),
                                               alpha=momentum)
    return out


def _world_size(group) -> int:
    return get_world_size(group)


# nn.SyncBatchNorm (layer L4) cannot import this layer: it finds the group statistics through this slot
_batchnorm.SYNC_PROVIDER.update(is_initialized=is_initialized, world_size=_world_size, batch_norm=sync_batch_norm)
