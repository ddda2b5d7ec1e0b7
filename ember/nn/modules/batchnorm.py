"""Batch normalisation: ``BatchNorm1d/2d/3d`` and ``SyncBatchNorm`` (layer L4).

Example:
    >>> import ember
    >>> bn = BatchNorm2d(3)
    >>> bn
    BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    >>> bn(ember.randn(4, 3, 2, 2)).shape, int(bn.num_batches_tracked)
    (torch.Size([4, 3, 2, 2]), 1)
"""
from __future__ import annotations

from ... import _dtype as D
from ..._creation import empty, ones, tensor, zeros
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]


class _NormBase(Module):
    """Parameters and running statistics shared by batch and instance norm."""

    _version = 2
    __constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(empty(num_features, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(empty(num_features, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype, device=device))
            self.register_buffer("running_var", ones(num_features, dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", tensor(0, dtype=D.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self) -> str:
        return "{num_features}, eps={eps}, momentum={momentum}, affine={affine}, " \
               "bias={use_bias}, track_running_stats={track_running_stats}".format(
                   **self.__dict__, use_bias=self.bias is not None)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            # checkpoints older than num_batches_tracked load with a zero count, as in torch
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                                   and self.num_batches_tracked.device.type != "meta"
                                   else tensor(0, dtype=D.int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        exponential_average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                exponential_average_factor = 1.0 / float(self.num_batches_tracked)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        return F.batch_norm(
            input,
            self.running_mean if not self.training or self.track_running_stats else None,
            self.running_var if not self.training or self.track_running_stats else None,
            self.weight, self.bias, bn_training, exponential_average_factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch norm over ``(N, C)`` or ``(N, C, L)``: per channel, batch statistics in training and
    running ones in eval. Shape: output as input."""

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch norm over ``(N, C, H, W)``. Shape: output as input."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch norm over ``(N, C, D, H, W)``. Shape: output as input."""

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


# filled by ember.distributed.nn.functional on import (this layer cannot import ember.distributed):
# is_initialized(), world_size(group), batch_norm(input, weight, bias, rmean, rvar, eps, momentum, group)
SYNC_PROVIDER: dict = {}


class SyncBatchNorm(_BatchNorm):
    """Batch norm whose training statistics are reduced over ``process_group`` (default: the world).

    Unlike torch 2.13 (which refuses CPU tensors there) ember computes it on CPU; outside a process
    group, or in a group of one rank, it is plain batch norm as in torch. Shape: ``(N, C, *)``, output
    as input."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, process_group=None,
                 device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        """Training inside a process group of more than one rank: statistics over the whole group's
        batch (``ember.distributed.nn.functional.sync_batch_norm``); otherwise plain batch norm, as torch."""
        self._check_input_dim(input)
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        need_sync = self.training and SYNC_PROVIDER and SYNC_PROVIDER["is_initialized"]()
        if need_sync:
            need_sync = SYNC_PROVIDER["world_size"](self.process_group) > 1
        if not need_sync:
            return super().forward(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
        tracked = self.track_running_stats
        return SYNC_PROVIDER["batch_norm"](input, self.weight, self.bias, self.running_mean if tracked else None,
                                           self.running_var if tracked else None, self.eps, factor,
                                           self.process_group)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Replace every ``BatchNorm*d`` in ``module`` with a ``SyncBatchNorm`` sharing its state."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine,
                      module.track_running_stats, process_group)
            if module.affine:
                out.weight = module.weight
                out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
