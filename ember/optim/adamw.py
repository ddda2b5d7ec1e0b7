"""AdamW: Adam with decoupled weight decay (``p *= 1 - lr * weight_decay`` before the Adam step).

Example:
    >>> import ember
    >>> w = ember.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = ember.optim.AdamW([w], lr=0.1, weight_decay=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> w
    tensor([ 0.8900, -1.8800], requires_grad=True)
"""
from __future__ import annotations

from .adam import Adam, adam

__all__ = ["AdamW", "adamw"]


class AdamW(Adam):
    """Adam with decoupled weight decay (default ``weight_decay=1e-2``); see ``Adam`` for the args."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        # an AdamW always decays decoupled, whatever the loaded state says
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


def adamw(params: list, grads: list, exp_avgs: list, exp_avg_sqs: list, max_exp_avg_sqs: list,
          state_steps: list, foreach: bool | None = None, capturable: bool = False,
          differentiable: bool = False, fused: bool | None = None, grad_scale=None, found_inf=None,
          has_complex: bool = False, *, amsgrad: bool, beta1: float, beta2: float, lr: float,
          weight_decay: float, eps: float, maximize: bool) -> None:
    """Functional AdamW (``adam`` with ``decoupled_weight_decay=True``)."""
    adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=foreach,
         capturable=capturable, differentiable=differentiable, fused=fused, grad_scale=grad_scale,
         found_inf=found_inf, has_complex=has_complex, decoupled_weight_decay=True, amsgrad=amsgrad,
         beta1=beta1, beta2=beta2, lr=lr, weight_decay=weight_decay, eps=eps, maximize=maximize)
