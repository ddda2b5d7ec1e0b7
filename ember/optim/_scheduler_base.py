"""``LRScheduler``: the machinery all lr schedulers share (public names live in ``lr_scheduler``).

A scheduler owns ``last_epoch`` (how many times it has stepped), ``base_lrs`` (each group's
``initial_lr``) and ``_last_lr``. Its ``step()`` advances ``last_epoch``, asks ``get_lr()`` for the
new per-group rates and writes them into the optimizer (a tensor ``lr`` is filled in place). The
constructor performs one such step, which is why a fresh scheduler is already at epoch 0.

Example:
    >>> import ember
    >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
    >>> class Halve(ember.optim.lr_scheduler.LRScheduler):
    ...     def get_lr(self):
    ...         return [base * 0.5 ** self.last_epoch for base in self.base_lrs]
    >>> sched = Halve(opt)
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.5]
"""
from __future__ import annotations

import types
import warnings
import weakref
from typing import Any

from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["LRScheduler", "_LRScheduler", "_format_param"]

# user-visible texts are torch's, so logs and warning filters written for torch keep working
_MSG_EPOCH_DEPRECATED = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch "
    "is different from None, the closed form is used instead of the new chainable form, where "
    "available. Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose.")
_MSG_SCHEDULER_FIRST = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, "
    "you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  "
    "Failure to do this will result in PyTorch skipping the first value of the learning rate "
    "schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")
_MSG_STEP_REPLACED = (
    "Seems like `optimizer.step()` has been overridden after learning rate scheduler initialization. "
    "Please, make sure to call `optimizer.step()` before `lr_scheduler.step()`. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate")
_MSG_GET_LR = "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."
_MSG_NO_INITIAL_LR = (
    "param 'initial_lr' is not specified in param_groups[{}] when resuming scheduler with "
    "last_epoch >= 0.\nThis typically happens when:\n1. You're trying to resume training from a "
    "checkpoint but haven't properly loaded the optimizer state\n2. You're using last_epoch >= 0 for "
    "a fresh training run (not recommended)")

# optimizer -> number of completed ``step`` calls since a scheduler first watched it. Kept outside
# both objects so neither's pickled/saved state changes; counted by an optimizer step post-hook.
_optimizer_steps: "weakref.WeakKeyDictionary[Optimizer, int]" = weakref.WeakKeyDictionary()


def _count_optimizer_step(optimizer, args, kwargs) -> None:
    _optimizer_steps[optimizer] = _optimizer_steps.get(optimizer, 0) + 1


def _watch_optimizer(optimizer: Optimizer) -> None:
    if optimizer not in _optimizer_steps:
        _optimizer_steps[optimizer] = 0
        optimizer.register_step_post_hook(_count_optimizer_step)


def _format_param(name: str, optimizer: Optimizer, param) -> list:
    """One value per param group: a list/tuple is checked for length, a scalar is repeated."""
    n = len(optimizer.param_groups)
    if isinstance(param, (list, tuple)):
        if len(param) != n:
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has "
                             f"{len(param)} values, param_groups has {n}.")
        return list(param)
    return [param] * n


def _warn_get_lr_outside_step(scheduler) -> None:
    if not scheduler._get_lr_called_within_step:
        warnings.warn(_MSG_GET_LR, UserWarning, stacklevel=3)


def _snapshot(lr):
    return lr.clone() if isinstance(lr, Tensor) else lr


def _write_lr(group: dict, lr) -> None:
    """Store ``lr`` in a group; a tensor lr keeps its identity (captured graphs may hold it)."""
    cur = group["lr"]
    if isinstance(cur, Tensor):
        cur.fill_(lr.item() if isinstance(lr, Tensor) else lr)
    else:
        group["lr"] = lr


def _callables_state(fns: list) -> list:
    """Saved form of user callables: plain functions/lambdas can't be saved (None), objects give their
    ``__dict__``."""
    return [None if isinstance(f, types.FunctionType) else dict(f.__dict__) for f in fns]


def _restore_callables(fns: list, saved: list) -> None:
    for f, st in zip(fns, saved):
        if st is not None:
            f.__dict__.update(st)


class LRScheduler:
    """Base class of the schedulers: subclasses implement ``get_lr()`` (rates for ``self.last_epoch``).

    Args:
        optimizer: the wrapped optimizer.
        last_epoch: index of the last epoch done; ``-1`` starts fresh, other values resume and need
            ``initial_lr`` in every param group (as a loaded optimizer state provides).
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        self.base_lrs = self._initial_lrs(last_epoch)
        self.last_epoch = last_epoch
        _watch_optimizer(optimizer)
        self._initial_step()

    def _initial_lrs(self, last_epoch: int) -> list:
        """Each group's ``initial_lr``, recorded now on a fresh start (a tensor lr is copied)."""
        groups = self.optimizer.param_groups
        if last_epoch == -1:
            for g in groups:
                if "initial_lr" not in g:
                    g["initial_lr"] = _snapshot(g["lr"])
        else:
            for i, g in enumerate(groups):
                if "initial_lr" not in g:
                    raise KeyError(_MSG_NO_INITIAL_LR.format(i))
        return [g["initial_lr"] for g in groups]

    def _initial_step(self) -> None:
        """The step every constructor makes, moving ``last_epoch`` from -1 to 0 (or resuming)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    # ------------------------------------------------------------------ public API
    def get_last_lr(self) -> list:
        """The learning rates the last ``step()`` set, one per param group."""
        return self._last_lr

    def get_lr(self) -> list:
        """Learning rates for ``self.last_epoch``, one per param group (called by ``step``)."""
        raise NotImplementedError

    def step(self, epoch=None) -> None:
        """Advance one epoch (``epoch`` jumps to that epoch instead; deprecated) and set the new lrs."""
        self._warn_if_out_of_order()
        self._step_count += 1
        if epoch is None:
            self.last_epoch += 1
            lrs = self._call_get_lr(self.get_lr)
        else:
            warnings.warn(_MSG_EPOCH_DEPRECATED, UserWarning, stacklevel=2)
            self.last_epoch = epoch
            lrs = self._call_get_lr(self._lrs_for_jump)
        self._set_lrs(lrs)

    def _step_to(self, epoch) -> None:
        """``step(epoch)`` without the deprecation warning (used when SequentialLR restarts a phase)."""
        self._step_count += 1
        self.last_epoch = epoch
        self._set_lrs(self._call_get_lr(self._lrs_for_jump))

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer, under torch's keys (so torch checkpoints load)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore a ``state_dict()``."""
        self.__dict__.update(state_dict)

    # ------------------------------------------------------------------ helpers
    def _call_get_lr(self, fn) -> list:
        self._get_lr_called_within_step = True
        try:
            return list(fn())
        finally:
            self._get_lr_called_within_step = False

    def _lrs_for_jump(self) -> list:
        # a direct jump to ``last_epoch`` needs the closed form where the schedule has one
        closed = getattr(self, "_get_closed_form_lr", None)
        return closed() if closed is not None else self.get_lr()

    def _set_lrs(self, lrs) -> None:
        groups = self.optimizer.param_groups
        for g, lr in zip(groups, lrs):
            _write_lr(g, lr)
        self._last_lr = [_snapshot(g["lr"]) for g in groups]

    def _warn_if_out_of_order(self) -> None:
        # only the first user call (the constructor's step is number 0) can detect the wrong order
        if self._step_count != 1:
            return
        if not getattr(self.optimizer.step, "hooked", False):
            warnings.warn(_MSG_STEP_REPLACED, UserWarning, stacklevel=3)
        elif _optimizer_steps.get(self.optimizer, 0) == 0:
            warnings.warn(_MSG_SCHEDULER_FIRST, UserWarning, stacklevel=3)


class _LRScheduler(LRScheduler):
    """Old name of ``LRScheduler``, kept for code subclassing it."""
