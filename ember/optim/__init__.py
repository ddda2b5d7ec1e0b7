"""ember.optim: optimizers with torch's API (SGD, Adam, AdamW).

Example:
    >>> import ember
    >>> w = ember.zeros(2, requires_grad=True)
    >>> opt = ember.optim.SGD([w], lr=0.5)
    >>> (w - ember.tensor([1.0, 2.0])).pow(2).sum().backward()
    >>> opt.step(); w
    tensor([1., 2.], requires_grad=True)
"""
from __future__ import annotations

from . import adam, adamw, optimizer, sgd  # noqa: F401  (torch.optim.adam etc. are modules too)
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]
