"""Weight averaging (SWA, EMA): ``AveragedModel``, ``SWALR`` and ``update_bn``, as in torch.

Example:
    >>> import ember
    >>> model = ember.nn.Linear(2, 1)
    >>> ema = ember.optim.swa_utils.AveragedModel(
    ...     model, multi_avg_fn=ember.optim.swa_utils.get_ema_multi_avg_fn(0.9))
    >>> ema.update_parameters(model); int(ema.n_averaged)
    1
"""
from __future__ import annotations

import math
import warnings
from copy import deepcopy
from typing import Any, Callable, Iterable

from .. import _creation as C
from .. import _dtype as D
from .._tensor import Tensor
from .._tensor_methods import foreach as F
from ..autograd.grad_mode import no_grad
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _format_param
from .optimizer import Optimizer

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay) -> None:
    if not 0.0 <= decay <= 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _interpolates(t: Tensor) -> bool:
    # lerp needs floating or complex storage; integer tensors take the explicit formulas
    return t.is_floating_point() or t.is_complex()


def get_ema_multi_avg_fn(decay=0.999):
    """``ema = decay * ema + (1 - decay) * param`` over lists of tensors (one foreach lerp)."""
    _check_decay(decay)
    weight = 1 - decay

    def ema_update(ema_param_list, current_param_list, _):
        targets, sources = list(ema_param_list), list(current_param_list)
        with no_grad():
            if _interpolates(targets[0]):
                F._foreach_lerp_(targets, sources, weight)
                return
            for avg, cur in zip(targets, sources):
                avg.copy_(avg * decay + cur * weight)
    return ema_update


def get_swa_multi_avg_fn():
    """The running mean over lists of tensors: ``avg += (param - avg) / (n + 1)``."""
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        targets, sources = list(averaged_param_list), list(current_param_list)
        count = num_averaged + 1
        with no_grad():
            if _interpolates(targets[0]):
                F._foreach_lerp_(targets, sources, float(1 / count))
                return
            steps = list(F._foreach_sub(sources, targets))
            if isinstance(num_averaged, Tensor):
                F._foreach_addcdiv_(targets, steps, [count] * len(targets))
            else:
                F._foreach_add_(targets, steps, alpha=1.0 / count)
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """Per-tensor EMA: returns ``decay * ema + (1 - decay) * param``."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return ema_param * decay + current_param * (1 - decay)
    return ema_update


def get_swa_avg_fn():
    """Per-tensor running mean: returns ``avg + (param - avg) / (n + 1)``."""
    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            step = current_param - averaged_param
            return averaged_param + step / (num_averaged + 1)
    return swa_update


def _split_by_dtype(averaged: list, current: list) -> list:
    """Pairs of (averaged, current) lists, one pair per dtype, in first-seen order."""
    buckets: dict = {}
    for avg, cur in zip(averaged, current):
        left, right = buckets.setdefault(avg.dtype, ([], []))
        left.append(avg)
        right.append(cur)
    return list(buckets.values())


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and with ``use_buffers`` its buffers) hold a running
    average (SWA by default, or ``avg_fn`` / ``multi_avg_fn``, e.g. an EMA) of ``model``'s.

    Args:
        model: the module to average. device: where to keep the copy. avg_fn: per-tensor
        ``(averaged, current, n_averaged) -> new average``. multi_avg_fn: in-place over lists.
        use_buffers: average buffers too (else they are copied from ``model``).
    """

    def __init__(self, model: Module, device=None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers=False) -> None:
        super().__init__()
        if None not in (avg_fn, multi_avg_fn):
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        replica = deepcopy(model)
        self.module = replica if device is None else replica.to(device)
        self.register_buffer("n_averaged", C.tensor(0, dtype=D.int64))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    @staticmethod
    def _tracked(net: Module, with_buffers: bool) -> list:
        found = list(net.parameters())
        return found + list(net.buffers()) if with_buffers else found

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current parameters into the average."""
        pairs = list(zip(self._tracked(self.module, self.use_buffers),
                         self._tracked(model, self.use_buffers)))
        averaged = [a.detach() for a, _ in pairs]
        current = [c.detach() for _, c in pairs]
        seen = int(self.n_averaged)
        with no_grad():
            if seen == 0:
                # the first snapshot is taken verbatim
                for avg, cur in zip(averaged, current):
                    avg.copy_(cur)
            elif self.multi_avg_fn is not None:
                for avg_group, cur_group in _split_by_dtype(averaged, current):
                    self.multi_avg_fn(avg_group, cur_group, self.n_averaged)
            else:
                # without a custom fn torch's CPU path is the per-tensor running mean
                combine = self.avg_fn if self.avg_fn is not None else get_swa_avg_fn()
                for avg, cur in zip(averaged, current):
                    avg.copy_(combine(avg, cur, self.n_averaged))
            if not self.use_buffers:
                # buffers are not averaged: mirror the live model's
                for mine, theirs in zip(self.module.buffers(), model.buffers()):
                    mine.detach().copy_(theirs.detach())
            self.n_averaged += 1


def _batchnorm_layers(model: Module) -> list:
    try:
        from ..nn.modules.batchnorm import _BatchNorm
    except ImportError:
        return []
    return [m for m in model.modules() if isinstance(m, _BatchNorm)]


def update_bn(loader: Iterable[Any], model: Module, device=None) -> None:
    """Recompute the BatchNorm running statistics of ``model`` with one pass over ``loader``
    (cumulative averages: momentum None), as after SWA."""
    layers = _batchnorm_layers(model)
    if not layers:
        return
    saved_momentum = {}
    for bn in layers:
        bn.reset_running_stats()
        saved_momentum[bn] = bn.momentum
        bn.momentum = None  # None = plain cumulative average over the pass
    was_training = model.training
    model.train()
    with no_grad():
        for batch in loader:
            x = batch[0] if isinstance(batch, (list, tuple)) else batch
            model(x if device is None else x.to(device))
    for bn, momentum in saved_momentum.items():
        bn.momentum = momentum
    model.train(was_training)


def _clamp01(x: float) -> float:
    return min(1, max(0, x))


def _cosine_ramp(t):
    return 0.5 - 0.5 * math.cos(math.pi * t)


def _linear_ramp(t):
    return t


_RAMPS = {"cos": _cosine_ramp, "linear": _linear_ramp}


class SWALR(LRScheduler):
    """Anneal each group's lr to ``swa_lr`` over ``anneal_epochs`` (cosine or linear), then hold it.

    Args:
        optimizer: the wrapped optimizer. swa_lr: target lr (float or one per group).
        anneal_epochs: epochs of annealing. anneal_strategy: ``'cos'`` or ``'linear'``.
    """

    def __init__(self, optimizer: Optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1) -> None:
        targets = _format_param("swa_lr", optimizer, swa_lr)
        for group, target in zip(optimizer.param_groups, targets):
            group["swa_lr"] = target
        if anneal_strategy not in _RAMPS:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if isinstance(anneal_epochs, int) and anneal_epochs >= 0:
            self.anneal_epochs = anneal_epochs
        else:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        super().__init__(optimizer, last_epoch)

    _linear_anneal = staticmethod(_linear_ramp)
    _cosine_anneal = staticmethod(_cosine_ramp)

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        # undo one annealing step: lr = alpha * swa_lr + (1 - alpha) * start
        return swa_lr if alpha == 1 else (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        epoch = self._step_count - 1
        if self.anneal_epochs == 0:
            epoch = max(epoch, 1)
        span = max(self.anneal_epochs, 1)
        before = self.anneal_func(_clamp01((epoch - 1) / span))
        now = self.anneal_func(_clamp01(epoch / span))
        result = []
        for group in self.optimizer.param_groups:
            start = self._get_initial_lr(group["lr"], group["swa_lr"], before)
            result.append(now * group["swa_lr"] + (1 - now) * start)
        return result

    def _set_anneal_func(self, anneal_strategy) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = _RAMPS[anneal_strategy]

    def state_dict(self) -> dict[str, Any]:
        skipped = {"optimizer", "anneal_func"}  # not picklable / rebuilt from _anneal_strategy
        return {name: value for name, value in self.__dict__.items() if name not in skipped}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        vars(self).update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
