"""``Optimizer``: the base class owning param_groups, state, state_dict, zero_grad and hooks.

The layout is torch's exactly (so checkpoints, LR schedulers and hooks written for torch work): each
param group is a dict of options plus ``'params'``; ``state`` is a ``defaultdict(dict)`` keyed by
parameter; ``state_dict()`` numbers parameters in group order. An algorithm supplies two small
functions: ``_init_state(p, state, group)`` (lazy, at the first step that sees a gradient) and
``_update(p, grad, state, group)`` (one parameter, in-place tensor ops), plus optionally
``_update_foreach(params, grads, states, group)`` on ``ember._foreach_*`` ops (``foreach=True``).

Example:
    >>> import ember
    >>> w = ember.ones(3, requires_grad=True)
    >>> opt = ember.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> (w * 2).sum().backward(); opt.step()
    >>> sorted(opt.state_dict()["state"][0]), opt.state_dict()["param_groups"][0]["params"]
    (['momentum_buffer'], [0])
"""
from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain
from typing import Any, Callable, Iterable

from .. import _dtype as D
from .._compiling import COMPILING
from .._creation import tensor as _tensor
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from ..utils.hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook",
           "required"]

_global_optimizer_pre_hooks: dict = OrderedDict()
_global_optimizer_post_hooks: dict = OrderedDict()


class _RequiredParameter:
    """Singleton marking a hyper-parameter every param group must give."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` before every optimizer's ``step``."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """``hook(optimizer, args, kwargs)`` after every optimizer's ``step``."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _use_grad_for_differentiable(func: Callable) -> Callable:
    """Run ``step`` with grad mode = the optimizer's ``differentiable`` flag (off by default)."""
    @functools.wraps(func)
    def _use_grad(self, *args, **kwargs):
        prev = is_grad_enabled()
        try:
            set_grad_enabled(self.defaults.get("differentiable", False))
            return func(self, *args, **kwargs)
        finally:
            set_grad_enabled(prev)
    return _use_grad


def _get_value(x):
    """A Python number from a number or a one-element tensor (as torch: the tensor itself while a
    capture runs, so the step counter stays a graph value)."""
    return x.item() if isinstance(x, Tensor) and not COMPILING[0] else x


def _to_scalar(x):
    """A 1-element tensor squeezed to 0-dim (numbers pass through), as torch's optimizers do."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _get_scalar_dtype(is_fused=None) -> D.dtype:
    """dtype of ``state['step']``: float64 under a float64 default dtype, else float32."""
    if is_fused:
        return D.float32
    return D.float64 if D.get_default_dtype() is D.float64 else D.float32


def _step_tensor() -> Tensor:
    return _tensor(0.0, dtype=_get_scalar_dtype())


def _typename(obj) -> str:
    if isinstance(obj, Tensor):
        return obj.type()
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


class Optimizer:
    """Base class of all optimizers.

    Args:
        params: an iterable of Tensors, of ``(name, Tensor)`` pairs, or of dicts defining param groups.
        defaults: default values of the optimization options (used by groups not giving them).
    """

    _GROUP_DEFAULTS: tuple = ()   # (option, default) pairs a loaded older state may lack
    _TENSOR_STEPS: tuple = ()     # state keys that must be 0-d tensors (``step`` ...)

    def __init__(self, params, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: dict = OrderedDict()
        self._optimizer_step_post_hooks: dict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: dict = OrderedDict()
        self._optimizer_state_dict_post_hooks: dict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: dict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: dict = OrderedDict()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or "
                            "dicts, but got " + _typename(params))
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)
        self._warned_capturable_if_run_uncaptured = True

    # ------------------------------------------------------------------ pickling / printing
    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
                     "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
                     "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)
        # a state saved by an older version: group options it lacks, plain-number steps
        for group in self.param_groups:
            for k, v in self._GROUP_DEFAULTS:
                group.setdefault(k, v)
        if self._TENSOR_STEPS:
            _tensor_steps(self, *self._TENSOR_STEPS)

    def __repr__(self) -> str:
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    # ------------------------------------------------------------------ step and its hooks
    @staticmethod
    def profile_hook_step(func: Callable) -> Callable:
        """Wrap ``step`` so global and per-instance pre/post hooks run around it."""
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self = args[0]
            for pre_hook in chain(_global_optimizer_pre_hooks.values(),
                                  self._optimizer_step_pre_hooks.values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(f"{func} must return None or a tuple of (new_args, "
                                           f"new_kwargs), but got {result}.")
            out = func(*args, **kwargs)
            for post_hook in chain(self._optimizer_step_post_hooks.values(),
                                   _global_optimizer_post_hooks.values()):
                post_hook(self, args, kwargs)
            return out
        return wrapper

    def _patch_step_function(self) -> None:
        # as torch: the class's own ``step`` (also a user subclass's) is wrapped once with the hooks
        if not getattr(self.__class__.step, "hooked", None):
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs) -> None or (args, kwargs)`` before ``step``."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` after ``step``."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    @_use_grad_for_differentiable
    def step(self, closure: Callable | None = None):
        """One optimization step; ``closure`` re-evaluates the model and returns the loss."""
        if type(self)._update is Optimizer._update:
            raise NotImplementedError
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            params, grads = [], []
            for p in group["params"]:  # .grad is a property: read it once per parameter
                g = p.grad
                if g is not None:
                    params.append(p)
                    grads.append(g)
            if not params:
                continue
            if self._has_state(group):
                state = self.state
                states = []
                for p in params:
                    st = state[p]
                    if len(st) == 0:
                        self._init_state(p, st, group)
                    states.append(st)
            else:
                states = [None] * len(params)
            # fused=True runs the multi-tensor path (flat state buffers where the algorithm has them)
            if (group.get("foreach") or group.get("fused")) \
                    and type(self)._update_foreach is not Optimizer._update_foreach:
                self._update_foreach(params, grads, states, group)
            elif not self._update_group(params, grads, states, group):
                for p, g, st in zip(params, grads, states):
                    self._update(p, g, st, group)
        return loss

    # the algorithm's part ---------------------------------------------------------------------
    def _has_state(self, group: dict) -> bool:
        return True

    def _init_state(self, p: Tensor, state: dict, group: dict) -> None:
        """Fill ``state`` for parameter ``p`` (called once, at its first step with a gradient)."""

    def _update(self, p: Tensor, grad: Tensor, state: dict | None, group: dict) -> None:
        """Update one parameter in place from its gradient."""
        raise NotImplementedError

    def _update_foreach(self, params: list, grads: list, states: list, group: dict) -> None:
        """Update all parameters of a group with multi-tensor ops (``foreach=True``)."""
        raise NotImplementedError

    def _update_group(self, params: list, grads: list, states: list, group: dict) -> bool:
        """The default path's update of a whole group at once (an algorithm may run its single-tensor
        update over flat buffers, ``_raw.run_flat_update``); False: update parameter by parameter."""
        return False

    # ------------------------------------------------------------------ gradients
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized parameters (to None by default, else to zero)."""
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    # ------------------------------------------------------------------ param groups
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own options (others taken from ``defaults``)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the "
                            "ordering of tensors in sets will change between runs. Please use a list "
                            "instead.")
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) == len(tensors):
                param_group["param_names"] = names
            else:
                raise ValueError("all optimizer params should be with/without names. Some param names "
                                 "are missing")
        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization "
                                 f"parameter {name}")
            param_group.setdefault(name, default)
        ids = {id(p) for p in tensors}
        if len(tensors) != len(ids):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, "
                          "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                          "more information", stacklevel=3)
        seen: set = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError(f"all optimizer param groups should be with/without names. cannot add "
                                 f"param group {txt} to the optimizer")
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------------ state dict
    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    def state_dict(self) -> dict[str, Any]:
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}``.

        Parameters are numbered in group order; the state holds references (not copies), as torch's.
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        mapping: dict[int, int] = {}
        start = 0

        def pack_group(group: dict) -> dict:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            mapping.update({id(p): i for i, p in enumerate(group["params"], start) if id(p) not in mapping})
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        sd = {"state": packed_state, "param_groups": groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, sd)
            if result is not None:
                sd = result
        return sd

    @staticmethod
    def _process_value_according_to_param_policy(param: Tensor, value: Tensor, param_id, param_groups,
                                                  key=None) -> Tensor:
        # 'step' keeps its dtype (unless fused/capturable); other floating state follows the param
        fused = capturable = False
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=D.float32, device=param.device)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a ``state_dict()`` (from this optimizer or one built the same way)."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size "
                             "of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, param_id=None, param_groups=None, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(param, value, param_id,
                                                                          param_groups, key)
            if isinstance(value, dict):
                return {k: cast(param, v, param_id=param_id, param_groups=param_groups, key=k)
                        for k, v in value.items()}
            if isinstance(value, Iterable) and not isinstance(value, str):
                return type(value)(cast(param, v, param_id=param_id, param_groups=param_groups)
                                   for v in value)
            return value

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v, param_id=k, param_groups=state_dict["param_groups"])
            else:
                state[k] = v

        def update_group(group: dict, new_group: dict) -> dict:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)


def _register(hooks: dict, hook: Callable, prepend: bool) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def _tensor_steps(opt: Optimizer, *keys: str) -> None:
    """After loading an old state dict: plain-number ``step`` (and other keys) become 0-d tensors."""
    for group in opt.param_groups:
        for p in group["params"]:
            st = opt.state.get(p, [])
            for k in keys:
                if len(st) != 0 and k in st and not isinstance(st[k], Tensor):
                    st[k] = _tensor(float(st[k]), dtype=_get_scalar_dtype())
