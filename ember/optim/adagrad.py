"""Adagrad: per-element learning rates from the running sum of squared gradients, torch's update.

Example:
    >>> import ember
    >>> w = ember.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = ember.optim.Adagrad([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> w
    tensor([ 0.9000, -1.9000], requires_grad=True)
"""
from __future__ import annotations

from .. import _creation as C
from .. import _dtype as D
from .._tensor import Tensor
from .._tensor_methods import foreach as F
from . import _fused
from ._flat import flat_bucket
from .adam import _as_real, _same
from .optimizer import Optimizer, _get_scalar_dtype, _get_value, _to_scalar
from .sgd import _by_dtype

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (Duchi et al. 2011).

    Args:
        params: parameters or param groups. lr: learning rate (default 1e-2, float or 1-element tensor).
        lr_decay: the step size is ``lr / (1 + (step - 1) * lr_decay)``. weight_decay: L2 penalty.
        initial_accumulator_value: starting value of the sum of squares. eps: denominator term.
        foreach, maximize, differentiable, fused: as in torch (``fused``: the flat-buffer path).
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        for name, v in (("learning rate", lr), ("lr_decay value", lr_decay),
                        ("weight_decay value", weight_decay),
                        ("initial_accumulator_value value", initial_accumulator_value),
                        ("epsilon value", eps)):
            if not 0.0 <= v:
                raise ValueError(f"Invalid {name}: {v}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        self._flat_buckets: dict = {}
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
            self._step_supports_amp_scaling = True
        # torch fills the state of every parameter up front (so state_dict() lists them all)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, self.state[p], group)

    _GROUP_DEFAULTS = (("foreach", None), ("maximize", False), ("differentiable", False),
                       ("fused", None))
    _TENSOR_STEPS = ("step",)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._flat_buckets = {}

    def share_memory(self) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    def _init_state(self, p: Tensor, state: dict, group: dict) -> None:
        dt = D.float32 if group.get("fused") else _get_scalar_dtype()
        state["step"] = C.tensor(0.0, dtype=dt)
        v = self.defaults["initial_accumulator_value"]
        state["sum"] = C.full_like(p, complex(v, v) if p.is_complex() else v)

    def _update(self, p: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        lr, wd, eps = _get_value(_to_scalar(group["lr"])), group["weight_decay"], group["eps"]
        step_t, state_sum = state["step"], state["sum"]
        step = _get_value(step_t) + 1
        step_t.fill_(step)
        if group["maximize"]:
            grad = -grad
        if wd != 0:
            grad = grad.add(p, alpha=wd)
        clr = lr / (1 + (step - 1) * group["lr_decay"])
        if p.is_complex():
            p, grad, state_sum = _as_real(p), _as_real(grad), _as_real(state_sum)
        state_sum.addcmul_(grad, grad)
        p.addcdiv_(grad, state_sum.sqrt().add_(eps), value=-clr)

    def _update_foreach(self, params: list, grads: list, states: list, group: dict) -> None:
        lr, wd, eps = _get_value(_to_scalar(group["lr"])), group["weight_decay"], group["eps"]
        for idx in _by_dtype(params):
            sts = [states[i] for i in idx]
            if not group["differentiable"]:
                ps = [params[i] for i in idx]
                bucket = flat_bucket(self, (id(group), ps[0].dtype), ps, sts, ("sum",))
                if bucket is not None:
                    self._update_flat(ps, [grads[i] for i in idx], bucket, group, lr, wd, eps)
                    continue
            real = _as_real if params[idx[0]].is_complex() else _same
            ps, gs = [real(params[i]) for i in idx], [real(grads[i]) for i in idx]
            sums = [real(st["sum"]) for st in sts]
            steps = [st["step"] for st in sts]
            if group["maximize"]:
                gs = F._foreach_neg(gs)
            F._foreach_add_(steps, 1)
            if wd != 0:
                if group["maximize"]:
                    F._foreach_add_(gs, ps, alpha=wd)
                else:
                    gs = F._foreach_add(gs, ps, alpha=wd)
            minus_clr = [-lr / (1 + (_get_value(s) - 1) * group["lr_decay"]) for s in steps]
            F._foreach_addcmul_(sums, gs, gs, 1)
            std = F._foreach_sqrt(sums)
            F._foreach_add_(std, eps)
            F._foreach_addcdiv_(ps, gs, std, minus_clr)

    def _update_flat(self, ps: list, gs: list, b, group: dict, lr, wd, eps) -> None:
        if group.get("fused") and _fused.adagrad_flat(ps, gs, b, group, lr, wd, eps):
            return  # one generated kernel (ember/optim/_fused.py)
        # the list path's arithmetic on the flat state: one op per step over every parameter
        g, d, steps, sums = [b.grad], [b.scratch], [b.flat["step"]], [b.flat["sum"]]
        F._foreach_copy_(b.grad_views, gs)
        if group["maximize"]:
            F._foreach_neg_(g)
        F._foreach_add_(steps, 1)
        if wd != 0:
            F._foreach_copy_(b.scratch_views, ps)
            F._foreach_add_(g, d, alpha=wd)
        F._foreach_addcmul_(sums, g, g, 1)
        F._foreach_copy_(d, sums)
        F._foreach_sqrt_(d)
        F._foreach_add_(d, eps)
        F._foreach_div_(g, d)
        sv = steps[0].tolist()
        if sv.count(sv[0]) == len(sv):
            F._foreach_mul_(g, -lr / (1 + (sv[0] - 1) * group["lr_decay"]))
        else:
            F._foreach_mul_(b.grad_views, [-lr / (1 + (s - 1) * group["lr_decay"]) for s in sv])
        F._foreach_add_(ps, b.grad_views)
