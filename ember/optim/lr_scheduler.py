"""Learning-rate schedulers with torch's API (``torch.optim.lr_scheduler``).

Build a scheduler on an optimizer, then call ``scheduler.step()`` once per epoch (or per batch for
``CyclicLR``/``OneCycleLR``) after ``optimizer.step()``. ``state_dict()`` uses torch's keys, so
scheduler checkpoints saved by torch load here and vice versa.

Example:
    >>> import ember
    >>> opt = ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=1.0)
    >>> sched = ember.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.1)
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.1]
"""
from __future__ import annotations

from ._plateau import ReduceLROnPlateau
from ._scheduler_base import LRScheduler, _format_param, _LRScheduler  # noqa: F401
from ._schedulers_basic import (ConstantLR, CosineAnnealingLR, CosineAnnealingWarmRestarts, ExponentialLR,
                                LambdaLR, LinearLR, MultiplicativeLR, MultiStepLR, PolynomialLR, StepLR)
from ._schedulers_compose import ChainedScheduler, SequentialLR
from ._schedulers_cyclic import CyclicLR, OneCycleLR

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau",
           "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR", "LRScheduler"]

# pickles name the public module, so they survive moves between the private implementation files
for _cls in (LRScheduler, _LRScheduler, LambdaLR, MultiplicativeLR, StepLR, MultiStepLR, ConstantLR,
             LinearLR, ExponentialLR, SequentialLR, CosineAnnealingLR, ChainedScheduler, ReduceLROnPlateau,
             CyclicLR, CosineAnnealingWarmRestarts, OneCycleLR, PolynomialLR):
    _cls.__module__ = __name__
del _cls
