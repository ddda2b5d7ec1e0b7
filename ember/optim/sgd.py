"""SGD with momentum, dampening, Nesterov, weight decay and maximize (torch's update, step for step).

Example:
    >>> import ember
    >>> w = ember.tensor([1.0, -1.0], requires_grad=True)
    >>> opt = ember.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> for _ in range(2):
    ...     opt.zero_grad(); (w * w).sum().backward(); opt.step()
    >>> w
    tensor([ 0.4600, -0.4600], requires_grad=True)
"""
from __future__ import annotations

from .._tensor import Tensor
from .._tensor_methods import foreach as F
from . import _fused
from ._flat import flat_bucket
from ._raw import TensorOps, flat_update_allowed, run_flat_update, run_update
from .optimizer import Optimizer, _get_value, _to_scalar

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with momentum.

    Args:
        params: parameters or param groups to optimize.
        lr: learning rate (default 1e-3; a float or 1-element tensor).
        momentum: momentum factor. dampening: dampening of the momentum.
        weight_decay: L2 penalty added to the gradient. nesterov: Nesterov momentum.
        maximize: ascend the objective. foreach: use the multi-tensor ``_foreach_*`` path.
        differentiable, fused: accepted as in torch (``fused``: the flat-buffer path).
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        self._flat_buckets: dict = {}
        if fused:
            self._step_supports_amp_scaling = True
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    _GROUP_DEFAULTS = (("nesterov", False), ("maximize", False), ("foreach", None),
                       ("differentiable", False), ("fused", False))

    def __setstate__(self, state):
        super().__setstate__(state)
        self._flat_buckets = {}

    def _has_state(self, group: dict) -> bool:
        # without momentum SGD keeps no per-parameter state (state_dict()['state'] stays empty)
        return group["momentum"] != 0

    def _update(self, p: Tensor, grad: Tensor, state, group: dict) -> None:
        if group["momentum"] != 0 and state.get("momentum_buffer") is None:
            _sgd_update(TensorOps, p, grad, state, group)  # the first step creates the buffer
        else:
            run_update(_sgd_update, p, grad, state, group)

    def _update_group(self, params: list, grads: list, states: list, group: dict) -> bool:
        # with momentum buffers (from the second step): the single-tensor update once over a flat
        # buffer (same bits, one NumPy call per op); without momentum there is no state to flatten
        if group["momentum"] == 0 or any(st.get("momentum_buffer") is None for st in states):
            return False
        if not flat_update_allowed(group):
            return False
        bucket = flat_bucket(self, (id(group), params[0].dtype), params, states, ("momentum_buffer",))
        return bucket is not None and run_flat_update(_sgd_update, params, grads, bucket, group)

    def _update_foreach(self, params: list, grads: list, states: list, group: dict) -> None:
        momentum, wd = group["momentum"], group["weight_decay"]
        lr = _get_value(_to_scalar(group["lr"]))
        for idx in _by_dtype(params):
            ps, gs = [params[i] for i in idx], [grads[i] for i in idx]
            if group["maximize"]:
                gs = F._foreach_neg(gs)
            if wd != 0:
                if group["maximize"]:
                    F._foreach_add_(gs, ps, alpha=wd)
                else:
                    gs = F._foreach_add(gs, ps, alpha=wd)
            if momentum != 0:
                sts = [states[i] for i in idx]
                bufs = [st.get("momentum_buffer") for st in sts]
                bucket = None
                if not group.get("differentiable") and all(b is not None for b in bufs):
                    bucket = flat_bucket(self, (id(group), ps[0].dtype), ps, sts, ("momentum_buffer",))
                if bucket is not None:
                    self._update_flat(ps, gs, bucket, group, lr)
                    continue
                if all(b is not None for b in bufs):
                    F._foreach_mul_(bufs, momentum)
                    F._foreach_add_(bufs, gs, alpha=1 - group["dampening"])
                else:
                    for j, st in enumerate(sts):
                        if bufs[j] is None:
                            bufs[j] = st["momentum_buffer"] = gs[j].detach().clone()
                        else:
                            bufs[j].mul_(momentum).add_(gs[j], alpha=1 - group["dampening"])
                if group["nesterov"]:
                    F._foreach_add_(gs, bufs, alpha=momentum)
                else:
                    gs = bufs
            F._foreach_add_(ps, gs, alpha=-lr)

    def _update_flat(self, ps: list, gs: list, b, group: dict, lr: float) -> None:
        if group.get("fused") and _fused.sgd_flat(ps, gs, b, group, lr):
            return  # one generated kernel (ember/optim/_fused.py)
        # the list path's momentum arithmetic on one flat buffer (gs already hold maximize/wd)
        momentum, g, bufs = group["momentum"], [b.grad], [b.flat["momentum_buffer"]]
        F._foreach_copy_(b.grad_views, gs)
        F._foreach_mul_(bufs, momentum)
        F._foreach_add_(bufs, g, alpha=1 - group["dampening"])
        if group["nesterov"]:
            F._foreach_add_(g, bufs, alpha=momentum)
            F._foreach_add_(ps, b.grad_views, alpha=-lr)
        else:
            F._foreach_add_(ps, b.views["momentum_buffer"], alpha=-lr)


def _sgd_update(K, p, grad, state, group: dict) -> None:
    """torch's single-tensor SGD step for one parameter, on Tensors or arrays (``_raw.run_update``)."""
    momentum, wd = group["momentum"], group["weight_decay"]
    if group["maximize"]:
        grad = K.neg(grad)
    if wd != 0:
        grad = K.add(grad, p, wd)
    if momentum != 0:
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = state["momentum_buffer"] = grad.detach().clone()  # Tensors only (see SGD._update)
        else:
            K.mul_(buf, momentum)
            K.add_(buf, grad, 1 - group["dampening"])
        grad = K.add(grad, buf, momentum) if group["nesterov"] else buf
    K.add_(p, grad, -_get_value(_to_scalar(group["lr"])))


def _by_dtype(tensors: list) -> list:
    """Index lists of ``tensors`` grouped by dtype (multi-tensor ops take one dtype at a time)."""
    groups: dict = {}
    for i, t in enumerate(tensors):
        groups.setdefault(t.dtype, []).append(i)
    return list(groups.values())


def sgd(params: list, d_p_list: list, momentum_buffer_list: list, has_sparse_grad: bool = False,
        foreach: bool | None = None, fused: bool | None = None, grad_scale=None, found_inf=None, *,
        weight_decay: float, momentum: float, lr: float, dampening: float, nesterov: bool,
        maximize: bool) -> None:
    """Functional SGD: update ``params`` in place; ``momentum_buffer_list`` entries are filled in."""
    group = {"weight_decay": weight_decay, "momentum": momentum, "lr": lr, "dampening": dampening,
             "nesterov": nesterov, "maximize": maximize, "differentiable": False}
    states = [{} if b is None else {"momentum_buffer": b} for b in momentum_buffer_list]
    opt = SGD.__new__(SGD)
    if foreach:
        opt._update_foreach(params, d_p_list, states, group)
    else:
        for p, g, st in zip(params, d_p_list, states):
            opt._update(p, g, st, group)
    if momentum != 0:
        for i, st in enumerate(states):
            momentum_buffer_list[i] = st.get("momentum_buffer")
