"""Schedulers made of schedulers: ``ChainedScheduler`` (all at once) and ``SequentialLR`` (one after
another)."""
from __future__ import annotations

from bisect import bisect_right
from typing import Any, Sequence

from ._plateau import ReduceLROnPlateau
from ._scheduler_base import LRScheduler
from .optimizer import Optimizer

__all__ = ["ChainedScheduler", "SequentialLR"]


def _check_members(owner: str, schedulers, optimizer) -> None:
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires "
                             "additional kwargs to be specified when calling `step`, but got one at "
                             f"index {i} in the given schedulers sequence.")
        if s.optimizer is not optimizer:
            raise ValueError(f"{owner} expects all schedulers to belong to the same optimizer, but got "
                             f"scheduler {s.__class__.__name__} at index {i} has {s.optimizer}, which "
                             f"is different from {optimizer.__class__.__name__}.")


class _Composite(LRScheduler):
    """Saves each member's state under ``_schedulers`` instead of the member objects."""

    def state_dict(self) -> dict[str, Any]:
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        sd["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return sd

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        state_dict = dict(state_dict)
        members = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for s, sd in zip(self._schedulers, members):
            s.load_state_dict(sd)


class ChainedScheduler(_Composite):
    """Step several schedulers of one optimizer together, so their (chainable) effects multiply.

    Example:
        >>> import ember
        >>> S = ember.optim.lr_scheduler
        >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=2),
        ...                             S.ExponentialLR(opt, gamma=0.5)])
        >>> [(opt.step(), sched.step(), sched.get_last_lr()[0])[2] for _ in range(3)]
        [0.25, 0.25, 0.125]
    """

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Optimizer | None = None) -> None:
        if len(schedulers) < 1:
            raise ValueError(f"{self.__class__.__name__} expects at least one scheduler to be chained, "
                             "but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_members(self.__class__.__name__, schedulers, optimizer)
        self._schedulers = list(schedulers)
        self.optimizer = optimizer
        self._last_lr = [g["lr"] for g in self._schedulers[-1].optimizer.param_groups]

    def step(self) -> None:
        """Step every member scheduler, in order."""
        for s in self._schedulers:
            s.step()
        self._last_lr = [g["lr"] for g in self._schedulers[-1].optimizer.param_groups]


class SequentialLR(_Composite):
    """Hand the optimizer to ``schedulers[k]`` from epoch ``milestones[k-1]`` on, restarting it at 0.

    Example:
        >>> import ember
        >>> S = ember.optim.lr_scheduler
        >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = S.SequentialLR(opt, [S.ConstantLR(opt, factor=0.1, total_iters=2),
        ...                              S.ExponentialLR(opt, gamma=0.5)], milestones=[2])
        >>> [(opt.step(), sched.step(), sched.get_last_lr()[0])[2] for _ in range(3)]
        [0.1, 1.0, 0.5]
    """

    def __init__(self, optimizer: Optimizer, schedulers: list[LRScheduler], milestones: list[int],
                 last_epoch: int = -1) -> None:
        name = self.__class__.__name__
        if len(schedulers) < 1:
            raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
        _check_members(name, schedulers, optimizer)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more "
                             "than the number of milestone points, but got number of schedulers "
                             f"{len(schedulers)} and the number of milestones to be equal to "
                             f"{len(milestones)}")
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # every member already took its constructor step; undo them and start the first phase anew
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        for s in self._schedulers:
            s.last_epoch -= 1
        self._schedulers[0]._initial_step()
        self._last_lr = self._schedulers[0].get_last_lr()

    def step(self) -> None:
        """Advance one epoch in the phase the new epoch falls in."""
        self.last_epoch += 1
        k = bisect_right(self._milestones, self.last_epoch)
        current = self._schedulers[k]
        if k > 0 and self._milestones[k - 1] == self.last_epoch:
            restart = getattr(current, "_step_to", None)
            current.step(0) if restart is None else restart(0)
        else:
            current.step()
        self._last_lr = current.get_last_lr()
