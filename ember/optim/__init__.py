"""ember.optim: optimizers, learning-rate schedulers and weight averaging with torch's API.

Example:
    >>> import ember
    >>> w = ember.zeros(2, requires_grad=True)
    >>> opt = ember.optim.SGD([w], lr=0.5)
    >>> (w - ember.tensor([1.0, 2.0])).pow(2).sum().backward()
    >>> opt.step(); w
    tensor([1., 2.], requires_grad=True)
"""
from __future__ import annotations

# torch.optim.adam, torch.optim.lr_scheduler etc. are modules too
from . import (adadelta, adagrad, adam, adamax, adamw, asgd, lbfgs, lr_scheduler,  # noqa: F401
               nadam, optimizer, radam, rmsprop, rprop, sgd, sparse_adam, swa_utils)
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD", "LBFGS", "NAdam", "Optimizer",
           "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam", "lr_scheduler", "swa_utils"]
