"""``ReduceLROnPlateau``: cut the lr when a monitored metric stops improving."""
from __future__ import annotations

import math
import warnings
from typing import Any

from ._scheduler_base import _MSG_EPOCH_DEPRECATED, LRScheduler, _write_lr
from .optimizer import Optimizer

__all__ = ["ReduceLROnPlateau"]


class ReduceLROnPlateau(LRScheduler):
    """Multiply the lr by ``factor`` after more than ``patience`` epochs without improvement.

    An epoch improves if the metric beats the best so far by ``threshold`` (relative or absolute,
    per ``threshold_mode``); after a cut, ``cooldown`` epochs pass before counting bad epochs again.
    Lrs never go below ``min_lr``, and changes smaller than ``eps`` are skipped.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
        >>> for loss in [1.0, 1.0, 1.0]: opt.step(); sched.step(loss)
        >>> sched.get_last_lr()
        [0.5]
    """

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0, min_lr=0,
                 eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        self.factor = factor
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"expected {n} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * n
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = [g["lr"] for g in optimizer.param_groups]
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        # the metric value every real one beats
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self) -> bool:
        """True while epochs after the last cut are still being ignored."""
        return self.cooldown_counter > 0

    def _improves(self, value: float) -> bool:
        best, th = self.best, self.threshold
        if self.mode == "min":
            return value < (best * (1.0 - th) if self.threshold_mode == "rel" else best - th)
        return value > (best * (th + 1.0) if self.threshold_mode == "rel" else best + th)

    def step(self, metrics, epoch=None) -> None:
        """Record this epoch's metric value (a number or one-element tensor) and maybe cut the lr."""
        value = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(_MSG_EPOCH_DEPRECATED, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._improves(value):
            self.best = value
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._cut()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def _cut(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs from when "
                    f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to a new "
                    "param group being added to the optimizer. Please modify the `min_lrs` field to "
                    "match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, floor in zip(groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, floor)
            if old - new > self.eps:
                _write_lr(group, new)

    def get_lr(self) -> list:
        """The current lrs (this scheduler changes them only in ``step(metrics)``)."""
        return [g["lr"] for g in self.optimizer.param_groups]

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
