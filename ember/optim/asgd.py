"""ASGD: SGD with a decaying step size and a running (Polyak) average of the iterates in ``ax``.

Example:
    >>> import ember
    >>> w = ember.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = ember.optim.ASGD([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> sorted(opt.state[w])
    ['ax', 'eta', 'mu', 'step']
"""
from __future__ import annotations

import numpy as np

from .. import _creation as C
from .. import _dtype as D
from .._tensor import Tensor
from .._tensor_methods import foreach as F
from .adam import _as_real, _same
from .optimizer import Optimizer, _get_scalar_dtype, _get_value, _step_tensor, _to_scalar
from .sgd import _by_dtype

__all__ = ["ASGD"]


def _eta_from_step_tensor(step_t: Tensor, lr: float, lambd: float, alpha: float) -> float:
    """``lr / (1 + lambd * lr * step_t) ** alpha`` rounded as torch's foreach path computes it: in
    the step tensor's dtype, ``pow`` correctly rounded, and ``a / t`` as ``t.reciprocal() * a``."""
    dt = np.float32 if step_t.dtype is D.float32 else np.float64
    x = dt(1) + dt(_get_value(step_t)) * dt(lambd * lr)
    p = dt(np.float64(x) ** alpha)
    return float((dt(1) / p) * dt(lr))


class ASGD(Optimizer):
    """Averaged SGD (Polyak & Juditsky 1992).

    Args:
        params: parameters or param groups. lr: learning rate (default 1e-2, float or 1-element tensor).
        lambd: decay term. alpha: power of the eta update. t0: step at which averaging starts.
        weight_decay: L2 penalty. foreach, maximize, differentiable, capturable: as in torch.
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    _GROUP_DEFAULTS = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("capturable", False))
    _TENSOR_STEPS = ("step", "eta", "mu")

    def _init_state(self, p: Tensor, state: dict, group: dict) -> None:
        dt = _get_scalar_dtype()
        state["step"] = _step_tensor()
        state["eta"] = C.tensor(float(_get_value(_to_scalar(group["lr"]))), dtype=dt)
        state["mu"] = C.tensor(1.0, dtype=dt)
        state["ax"] = C.zeros_like(p)

    def _update(self, p: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        lr, lambd, alpha, t0 = (_get_value(_to_scalar(group["lr"])), group["lambd"], group["alpha"],
                                group["t0"])
        wd = group["weight_decay"]
        mu, ax, eta, step_t = state["mu"], state["ax"], state["eta"], state["step"]
        if group["maximize"]:
            grad = -grad
        if p.is_complex():
            grad, p, ax = _as_real(grad), _as_real(p), _as_real(ax)
        step = _get_value(step_t) + 1
        step_t.fill_(step)
        if wd != 0:
            grad = grad.add(p, alpha=wd)
        eta_value = _get_value(eta)
        p.mul_(1 - lambd * eta_value)
        p.add_(grad, alpha=-eta_value)
        mu_value = _get_value(mu)
        if mu_value != 1:
            ax.add_(p.sub(ax).mul_(mu_value))
        else:
            ax.copy_(p)
        # torch goes through as_tensor(float): the new values round to the default dtype first
        eta.copy_(C.tensor(lr / (1 + lambd * lr * step) ** alpha))
        mu.copy_(C.tensor(1 / max(1, step - t0)))

    def _update_foreach(self, params: list, grads: list, states: list, group: dict) -> None:
        lr, lambd, alpha, t0 = (_get_value(_to_scalar(group["lr"])), group["lambd"], group["alpha"],
                                group["t0"])
        wd = group["weight_decay"]
        for idx in _by_dtype(params):
            sts = [states[i] for i in idx]
            real = _as_real if params[idx[0]].is_complex() else _same
            ps, gs = [real(params[i]) for i in idx], [real(grads[i]) for i in idx]
            axs = [real(st["ax"]) for st in sts]
            etas, mus, steps = ([st[k] for st in sts] for k in ("eta", "mu", "step"))
            if group["maximize"]:
                gs = F._foreach_neg(gs)
            F._foreach_add_(steps, 1)
            if wd != 0:
                if group["maximize"]:
                    F._foreach_add_(gs, ps, alpha=wd)
                    inter = F._foreach_add(gs, ps, alpha=lambd)
                else:
                    inter = F._foreach_add(gs, ps, alpha=wd)
                    F._foreach_add_(inter, ps, alpha=lambd)
            else:
                inter = F._foreach_add(gs, ps, alpha=lambd)
            # torch: p -= eta * (g + lambd * p), eta a 0-d tensor of the scalar dtype
            F._foreach_addcmul_(ps, inter, [e.to(p.dtype) for e, p in zip(etas, ps)], -1)
            diff = F._foreach_sub(ps, axs)
            F._foreach_addcmul_(axs, diff, [m.to(p.dtype) for m, p in zip(mus, ps)])
            for e, m, s in zip(etas, mus, steps):
                e.fill_(_eta_from_step_tensor(s, lr, lambd, alpha))
                m.copy_(C.tensor(1 / max(1, _get_value(s) - t0)))
