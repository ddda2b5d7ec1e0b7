"""NAdam: Adam with Nesterov momentum (and, with ``decoupled_weight_decay``, NAdamW), torch's update.

Example:
    >>> import ember
    >>> w = ember.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = ember.optim.NAdam([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> sorted(opt.state[w])
    ['exp_avg', 'exp_avg_sq', 'mu_product', 'step']
"""
from __future__ import annotations

from .. import _creation as C
from .._tensor import Tensor
from .._tensor_methods import foreach as F
from .adam import _as_real, _same, _foreach_moments
from .optimizer import Optimizer, _get_scalar_dtype, _get_value, _step_tensor, _to_scalar
from .sgd import _by_dtype

__all__ = ["NAdam"]


def _check_adam_args(lr, eps, betas, weight_decay) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class NAdam(Optimizer):
    """NAdam (Dozat 2016): Adam whose momentum term looks one step ahead.

    Args:
        params: parameters or param groups. lr: learning rate (default 2e-3, float or 1-element tensor).
        betas: running-average coefficients. eps: denominator term. weight_decay: L2 penalty.
        momentum_decay: the ``psi`` of the momentum schedule (default 4e-3).
        decoupled_weight_decay: decay the weights directly (NAdamW). foreach, maximize, capturable,
        differentiable: as in torch.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False) -> None:
        _check_adam_args(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _GROUP_DEFAULTS = (("maximize", False), ("foreach", None), ("capturable", False),
                       ("differentiable", False), ("decoupled_weight_decay", False))
    _TENSOR_STEPS = ("step", "mu_product")

    def _init_state(self, p: Tensor, state: dict, group: dict) -> None:
        state["step"] = _step_tensor()
        state["mu_product"] = C.tensor(1.0, dtype=_get_scalar_dtype())
        state["exp_avg"] = C.zeros_like(p)
        state["exp_avg_sq"] = C.zeros_like(p)

    def _update(self, p: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        beta1, beta2 = group["betas"]
        lr, wd, eps = _get_value(_to_scalar(group["lr"])), group["weight_decay"], group["eps"]
        md = group["momentum_decay"]
        if group["maximize"]:
            grad = -grad
        exp_avg, exp_avg_sq, mu_product, step_t = (state["exp_avg"], state["exp_avg_sq"],
                                                   state["mu_product"], state["step"])
        if p.is_complex():
            p, grad, exp_avg, exp_avg_sq = (_as_real(t) for t in (p, grad, exp_avg, exp_avg_sq))
        step = _get_value(step_t) + 1
        step_t.fill_(step)
        bias_correction2 = 1 - beta2 ** step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * md))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * md))
        # mu_product is a float32 0-d tensor in torch: the product rounds there every step
        mu_product.mul_(mu)
        mu_prod = _get_value(mu_product)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt_().add_(eps)
        p.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_prod))
        p.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - mu_prod * mu_next))

    def _update_foreach(self, params: list, grads: list, states: list, group: dict) -> None:
        beta1, beta2 = group["betas"]
        lr, wd, eps = _get_value(_to_scalar(group["lr"])), group["weight_decay"], group["eps"]
        md = group["momentum_decay"]
        for idx in _by_dtype(params):
            sts = [states[i] for i in idx]
            real = _as_real if params[idx[0]].is_complex() else _same
            ps, gs = [real(params[i]) for i in idx], [real(grads[i]) for i in idx]
            avgs = [real(st["exp_avg"]) for st in sts]
            sqs = [real(st["exp_avg_sq"]) for st in sts]
            steps, mu_prods = [st["step"] for st in sts], [st["mu_product"] for st in sts]
            gs = _foreach_moments(ps, gs, avgs, sqs, steps, group, lr, wd, beta1, beta2)
            denom = F._foreach_sqrt(sqs)
            sv = [_get_value(s) for s in steps]
            mus = [beta1 * (1.0 - 0.5 * 0.96 ** (s * md)) for s in sv]
            mu_nexts = [beta1 * (1.0 - 0.5 * 0.96 ** ((s + 1) * md)) for s in sv]
            F._foreach_mul_(mu_prods, mus)
            F._foreach_div_(denom, [(1 - beta2 ** s) ** 0.5 for s in sv])
            F._foreach_add_(denom, eps)
            mps = [_get_value(m) for m in mu_prods]
            F._foreach_addcdiv_(ps, gs, denom, [lr * (1.0 - mu) / (1.0 - mp) * -1
                                                 for mp, mu in zip(mps, mus)])
            F._foreach_addcdiv_(ps, avgs, denom, [lr * mn / (1.0 - mp * mn) * -1
                                                   for mp, mn in zip(mps, mu_nexts)])
