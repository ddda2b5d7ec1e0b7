"""Adam (and, with ``decoupled_weight_decay=True``, AdamW): torch's update, step for step.

Example:
    >>> import ember
    >>> w = ember.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = ember.optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> w
    tensor([ 0.9000, -1.9000], requires_grad=True)
    >>> opt.state[w]["step"]
    tensor(1.)
"""
from __future__ import annotations

from .. import _creation as C
from .._tensor import Tensor
from .._tensor_methods import foreach as F
from .._tensor_methods.pointwise_math import view_as_real
from . import _fused
from ._flat import flat_bucket
from ._raw import flat_update_allowed, run_flat_update, run_update
from .optimizer import (
    Optimizer,
    _get_value,
    _step_tensor,
    _to_scalar,
)
from .sgd import _by_dtype

__all__ = ["Adam", "adam"]


class Adam(Optimizer):
    """Adam: moving averages of the gradient and its square, bias-corrected.

    Args:
        params: parameters or param groups to optimize.
        lr: learning rate (default 1e-3; a float or 1-element tensor).
        betas: coefficients of the running averages of the gradient and its square.
        eps: added to the denominator. weight_decay: L2 penalty (decoupled, i.e. AdamW, when
            ``decoupled_weight_decay``). amsgrad: keep the maximum of the squared averages.
        maximize: ascend the objective. foreach: use the multi-tensor ``_foreach_*`` path.
        capturable, differentiable, fused: accepted as in torch (``fused``: the flat-buffer path).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False) -> None:
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
            if lr.numel() != 1:
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
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for i, b in enumerate(betas):
            if isinstance(b, Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and "
                                     f"foreach=True")
                if b.numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(map(_to_scalar, betas))
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        self._flat_buckets: dict = {}
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            self._step_supports_amp_scaling = True
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    _GROUP_DEFAULTS = (("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False),
                       ("differentiable", False), ("decoupled_weight_decay", False), ("fused", None))
    _TENSOR_STEPS = ("step",)

    def __setstate__(self, state):
        super().__setstate__(state)
        self._flat_buckets = {}

    def _init_state(self, p: Tensor, state: dict, group: dict) -> None:
        state["step"] = _step_tensor()
        state["exp_avg"] = C.zeros_like(p)
        state["exp_avg_sq"] = C.zeros_like(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = C.zeros_like(p)

    def _update(self, p: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        run_update(_adam_update, p, grad, state, group)

    def _update_group(self, params: list, grads: list, states: list, group: dict) -> bool:
        # the single-tensor update once over flat state buffers (same bits, one NumPy call per op)
        names = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if group["amsgrad"] else ("exp_avg", "exp_avg_sq")
        if not flat_update_allowed(group):
            return False
        bucket = flat_bucket(self, (id(group), params[0].dtype), params, states, names)
        return bucket is not None and run_flat_update(_adam_update, params, grads, bucket, group)

    def _update_foreach(self, params: list, grads: list, states: list, group: dict) -> None:
        beta1, beta2 = group["betas"]
        lr, wd, eps = _to_scalar(group["lr"]), group["weight_decay"], group["eps"]
        if isinstance(lr, Tensor):
            raise RuntimeError("lr as a Tensor is not supported for capturable=False and foreach=True")
        for idx in _by_dtype(params):
            ps, gs = [params[i] for i in idx], [grads[i] for i in idx]
            sts = [states[i] for i in idx]
            if not group["differentiable"]:
                names = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq") if group["amsgrad"] else \
                    ("exp_avg", "exp_avg_sq")
                bucket = flat_bucket(self, (id(group), ps[0].dtype), ps, sts, names)
                if bucket is not None:
                    self._update_flat(ps, gs, bucket, group, lr, wd, eps)
                    continue
            real = _as_real if ps[0].is_complex() else _same
            ps, gs = [real(t) for t in ps], [real(t) for t in gs]
            avgs = [real(st["exp_avg"]) for st in sts]
            sqs = [real(st["exp_avg_sq"]) for st in sts]
            steps = [st["step"] for st in sts]
            gs = _foreach_moments(ps, gs, avgs, sqs, steps, group, lr, wd, beta1, beta2)
            sv = [_get_value(s) for s in steps]
            if sv.count(sv[0]) == len(sv):  # the usual case: one scalar for the whole group
                step_size = (lr / (1 - beta1 ** sv[0])) * -1
                bc2_sqrt = (1 - beta2 ** sv[0]) ** 0.5
            else:
                step_size = [(lr / (1 - beta1 ** s)) * -1 for s in sv]
                bc2_sqrt = [(1 - beta2 ** s) ** 0.5 for s in sv]
            if group["amsgrad"]:
                mxs = [real(st["max_exp_avg_sq"]) for st in sts]
                F._foreach_maximum_(mxs, sqs)
                denom = F._foreach_sqrt(mxs)
            else:
                denom = F._foreach_sqrt(sqs)
            F._foreach_div_(denom, bc2_sqrt)
            F._foreach_add_(denom, eps)
            F._foreach_addcdiv_(ps, avgs, denom, step_size)


    def _update_flat(self, ps: list, gs: list, b, group: dict, lr, wd, eps) -> None:
        if group.get("fused") and _fused.adam_flat(ps, gs, b, group, lr, wd, eps):
            return  # one generated kernel (ember/optim/_fused.py)
        # the list path's arithmetic, element for element, on the flat state buffers
        beta1, beta2 = group["betas"]
        g, d, steps = [b.grad], [b.scratch], [b.flat["step"]]
        avg, sq = [b.flat["exp_avg"]], [b.flat["exp_avg_sq"]]
        F._foreach_copy_(b.grad_views, gs)
        if group["maximize"]:
            F._foreach_neg_(g)
        F._foreach_add_(steps, 1)
        if wd != 0:
            if group["decoupled_weight_decay"]:
                F._foreach_mul_(ps, 1 - lr * wd)
            else:
                F._foreach_copy_(b.scratch_views, ps)
                F._foreach_add_(g, d, alpha=wd)
        # lerp_ and addcmul_ spelled out through the scratch buffer: no fresh array per step
        # (big buffers would page-fault), the same roundings in the same order
        w = 1 - beta1
        if abs(w) < 0.5:
            F._foreach_copy_(d, g)
            F._foreach_sub_(d, avg)
            F._foreach_mul_(d, w)
            F._foreach_add_(avg, d)
        else:
            F._foreach_lerp_(avg, g, w)
        F._foreach_mul_(sq, beta2)
        F._foreach_copy_(d, g)
        F._foreach_mul_(d, g)
        F._foreach_mul_(d, 1 - beta2)
        F._foreach_add_(sq, d)
        src = sq
        if group["amsgrad"]:
            src = [b.flat["max_exp_avg_sq"]]
            F._foreach_maximum_(src, sq)
        sv = steps[0].tolist()
        if sv.count(sv[0]) == len(sv):
            step_size = (lr / (1 - beta1 ** sv[0])) * -1
            F._foreach_copy_(d, src)
            F._foreach_sqrt_(d)
            F._foreach_div_(d, (1 - beta2 ** sv[0]) ** 0.5)
            F._foreach_add_(d, eps)
            # addcdiv's steps: avg / denom, times the step size, added to each parameter
            F._foreach_copy_(g, avg)
            F._foreach_div_(g, d)
            F._foreach_mul_(g, step_size)
            F._foreach_add_(ps, b.grad_views)
            return
        # parameters at different step counts (added to the group later): per-tensor scalars
        step_size = [(lr / (1 - beta1 ** s)) * -1 for s in sv]
        bc2_sqrt = [(1 - beta2 ** s) ** 0.5 for s in sv]
        denom = F._foreach_sqrt(b.views["max_exp_avg_sq" if group["amsgrad"] else "exp_avg_sq"])
        F._foreach_div_(denom, bc2_sqrt)
        F._foreach_add_(denom, eps)
        F._foreach_addcdiv_(ps, b.views["exp_avg"], denom, step_size)


def _adam_update(K, p, grad, state: dict, group: dict) -> None:
    """torch's single-tensor Adam step for one parameter, on Tensors or arrays (``_raw.run_update``)."""
    beta1, beta2 = group["betas"]
    beta1, beta2 = _get_value(beta1), _get_value(beta2)
    lr, wd, eps = _to_scalar(group["lr"]), group["weight_decay"], group["eps"]
    if group["maximize"]:
        grad = K.neg(grad)
    step = K.count_step(state["step"])
    if wd != 0:
        if group["decoupled_weight_decay"]:
            K.mul_(p, 1 - lr * wd)
        else:
            grad = K.add(grad, p, wd)
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    if K.complex_views:
        # the moments of a complex parameter are those of its (real, imag) pairs, as in torch
        p, grad, exp_avg, exp_avg_sq = (K.real(t) for t in (p, grad, exp_avg, exp_avg_sq))
    K.lerp_(exp_avg, grad, 1 - beta1)
    K.mul_(exp_avg_sq, beta2)
    K.addcmul_(exp_avg_sq, grad, grad, 1 - beta2)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
    step_size = _get_value(lr / bias_correction1)
    if group["amsgrad"]:
        mx = K.real(state["max_exp_avg_sq"])
        K.maximum_(mx, exp_avg_sq)
        denom = K.div_scalar(K.sqrt(mx), bias_correction2_sqrt)
    else:
        denom = K.div_scalar(K.sqrt(exp_avg_sq), bias_correction2_sqrt)
    K.add_scalar_(denom, eps)
    K.addcdiv_(p, exp_avg, denom, -step_size)


def _as_real(t: Tensor) -> Tensor:
    return view_as_real(t)


def _same(t: Tensor) -> Tensor:
    return t


def adam(params: list, grads: list, exp_avgs: list, exp_avg_sqs: list, max_exp_avg_sqs: list,
         state_steps: list, foreach: bool | None = None, capturable: bool = False,
         differentiable: bool = False, fused: bool | None = None, grad_scale=None, found_inf=None,
         has_complex: bool = False, decoupled_weight_decay: bool = False, *, amsgrad: bool,
         beta1: float, beta2: float, lr: float, weight_decay: float, eps: float,
         maximize: bool) -> None:
    """Functional Adam: update ``params`` and the given state tensors in place."""
    group = {"betas": (beta1, beta2), "lr": lr, "weight_decay": weight_decay, "eps": eps,
             "amsgrad": amsgrad, "maximize": maximize, "decoupled_weight_decay": decoupled_weight_decay,
             "differentiable": differentiable}
    states = []
    for i in range(len(params)):
        st = {"step": state_steps[i], "exp_avg": exp_avgs[i], "exp_avg_sq": exp_avg_sqs[i]}
        if amsgrad:
            st["max_exp_avg_sq"] = max_exp_avg_sqs[i]
        states.append(st)
    opt = Adam.__new__(Adam)
    if foreach:
        opt._update_foreach(params, grads, states, group)
    else:
        for p, g, st in zip(params, grads, states):
            opt._update(p, g, st, group)


def _foreach_moments(ps, gs, avgs, sqs, steps, group, lr, wd, beta1, beta2):
    """The multi-tensor steps Adam, NAdam and RAdam share: count the step, apply weight decay
    (decoupled or L2), and update the first and second moments; returns the gradients used."""
    if group["maximize"]:
        gs = F._foreach_neg(gs)
    F._foreach_add_(steps, 1)
    if wd != 0:
        if group["decoupled_weight_decay"]:
            F._foreach_mul_(ps, 1 - lr * wd)
        elif group["maximize"]:
            F._foreach_add_(gs, ps, alpha=wd)
        else:
            gs = F._foreach_add(gs, ps, alpha=wd)
    F._foreach_lerp_(avgs, gs, 1 - beta1)
    F._foreach_mul_(sqs, beta2)
    F._foreach_addcmul_(sqs, gs, gs, 1 - beta2)
    return gs
