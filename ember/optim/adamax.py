"""Adamax: Adam with the infinity norm in place of the second moment, torch's update.

Example:
    >>> import ember
    >>> w = ember.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = ember.optim.Adamax([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> w
    tensor([ 0.9000, -1.9000], requires_grad=True)
"""
from __future__ import annotations

from .. import _creation as C
from .._tensor import Tensor
from .._tensor_methods import foreach as F
from .._tensor_methods.pointwise import maximum as ember_maximum
from .adam import _as_real, _same
from .nadam import _check_adam_args
from .optimizer import Optimizer, _get_value, _step_tensor, _to_scalar
from .sgd import _by_dtype

__all__ = ["Adamax"]



class Adamax(Optimizer):
    """Adamax (Kingma & Ba 2014, section 7).

    Args:
        params: parameters or param groups. lr: learning rate (default 2e-3, float or 1-element tensor).
        betas, eps, weight_decay: as in Adam. foreach, maximize, differentiable, capturable: as in torch.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None,
                 *, maximize=False, differentiable=False, capturable=False) -> None:
        _check_adam_args(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    _GROUP_DEFAULTS = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("capturable", False))
    _TENSOR_STEPS = ("step",)

    def _init_state(self, p: Tensor, state: dict, group: dict) -> None:
        state["step"] = _step_tensor()
        state["exp_avg"] = C.zeros_like(p)
        state["exp_inf"] = C.zeros_like(p)

    def _update(self, p: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        beta1, beta2 = group["betas"]
        lr, wd, eps = _get_value(_to_scalar(group["lr"])), group["weight_decay"], group["eps"]
        if group["maximize"]:
            grad = -grad
        exp_avg, exp_inf, step_t = state["exp_avg"], state["exp_inf"], state["step"]
        step = _get_value(step_t) + 1
        step_t.fill_(step)
        if wd != 0:
            grad = grad.add(p, alpha=wd)
        if p.is_complex():
            p, grad, exp_avg, exp_inf = (_as_real(t) for t in (p, grad, exp_avg, exp_inf))
        exp_avg.lerp_(grad, 1 - beta1)
        ember_maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
        p.addcdiv_(exp_avg, exp_inf, value=-lr / (1 - beta1 ** step))

    def _update_foreach(self, params: list, grads: list, states: list, group: dict) -> None:
        beta1, beta2 = group["betas"]
        lr, wd, eps = _get_value(_to_scalar(group["lr"])), group["weight_decay"], group["eps"]
        for idx in _by_dtype(params):
            sts = [states[i] for i in idx]
            real = _as_real if params[idx[0]].is_complex() else _same
            ps, gs = [real(params[i]) for i in idx], [real(grads[i]) for i in idx]
            avgs = [real(st["exp_avg"]) for st in sts]
            infs = [real(st["exp_inf"]) for st in sts]
            steps = [st["step"] for st in sts]
            if group["maximize"]:
                gs = F._foreach_neg(gs)
            F._foreach_add_(steps, 1)
            if wd != 0:
                if group["maximize"]:
                    F._foreach_add_(gs, ps, alpha=wd)
                else:
                    gs = F._foreach_add(gs, ps, alpha=wd)
            F._foreach_lerp_(avgs, gs, 1 - beta1)
            F._foreach_mul_(infs, beta2)
            absg = F._foreach_abs(gs)
            F._foreach_add_(absg, eps)
            F._foreach_maximum_(infs, absg)
            F._foreach_addcdiv_(ps, avgs, infs, [-lr / (1 - beta1 ** _get_value(s)) for s in steps])
