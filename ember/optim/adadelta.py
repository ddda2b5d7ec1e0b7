"""Adadelta: step sizes from running averages of squared gradients and squared updates.

Example:
    >>> import ember
    >>> w = ember.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = ember.optim.Adadelta([w])
    >>> (w * w).sum().backward(); opt.step()
    >>> sorted(opt.state[w])
    ['acc_delta', 'square_avg', 'step']
"""
from __future__ import annotations

from .. import _creation as C
from .._tensor import Tensor
from .._tensor_methods import foreach as F
from .adam import _as_real, _same
from .optimizer import Optimizer, _get_value, _step_tensor, _to_scalar
from .sgd import _by_dtype

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta (Zeiler 2012).

    Args:
        params: parameters or param groups. lr: scale of the delta (default 1.0, float or 1-element
        tensor). rho: running-average coefficient. eps: added inside the square roots.
        weight_decay: L2 penalty. foreach, capturable, maximize, differentiable: as in torch.
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "capturable": capturable, "foreach": foreach,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    _GROUP_DEFAULTS = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("capturable", False))
    _TENSOR_STEPS = ("step",)

    def _init_state(self, p: Tensor, state: dict, group: dict) -> None:
        state["step"] = _step_tensor()
        state["square_avg"] = C.zeros_like(p)
        state["acc_delta"] = C.zeros_like(p)

    def _update(self, p: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        lr, rho, eps, wd = (_get_value(_to_scalar(group["lr"])), group["rho"], group["eps"],
                            group["weight_decay"])
        square_avg, acc_delta, step_t = state["square_avg"], state["acc_delta"], state["step"]
        step_t.fill_(_get_value(step_t) + 1)
        if group["maximize"]:
            grad = -grad
        if wd != 0:
            grad = grad.add(p, alpha=wd)
        if p.is_complex():
            p, grad = _as_real(p), _as_real(grad)
            square_avg, acc_delta = _as_real(square_avg), _as_real(acc_delta)
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        p.add_(delta, alpha=-lr)

    def _update_foreach(self, params: list, grads: list, states: list, group: dict) -> None:
        lr, rho, eps, wd = (_get_value(_to_scalar(group["lr"])), group["rho"], group["eps"],
                            group["weight_decay"])
        for idx in _by_dtype(params):
            sts = [states[i] for i in idx]
            real = _as_real if params[idx[0]].is_complex() else _same
            ps, gs = [real(params[i]) for i in idx], [real(grads[i]) for i in idx]
            sqs = [real(st["square_avg"]) for st in sts]
            accs = [real(st["acc_delta"]) for st in sts]
            F._foreach_add_([st["step"] for st in sts], 1)
            if group["maximize"]:
                gs = F._foreach_neg(gs)
            if wd != 0:
                if group["maximize"]:
                    F._foreach_add_(gs, ps, alpha=wd)
                else:
                    gs = F._foreach_add(gs, ps, alpha=wd)
            F._foreach_mul_(sqs, rho)
            F._foreach_addcmul_(sqs, gs, gs, 1 - rho)
            std = F._foreach_add(sqs, eps)
            F._foreach_sqrt_(std)
            deltas = F._foreach_add(accs, eps)
            F._foreach_sqrt_(deltas)
            F._foreach_div_(deltas, std)
            F._foreach_mul_(deltas, gs)
            F._foreach_mul_(accs, rho)
            F._foreach_addcmul_(accs, deltas, deltas, 1 - rho)
            F._foreach_add_(ps, deltas, alpha=-lr)
