"""RMSprop (optionally centered, with momentum): torch's update step for step.

Example:
    >>> import ember
    >>> w = ember.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = ember.optim.RMSprop([w], lr=0.01, momentum=0.9, centered=True)
    >>> (w * w).sum().backward(); opt.step()
    >>> sorted(opt.state[w])
    ['grad_avg', 'momentum_buffer', 'square_avg', 'step']
"""
from __future__ import annotations

from .. import _creation as C
from .._tensor import Tensor
from .._tensor_methods import foreach as F
from .._tensor_methods.pointwise_math import view_as_real
from .optimizer import Optimizer, _get_value, _step_tensor, _to_scalar
from ._flat import flat_bucket
from ._raw import flat_update_allowed, run_flat_update, run_update
from .sgd import _by_dtype

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop (Hinton's lecture 6e; centered variant of Graves 2013).

    Args:
        params: parameters or param groups. lr: learning rate (default 1e-2, float or 1-element tensor).
        alpha: smoothing constant. eps: denominator term. weight_decay: L2 penalty.
        momentum: momentum factor. centered: normalise by the estimated variance of the gradient.
        capturable, foreach, maximize, differentiable: as in torch.
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        for name, v in (("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                        ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if not 0.0 <= v:
                raise ValueError(f"Invalid {name}: {v}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)
        self._flat_buckets: dict = {}

    def __setstate__(self, state):
        super().__setstate__(state)
        self._flat_buckets = {}

    _GROUP_DEFAULTS = (("momentum", 0), ("centered", False), ("foreach", None),
                       ("maximize", False), ("differentiable", False), ("capturable", False))
    _TENSOR_STEPS = ("step",)

    def _init_state(self, p: Tensor, state: dict, group: dict) -> None:
        state["step"] = _step_tensor()
        state["square_avg"] = C.zeros_like(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = C.zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = C.zeros_like(p)

    def _update(self, p: Tensor, grad: Tensor, state: dict, group: dict) -> None:
        run_update(_rmsprop_update, p, grad, state, group)

    def _update_group(self, params: list, grads: list, states: list, group: dict) -> bool:
        # the single-tensor update once over flat state buffers (same bits, one NumPy call per op)
        names = ("square_avg",) + (("momentum_buffer",) if group["momentum"] > 0 else ()) \
            + (("grad_avg",) if group["centered"] else ())
        if not flat_update_allowed(group):
            return False
        bucket = flat_bucket(self, (id(group), params[0].dtype), params, states, names)
        return bucket is not None and run_flat_update(_rmsprop_update, params, grads, bucket, group)

    def _update_foreach(self, params: list, grads: list, states: list, group: dict) -> None:
        # the single-tensor update once per dtype, each op one ``ember._foreach_*`` call over lists
        for idx in _by_dtype(params):
            sts = [states[i] for i in idx]
            state = {name: [st[name] for st in sts] for name in sts[0]}
            _rmsprop_update(_ForeachOps, [params[i] for i in idx], [grads[i] for i in idx], state,
                            group)


class _ForeachOps:
    """``_raw``'s ops namespace over lists of Tensors of one dtype (``foreach=True``): torch's
    multi-tensor RMSprop is its single-tensor update op for op, each op over the whole list."""

    complex_views = True

    @staticmethod
    def real(ts):
        return [view_as_real(t) if t.is_complex() else t for t in ts]

    @staticmethod
    def count_step(steps):
        F._foreach_add_(steps, 1)

    neg = staticmethod(F._foreach_neg)
    sqrt = staticmethod(F._foreach_sqrt)
    sqrt_ = staticmethod(F._foreach_sqrt_)
    mul_ = staticmethod(F._foreach_mul_)
    add_scalar_ = staticmethod(F._foreach_add_)
    lerp_ = staticmethod(F._foreach_lerp_)
    addcmul = staticmethod(F._foreach_addcmul)
    addcmul_ = staticmethod(F._foreach_addcmul_)
    addcdiv_ = staticmethod(F._foreach_addcdiv_)

    @staticmethod
    def add(a, b, alpha):
        return F._foreach_add(a, b, alpha=alpha)

    @staticmethod
    def add_(a, b, alpha=1):
        F._foreach_add_(a, b, alpha=alpha)


def _rmsprop_update(K, p, grad, state: dict, group: dict) -> None:
    """torch's single-tensor RMSprop step for one parameter, on Tensors or arrays (``_raw.run_update``)."""
    lr, alpha, eps, wd = (_get_value(_to_scalar(group["lr"])), group["alpha"], group["eps"],
                          group["weight_decay"])
    momentum = group["momentum"]
    square_avg = state["square_avg"]
    if group["maximize"]:
        grad = K.neg(grad)
    K.count_step(state["step"])
    if wd != 0:
        grad = K.add(grad, p, wd)
    if K.complex_views:
        p, grad, square_avg = K.real(p), K.real(grad), K.real(square_avg)
    K.mul_(square_avg, alpha)
    K.addcmul_(square_avg, grad, grad, 1 - alpha)
    if group["centered"]:
        grad_avg = K.real(state["grad_avg"])
        K.lerp_(grad_avg, grad, 1 - alpha)
        avg = K.addcmul(square_avg, grad_avg, grad_avg, -1)
        K.sqrt_(avg)
    else:
        avg = K.sqrt(square_avg)
    K.add_scalar_(avg, eps)
    if momentum > 0:
        buf = K.real(state["momentum_buffer"])
        K.mul_(buf, momentum)
        K.addcdiv_(buf, grad, avg)
        K.add_(p, buf, -lr)
    else:
        K.addcdiv_(p, grad, avg, -lr)
