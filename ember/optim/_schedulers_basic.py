"""The per-epoch schedules: each is a rule giving a group's lr at epoch ``e``.

Most schedules are *chainable*: the rule maps the group's current lr to the next one (so several
schedulers on one optimizer compose, as in ``ChainedScheduler``), and a separate closed form
``lr(e) = f(base_lr, e)`` serves ``step(epoch)`` jumps. Both forms are torch's, so sequences agree.
"""
from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from typing import Any, Callable

from ._scheduler_base import (LRScheduler, _callables_state, _restore_callables,
                              _warn_get_lr_outside_step)
from .optimizer import Optimizer

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "PolynomialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts"]


class _RuleScheduler(LRScheduler):
    """A scheduler defined by ``_next(i, lr, base_lr, e)`` (and optionally ``_closed(base_lr, e)``).

    ``_keeps_lr_when_resuming``: the constructor's step at an epoch > 0 (a resume) leaves the lrs as
    they are instead of applying the rule once more, as torch does for these schedules.
    """

    _keeps_lr_when_resuming = False

    def _next(self, i: int, lr, base_lr, e: int):
        raise NotImplementedError

    _closed = None

    def get_lr(self) -> list:
        _warn_get_lr_outside_step(self)
        groups = self.optimizer.param_groups
        e = self.last_epoch
        if self._is_initial and e > 0 and self._keeps_lr_when_resuming:
            return [g["lr"] for g in groups]
        return [self._next(i, g["lr"], base, e) for i, (g, base) in enumerate(zip(groups, self.base_lrs))]

    def _lrs_for_jump(self) -> list:
        if self._closed is None:
            return self.get_lr()
        return [self._closed(base, self.last_epoch) for base in self.base_lrs]


def _as_lambdas(optimizer: Optimizer, lr_lambda) -> list:
    n = len(optimizer.param_groups)
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != n:
            raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
        return list(lr_lambda)
    return [lr_lambda] * n


class _LambdaStateMixin:
    """Saves callable-object lambdas by their ``__dict__`` (functions can't be saved: None)."""

    def state_dict(self) -> dict[str, Any]:
        sd = super().state_dict()
        sd["lr_lambdas"] = _callables_state(self.lr_lambdas)
        return sd

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state_dict = dict(state_dict)
        saved = state_dict.pop("lr_lambdas")
        super().load_state_dict(state_dict)
        _restore_callables(self.lr_lambdas, saved)


class LambdaLR(_LambdaStateMixin, _RuleScheduler):
    """lr = initial lr * ``lr_lambda(epoch)`` (one function, or one per param group).

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.LambdaLR(opt, lambda e: 1 / (e + 1))
        >>> opt.step(); sched.step(); sched.get_last_lr()
        [0.5]
    """

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable | list, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _as_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def _next(self, i, lr, base_lr, e):
        return base_lr * self.lr_lambdas[i](e)


class MultiplicativeLR(_LambdaStateMixin, _RuleScheduler):
    """Each epoch multiplies the lr by ``lr_lambda(epoch)``.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.MultiplicativeLR(opt, lambda e: 0.5)
        >>> for _ in range(2): opt.step(); sched.step()
        >>> sched.get_last_lr()
        [0.25]
    """

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable | list, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self.lr_lambdas = _as_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def _next(self, i, lr, base_lr, e):
        # every step but the constructor's multiplies (also a step(epoch) jump: no closed form)
        return lr if self._is_initial else lr * self.lr_lambdas[i](e)


class StepLR(_RuleScheduler):
    """lr = initial lr * ``gamma ** (epoch // step_size)``.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        >>> [(opt.step(), sched.step(), sched.get_last_lr()[0])[2] for _ in range(4)]
        [1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _next(self, i, lr, base_lr, e):
        return lr * self.gamma if e > 0 and e % self.step_size == 0 else lr

    def _closed(self, base_lr, e):
        return base_lr * self.gamma ** (e // self.step_size)


class MultiStepLR(_RuleScheduler):
    """lr = initial lr * ``gamma ** (number of milestones <= epoch)`` (repeated milestones count twice).

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.5)
        >>> [(opt.step(), sched.step(), sched.get_last_lr()[0])[2] for _ in range(3)]
        [0.5, 0.5, 0.25]
    """

    def __init__(self, optimizer: Optimizer, milestones, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _next(self, i, lr, base_lr, e):
        hits = self.milestones.get(e, 0)
        return lr * self.gamma ** hits if hits else lr

    def _closed(self, base_lr, e):
        passed = bisect_right(sorted(self.milestones.elements()), e)
        return base_lr * self.gamma ** passed


class ConstantLR(_RuleScheduler):
    """lr = initial lr * ``factor`` for the first ``total_iters`` epochs, then the initial lr.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
        >>> [(opt.step(), sched.step(), sched.get_last_lr()[0])[2] for _ in range(3)]
        [0.5, 1.0, 1.0]
    """

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def _next(self, i, lr, base_lr, e):
        if e == 0:
            return lr * self.factor
        return lr * (1.0 / self.factor) if e == self.total_iters else lr

    def _closed(self, base_lr, e):
        return base_lr * (self.factor + (e >= self.total_iters) * (1 - self.factor))


class LinearLR(_RuleScheduler):
    """lr moves linearly from ``start_factor`` to ``end_factor`` times the initial lr over ``total_iters``.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
        >>> [(opt.step(), sched.step(), sched.get_last_lr()[0])[2] for _ in range(3)]
        [0.75, 1.0, 1.0]
    """

    _keeps_lr_when_resuming = True

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or "
                             "equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def _next(self, i, lr, base_lr, e):
        if e == 0:
            return lr * self.start_factor
        if e > self.total_iters:
            return lr
        # ratio of consecutive factors start + (end - start) * e / T
        slope = self.end_factor - self.start_factor
        return lr * (1.0 + slope / (self.total_iters * self.start_factor + (e - 1) * slope))

    def _closed(self, base_lr, e):
        frac = min(self.total_iters, e) / self.total_iters
        return base_lr * (self.start_factor + (self.end_factor - self.start_factor) * frac)


class ExponentialLR(_RuleScheduler):
    """lr = initial lr * ``gamma ** epoch``.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        >>> opt.step(); sched.step(); sched.get_last_lr()
        [0.5]
    """

    _keeps_lr_when_resuming = True

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _next(self, i, lr, base_lr, e):
        return lr * self.gamma if e > 0 else lr

    def _closed(self, base_lr, e):
        return base_lr * self.gamma ** e


class PolynomialLR(_RuleScheduler):
    """lr = initial lr * ``(1 - min(epoch, total_iters) / total_iters) ** power``.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=1.0)
        >>> opt.step(); sched.step(); sched.get_last_lr()
        [0.75]
    """

    _keeps_lr_when_resuming = True

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def _next(self, i, lr, base_lr, e):
        if e == 0 or e > self.total_iters:
            return lr
        t = self.total_iters
        return lr * ((1.0 - e / t) / (1.0 - (e - 1) / t)) ** self.power

    def _closed(self, base_lr, e):
        return base_lr * (1.0 - min(self.total_iters, e) / self.total_iters) ** self.power


class CosineAnnealingLR(_RuleScheduler):
    """lr = eta_min + (initial lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2, in chainable form.

    Past ``T_max`` the chainable rule keeps going (lr rises back), as in torch.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=2)
        >>> [round(sched.get_last_lr()[0], 6) for _ in range(3) if (opt.step(), sched.step())]
        [0.5, 0.0, 0.5]
    """

    _keeps_lr_when_resuming = True

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def _next(self, i, lr, base_lr, e):
        if e == 0:
            return lr
        t, lo = self.T_max, self.eta_min
        if (e - 1 - t) % (2 * t) == 0:
            # leaving the trough: the ratio form below would divide by zero
            return lr + (base_lr - lo) * (1 - math.cos(math.pi / t)) / 2
        ratio = (1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t))
        return ratio * (lr - lo) + lo

    def _closed(self, base_lr, e):
        lo = self.eta_min
        return lo + (base_lr - lo) * (1 + math.cos(math.pi * e / self.T_max)) / 2


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every period; periods start at ``T_0`` and grow by ``T_mult``.

    ``step(epoch)`` accepts fractional epochs (e.g. ``epoch + batch / n_batches``) without warning.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = ember.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
        >>> [round(sched.get_last_lr()[0], 6) for _ in range(3) if (opt.step(), sched.step())]
        [0.5, 1.0, 0.5]
    """

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        _warn_get_lr_outside_step(self)
        lo = self.eta_min
        wave = (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
        return [lo + (base - lo) * wave for base in self.base_lrs]

    def _locate(self, epoch) -> None:
        """Set ``T_i`` (current period) and ``T_cur`` (position in it) for an absolute epoch."""
        if epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_i, self.T_cur = self.T_0, epoch % self.T_0
        else:
            # periods T_0 * m**k end at T_0 * (m**(n) - 1) / (m - 1): invert for the period index n
            m = self.T_mult
            n = int(math.log(epoch / self.T_0 * (m - 1) + 1, m))
            self.T_cur = epoch - self.T_0 * (m ** n - 1) / (m - 1)
            self.T_i = self.T_0 * m ** n

    def step(self, epoch=None) -> None:
        """Advance one epoch, or go to ``epoch`` (may be fractional)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                # a period ended (modulo, not subtraction: torch does so when resuming far ahead)
                self.T_cur %= self.T_i
                self.T_i *= self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            self._locate(epoch)
        self.last_epoch = math.floor(epoch)
        self._set_lrs(self._call_get_lr(self.get_lr))

    def _step_to(self, epoch) -> None:
        self.step(epoch)
