"""Cyclical schedules: ``CyclicLR`` and ``OneCycleLR``, which also cycle momentum (or Adam's beta1)
inversely to the learning rate.
"""
from __future__ import annotations

import math
from typing import Any, Callable

from ._scheduler_base import (LRScheduler, _callables_state, _format_param, _restore_callables,
                              _warn_get_lr_outside_step, _write_lr)
from .optimizer import Optimizer

__all__ = ["CyclicLR", "OneCycleLR"]


def _check_momentum_support(optimizer: Optimizer) -> bool:
    """True if the optimizer has Adam-style ``betas`` (cycle beta1), False for ``momentum``."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    return "betas" in optimizer.defaults


def _set_momentum(group: dict, value, use_beta1: bool) -> None:
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


def _seed_momentum_groups(optimizer, use_beta1, max_moms, base_moms) -> None:
    """Fresh start: momentum begins at its maximum; both bounds are kept in each group."""
    for group, hi, lo in zip(optimizer.param_groups, max_moms, base_moms):
        _set_momentum(group, hi, use_beta1)
        group["max_momentum"] = hi
        group["base_momentum"] = lo


class CyclicLR(LRScheduler):
    """Cycle the lr between ``base_lr`` and ``max_lr`` (triangular waves), stepping once per batch.

    Modes: ``'triangular'`` (constant amplitude), ``'triangular2'`` (amplitude halves every cycle),
    ``'exp_range'`` (amplitude scaled by ``gamma ** iteration``), or a custom ``scale_fn``.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
        >>> sched = ember.optim.lr_scheduler.CyclicLR(opt, base_lr=0.1, max_lr=0.5, step_size_up=2)
        >>> [round((opt.step(), sched.step(), sched.get_last_lr()[0])[2], 6) for _ in range(4)]
        [0.3, 0.5, 0.3, 0.1]
    """

    def __init__(self, optimizer: Optimizer, base_lr, max_lr, step_size_up: int = 2000,
                 step_size_down: int | None = None, mode: str = "triangular", gamma: float = 1.0,
                 scale_fn: Callable | None = None, scale_mode: str = "cycle", cycle_momentum: bool = True,
                 base_momentum: float = 0.8, max_momentum: float = 0.9, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for group, lr in zip(optimizer.param_groups, base_lrs):
                _write_lr(group, lr)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode if scale_fn is not None else (
            "iterations" if mode == "exp_range" else "cycle")
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _check_momentum_support(optimizer)
            self.base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            self.max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                _seed_momentum_groups(optimizer, self.use_beta1, self.max_momentums, self.base_momentums)
        self._cyclic_base_lrs = base_lrs
        super().__init__(optimizer, last_epoch)

    def _initial_lrs(self, last_epoch: int) -> list:
        super()._initial_lrs(last_epoch)  # records/validates initial_lr like every scheduler
        return self.__dict__.pop("_cyclic_base_lrs")

    def scale_fn(self, x) -> float:
        """Amplitude multiplier for cycle number (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        if self.mode == "exp_range":
            return self.gamma ** x
        return 1.0

    def _position(self):
        """(fraction of the way up the current half-wave, in [0, 1]; amplitude scale)."""
        e = self.last_epoch
        cycle = math.floor(1 + e / self.total_size)
        x = 1.0 + e / self.total_size - cycle  # position within the cycle, [0, 1)
        height = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else e)
        return height, scale

    def get_lr(self) -> list:
        _warn_get_lr_outside_step(self)
        height, scale = self._position()
        lrs = [lo + (hi - lo) * height * scale for lo, hi in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, lo, hi in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                _set_momentum(group, hi - (hi - lo) * height * scale, self.use_beta1)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        sd = super().state_dict()
        # a custom scale_fn object is saved by its attributes; plain functions can't be (None)
        fn = self._scale_fn_custom
        sd["_scale_fn_custom"] = None if fn is None else _callables_state([fn])[0]
        return sd

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state_dict = dict(state_dict)
        fn_state = state_dict.pop("_scale_fn_custom", None)
        state_dict.pop("_scale_fn_ref", None)
        super().load_state_dict(state_dict)
        if fn_state is not None and self._scale_fn_custom is not None:
            _restore_callables([self._scale_fn_custom], [fn_state])


def _cos_anneal(start, end, pct):
    return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)


def _linear_anneal(start, end, pct):
    return (end - start) * pct + start


def _positive_int(name, value) -> None:
    if value <= 0 or not isinstance(value, int):
        raise ValueError(f"Expected positive integer {name}, but got {value}")


class OneCycleLR(LRScheduler):
    """The 1cycle policy: warm the lr up to ``max_lr``, then anneal it far below the start.

    The lr starts at ``max_lr / div_factor``, rises for ``pct_start`` of ``total_steps`` (or
    ``epochs * steps_per_epoch``) and falls to ``initial_lr / final_div_factor``; with
    ``three_phase`` it first falls back to the start, then to the minimum. Step once per batch.

    Example:
        >>> import ember
        >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
        >>> sched = ember.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=5,
        ...                                             anneal_strategy="linear")
        >>> [round(sched.get_last_lr()[0], 4) for _ in range(4) if (opt.step(), sched.step())]
        [0.8571, 0.5714, 0.2857, 0.0]
    """

    def __init__(self, optimizer: Optimizer, max_lr, total_steps: int | None = None,
                 epochs: int | None = None, steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True, base_momentum=0.85,
                 max_momentum=0.95, div_factor: float = 25.0, final_div_factor: float = 1e4,
                 three_phase: bool = False, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if total_steps is not None:
            _positive_int("total_steps", total_steps)
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            _positive_int("epochs", epochs)
            _positive_int("steps_per_epoch", steps_per_epoch)
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._schedule_phases = self._phases(pct_start, three_phase)
        self._anneal_func_type = anneal_strategy

        if last_epoch == -1:
            for group, peak in zip(optimizer.param_groups, _format_param("max_lr", optimizer, max_lr)):
                start = peak / div_factor
                group["initial_lr"] = start
                group["max_lr"] = peak
                group["min_lr"] = start / final_div_factor

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _check_momentum_support(optimizer)
            if last_epoch == -1:
                _seed_momentum_groups(optimizer, self.use_beta1,
                                      _format_param("max_momentum", optimizer, max_momentum),
                                      _format_param("base_momentum", optimizer, base_momentum))
        super().__init__(optimizer, last_epoch)

    def _phases(self, pct_start: float, three_phase: bool) -> list[dict]:
        """Phase table (torch's saved format): each phase ends at ``end_step`` and interpolates the
        group entries named by ``start_lr``/``end_lr`` (and the momentum pair)."""
        def phase(end, lr_from, lr_to, mom_from, mom_to):
            return {"end_step": end, "start_lr": lr_from, "end_lr": lr_to,
                    "start_momentum": mom_from, "end_momentum": mom_to}
        n = self.total_steps
        warm_end = float(pct_start * n) - 1
        if three_phase:
            return [phase(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                    phase(float(2 * pct_start * n) - 2, "max_lr", "initial_lr", "base_momentum",
                          "max_momentum"),
                    phase(n - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        return [phase(warm_end, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                phase(n - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]

    def _anneal(self, start, end, pct):
        return (_cos_anneal if self._anneal_func_type == "cos" else _linear_anneal)(start, end, pct)

    def get_lr(self) -> list:
        _warn_get_lr_outside_step(self)
        t = self.last_epoch
        if t > self.total_steps:
            raise ValueError(f"Tried to step {t} times. The specified number of total steps is "
                             f"{self.total_steps}")
        # the phase holding step t (the last one also takes anything beyond its end)
        phases = self._schedule_phases
        begin = 0
        for k, ph in enumerate(phases):
            if t <= ph["end_step"] or k == len(phases) - 1:
                break
            begin = ph["end_step"]
        pct = (t - begin) / (ph["end_step"] - begin)
        lrs = []
        for group in self.optimizer.param_groups:
            lrs.append(self._anneal(group[ph["start_lr"]], group[ph["end_lr"]], pct))
            if self.cycle_momentum:
                mom = self._anneal(group[ph["start_momentum"]], group[ph["end_momentum"]], pct)
                _set_momentum(group, mom, self.use_beta1)
        return lrs
