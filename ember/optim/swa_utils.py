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

import itertools
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


def get_ema_multi_avg_fn(decay=0.999):
    """``ema = decay * ema + (1 - decay) * param`` over lists of tensors (one foreach lerp)."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")

    def ema_update(ema_param_list, current_param_list, _):
        with no_grad():
            if ema_param_list[0].is_floating_point() or ema_param_list[0].is_complex():
                F._foreach_lerp_(list(ema_param_list), list(current_param_list), 1 - decay)
            else:
                for p_ema, p_model in zip(ema_param_list, current_param_list):
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """The running mean over lists of tensors: ``avg += (param - avg) / (n + 1)``."""
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with no_grad():
            if averaged_param_list[0].is_floating_point() or averaged_param_list[0].is_complex():
                F._foreach_lerp_(list(averaged_param_list), list(current_param_list),
                                 float(1 / (num_averaged + 1)))
            else:
                diffs = F._foreach_sub(list(current_param_list), list(averaged_param_list))
                if isinstance(num_averaged, Tensor):
                    F._foreach_addcdiv_(list(averaged_param_list), list(diffs),
                                        [num_averaged + 1] * len(averaged_param_list))
                else:
                    F._foreach_add_(list(averaged_param_list), list(diffs),
                                    alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """Per-tensor EMA: returns ``decay * ema + (1 - decay) * param``."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """Per-tensor running mean: returns ``avg + (param - avg) / (n + 1)``."""
    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def _group_by_dtype(self_params: list, model_params: list) -> list:
    groups: dict = {}
    for a, b in zip(self_params, model_params):
        sa, sb = groups.setdefault(a.dtype, ([], []))
        sa.append(a)
        sb.append(b)
    return list(groups.values())


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
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", C.tensor(0, dtype=D.int64))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current parameters into the average."""
        self_param = (itertools.chain(self.module.parameters(), self.module.buffers())
                      if self.use_buffers else self.parameters())
        model_param = (itertools.chain(model.parameters(), model.buffers())
                       if self.use_buffers else model.parameters())
        self_detached, model_detached = [], []
        copy_param = bool(self.n_averaged == 0)
        with no_grad():
            for p_averaged, p_model in zip(self_param, model_param):
                p_model_ = p_model.detach()
                self_detached.append(p_averaged.detach())
                model_detached.append(p_model_)
                if copy_param:
                    p_averaged.detach().copy_(p_model_)
            n = int(self.n_averaged)
            if n > 0:
                if self.multi_avg_fn is not None:
                    for sp, mp in _group_by_dtype(self_detached, model_detached):
                        self.multi_avg_fn(sp, mp, self.n_averaged)
                elif self.avg_fn is None:
                    # torch's default on CPU: the per-tensor running mean (its foreach lerp only
                    # runs on accelerators), i.e. avg + (p - avg) / (n + 1)
                    fn = get_swa_avg_fn()
                    for p_averaged, p_model in zip(self_detached, model_detached):
                        p_averaged.copy_(fn(p_averaged, p_model, self.n_averaged))
                else:
                    for p_averaged, p_model in zip(self_detached, model_detached):
                        p_averaged.copy_(self.avg_fn(p_averaged, p_model, self.n_averaged))
            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                    b_swa.detach().copy_(b_model.detach())
            self.n_averaged += 1


def _batchnorm_base():
    try:
        from ..nn.modules.batchnorm import _BatchNorm
    except ImportError:
        return None
    return _BatchNorm


def update_bn(loader: Iterable[Any], model: Module, device=None) -> None:
    """Recompute the BatchNorm running statistics of ``model`` with one pass over ``loader``
    (cumulative averages: momentum None), as after SWA."""
    base = _batchnorm_base()
    momenta = {}
    for module in model.modules():
        if base is not None and isinstance(module, base):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
    for bn_module in momenta:
        bn_module.momentum = momenta[bn_module]
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr to ``swa_lr`` over ``anneal_epochs`` (cosine or linear), then hold it.

    Args:
        optimizer: the wrapped optimizer. swa_lr: target lr (float or one per group).
        anneal_epochs: epochs of annealing. anneal_strategy: ``'cos'`` or ``'linear'``.
    """

    def __init__(self, optimizer: Optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for swa_lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = swa_lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
