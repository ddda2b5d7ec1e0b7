"""RAdam: Adam with a rectified adaptive learning rate (plain momentum SGD while the variance
estimate is unreliable), torch's update step for step.

Example:
    >>> import ember
    >>> w = ember.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = ember.optim.RAdam([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> w
    tensor([ 0.8000, -1.6000], requires_grad=True)
"""
from __future__ import annotations

from .. import _creation as C
from .._tensor import Tensor
from .._tensor_methods import foreach as F
from .adam import _as_real, _same, _foreach_moments
from .nadam import _check_adam_args
from .optimizer import Optimizer, _get_value, _step_tensor, _to_scalar
from .sgd import _by_dtype

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """RAdam (Liu et al. 2019).

    Args:
        params: parameters or param groups. lr: learning rate (default 1e-3, float or 1-element tensor).
        betas, eps, weight_decay: as in Adam. decoupled_weight_decay: decay the weights directly.
        foreach, maximize, capturable, differentiable: as in torch.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False) -> None:
        _check_adam_args(lr, eps, betas, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay, "differentiable": differentiable}
        super().__init__(params, defaults)

    _GROUP_DEFAULTS = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("decoupled_weight_decay", False), ("capturable", False))
    _TENSOR_STEPS = ("step",)

    def _init_state(self, p: Tensor, state: dict, group: dict) -> None:
        state["step"] = _step_tensor()
        state["exp_avg"] = C.zeros_like(p)
        state["exp_avg_sq"] = C.zeros_like(p)

    @staticmethod
    def _factors(step: float, beta1: float, beta2: float):
        """(1 / bias_correction1, rectified adaptive factor or None) for this step."""
        bc1, bc2 = 1 - beta1 ** step, 1 - beta2 ** step
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * beta2 ** step / bc2
        if rho_t <= 5.0:
            return bc1, None, bc2
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        return bc1, rect, bc2

    def _update(self, p: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        beta1, beta2 = group["betas"]
        lr, wd, eps = _get_value(_to_scalar(group["lr"])), group["weight_decay"], group["eps"]
        if group["maximize"]:
            grad = -grad
        exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
        if p.is_complex():
            p, grad, exp_avg, exp_avg_sq = (_as_real(t) for t in (p, grad, exp_avg, exp_avg_sq))
        step = _get_value(step_t) + 1
        step_t.fill_(step)
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bc1, rect, bc2 = self._factors(step, beta1, beta2)
        if rect is None:
            p.add_(exp_avg, alpha=-lr / bc1)
        else:
            denom = exp_avg_sq.sqrt().add_(eps)
            p.addcdiv_(exp_avg, denom, value=-lr * rect * bc2 ** 0.5 / bc1)

    def _update_foreach(self, params: list, grads: list, states: list, group: dict) -> None:
        beta1, beta2 = group["betas"]
        lr, wd, eps = _get_value(_to_scalar(group["lr"])), group["weight_decay"], group["eps"]
        for idx in _by_dtype(params):
            sts = [states[i] for i in idx]
            real = _as_real if params[idx[0]].is_complex() else _same
            ps, gs = [real(params[i]) for i in idx], [real(grads[i]) for i in idx]
            avgs = [real(st["exp_avg"]) for st in sts]
            sqs = [real(st["exp_avg_sq"]) for st in sts]
            steps = [st["step"] for st in sts]
            gs = _foreach_moments(ps, gs, avgs, sqs, steps, group, lr, wd, beta1, beta2)
            facs = [self._factors(_get_value(s), beta1, beta2) for s in steps]
            plain = [j for j, f in enumerate(facs) if f[1] is None]
            rect = [j for j, f in enumerate(facs) if f[1] is not None]
            if plain:
                F._foreach_add_([ps[j] for j in plain],
                                F._foreach_mul([avgs[j] for j in plain],
                                               [-lr / facs[j][0] for j in plain]))
            if rect:
                denom = F._foreach_sqrt([sqs[j] for j in rect])
                F._foreach_add_(denom, eps)
                F._foreach_addcdiv_([ps[j] for j in rect], [avgs[j] for j in rect], denom,
                                    [-lr * facs[j][1] * facs[j][2] ** 0.5 / facs[j][0] for j in rect])
