"""Rprop: per-element step sizes grown or shrunk by the sign agreement of successive gradients.

Example:
    >>> import ember
    >>> w = ember.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = ember.optim.Rprop([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> w
    tensor([ 0.9000, -1.9000], requires_grad=True)
"""
from __future__ import annotations

from .. import _creation as C
from .._tensor import Tensor
from .._tensor_methods import foreach as F
from .._tensor_methods.pointwise import where as _where
from .adam import _as_real, _same
from .optimizer import Optimizer, _get_value, _step_tensor, _to_scalar

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Resilient backpropagation (Riedmiller & Braun 1993).

    Args:
        params: parameters or param groups. lr: initial step size (default 1e-2).
        etas: (etaminus, etaplus) shrink and growth factors. step_sizes: (min, max) step size.
        capturable, foreach, maximize, differentiable: as in torch.
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False,
                 foreach=None, maximize=False, differentiable=False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    _GROUP_DEFAULTS = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("capturable", False))
    _TENSOR_STEPS = ("step",)

    def _init_state(self, p: Tensor, state: dict, group: dict) -> None:
        state["step"] = _step_tensor()
        state["prev"] = C.zeros_like(p)
        lr = _get_value(_to_scalar(group["lr"]))
        state["step_size"] = C.full_like(p, complex(lr, lr) if p.is_complex() else lr)

    @staticmethod
    def _one(p, grad, prev, step_size, etaminus, etaplus, lo, hi) -> None:
        prod = grad.mul(prev)
        # torch writes etaplus / etaminus / 1 by the sign of grad * prev
        factor = _where(prod.gt(0), etaplus, _where(prod.lt(0), etaminus, C.ones_like(prod)))
        step_size.mul_(factor).clamp_(lo, hi)
        grad = _where(prod.lt(0), 0.0, grad)
        p.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)

    def _update(self, p: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        etaminus, etaplus = group["etas"]
        lo, hi = group["step_sizes"]
        if group["maximize"]:
            grad = -grad
        step_t = state["step"]
        step_t.fill_(_get_value(step_t) + 1)
        real = _as_real if p.is_complex() else _same
        self._one(real(p), real(grad), real(state["prev"]), real(state["step_size"]),
                  etaminus, etaplus, lo, hi)

    def _update_foreach(self, params: list, grads: list, states: list, group: dict) -> None:
        # the sign logic has no foreach form: one fused pass per tensor, the counters in one op
        F._foreach_add_([st["step"] for st in states], 1)
        etaminus, etaplus = group["etas"]
        lo, hi = group["step_sizes"]
        for p, g, st in zip(params, grads, states):
            if group["maximize"]:
                g = -g
            real = _as_real if p.is_complex() else _same
            self._one(real(p), real(g), real(st["prev"]), real(st["step_size"]), etaminus, etaplus,
                      lo, hi)

