"""``state_dict`` / ``load_state_dict`` for ``Module`` and the hooks around them.

Saving walks the tree depth first: each module writes its own tensors (``_save_to_state_dict``)
under its dotted prefix, then its children do, and ``_metadata`` records every module's
``_version``. Loading walks the same tree; each module reads its keys in ``_load_from_state_dict``
and reports missing/unexpected keys and errors into shared lists, raised together at the end.
"""
from __future__ import annotations

import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...utils.hooks import RemovableHandle
from ..parameter import Parameter

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if self.missing_keys or self.unexpected_keys:
            return super().__repr__()
        return "<All keys matched successfully>"

    __str__ = __repr__


class _PublicPostHook:
    """A state_dict post-hook from the public API: it may only edit the dict in place."""

    def __init__(self, hook):
        self.hook = hook

    def __call__(self, *args):
        if self.hook(*args) is not None:
            raise RuntimeError("state_dict post-hook must return None")


class _ModuleFirstHook:
    """Calls ``hook(module, *args)``; holds the module weakly (the module owns this object)."""

    def __init__(self, hook, module):
        self.hook = hook
        self.module_ref = weakref.ref(module)

    def __call__(self, *args):
        return self.hook(self.module_ref(), *args)


def _is_tensor_like(x) -> bool:
    return isinstance(x, Tensor) or hasattr(x, "__torch_function__")


def _join_keys(keys) -> str:
    return ", ".join(f'"{k}"' for k in keys)


def _store(table, value) -> RemovableHandle:
    handle = RemovableHandle(table)
    table[handle.id] = value
    return handle


class StateDictMixin:
    """The state_dict half of ``Module``."""

    # -------------------------------------------------------------- extra state
    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be "
                           "called.")

    def set_extra_state(self, state) -> None:
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be "
                           "called.")

    def _overrides(self, name: str) -> bool:
        return getattr(type(self), name) is not getattr(StateDictMixin, name)

    # -------------------------------------------------------------- hooks
    def _register_state_dict_hook(self, hook):
        # private form: the hook may return a replacement dict
        return _store(self._state_dict_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` runs after ``state_dict``."""
        return _store(self._state_dict_hooks, _PublicPostHook(hook))

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` runs before ``state_dict``."""
        return _store(self._state_dict_pre_hooks, hook)

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
        return _store(self._load_state_dict_pre_hooks,
                      _ModuleFirstHook(hook, self) if with_module else hook)

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing, unexpected, errors)``."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` runs after ``load_state_dict``."""
        return _store(self._load_state_dict_post_hooks, hook)

    # -------------------------------------------------------------- saving
    def _persistent_state(self) -> dict:
        """This module's own saved tensors by local name (parameters first), Nones left out."""
        skip = self._non_persistent_buffers_set
        own = {n: p for n, p in self._parameters.items() if p is not None}
        own.update((n, b) for n, b in self._buffers.items() if b is not None and n not in skip)
        return own

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        for name, t in self._persistent_state().items():
            destination[prefix + name] = t if keep_vars else t.detach()
        if self._overrides("get_extra_state"):
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An OrderedDict of every parameter and persistent buffer by dotted name (with ``_metadata``)."""
        if args:
            import warnings
            warnings.warn("Positional args are being deprecated, use kwargs instead.", FutureWarning,
                          stacklevel=2)
            # the old positional order was (destination, prefix, keep_vars)
            given = list(args) + [None] * (3 - len(args))
            destination = destination if destination is not None else given[0]
            prefix = given[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = given[2] if len(args) > 2 and not keep_vars else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        meta = {"version": self._version}
        table = getattr(destination, "_metadata", None)
        if table is not None:
            table[prefix[:-1]] = meta
        for pre in self._state_dict_pre_hooks.values():
            pre(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for child_name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination=destination, prefix=f"{prefix}{child_name}.",
                                 keep_vars=keep_vars)
        for post in self._state_dict_hooks.values():
            replaced = post(self, destination, prefix, meta)
            if replaced is not None:
                destination = replaced
        return destination

    # -------------------------------------------------------------- loading
    def _copy_one(self, name, key, target, source, assign, error_msgs) -> None:
        try:
            with no_grad():
                if not assign:
                    target.copy_(source)
                    return
                if isinstance(target, Parameter):
                    # assign=True keeps the model's parameter-ness and requires_grad
                    if isinstance(source, Parameter):
                        source.requires_grad_(target.requires_grad)
                    else:
                        source = Parameter(source, requires_grad=target.requires_grad)
                setattr(self, name, source)
        except Exception as ex:
            error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the '
                              f"model are {target.size()} and whose dimensions in the checkpoint "
                              f"are {source.size()}, an exception occurred : {ex.args}.")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs) -> None:
        for pre in self._load_state_dict_pre_hooks.values():
            pre(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        own = self._persistent_state()
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, current in own.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            incoming = state_dict[key]
            if not _is_tensor_like(incoming):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor '
                                  f"or Tensor-like object from checkpoint but received "
                                  f"{type(incoming)}")
                continue
            # old checkpoints stored scalars as shape (1,)
            if current.dim() == 0 and tuple(incoming.shape) == (1,):
                incoming = incoming[0]
            if incoming.shape != current.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{incoming.shape} from checkpoint, the shape in current model "
                                  f"is {current.shape}.")
                continue
            self._copy_one(name, key, current, incoming, assign, error_msgs)

        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if self._overrides("set_extra_state"):
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if not strict:
            return
        for key in state_dict:
            if not key.startswith(prefix) or key == extra_key:
                continue
            head, dot, _ = key[len(prefix):].partition(".")
            known = self._modules if dot else own
            if head not in known:
                unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy parameters and buffers from ``state_dict``; returns ``(missing_keys, unexpected_keys)``."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list = []
        unexpected: list = []
        errors: list = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata
        report = _IncompatibleKeys(missing, unexpected)

        def visit(module, entries, prefix):
            meta = metadata.get(prefix[:-1], {}) if metadata is not None else {}
            if assign:
                meta["assign_to_params_buffers"] = assign
            module._load_from_state_dict(entries, prefix, meta, True, missing, unexpected, errors)
            for child_name, child in module._modules.items():
                if child is None:
                    continue
                child_prefix = f"{prefix}{child_name}."
                visit(child, {k: v for k, v in entries.items() if k.startswith(child_prefix)},
                      child_prefix)
            for post in module._load_state_dict_post_hooks.values():
                if post(module, report) is not None:
                    raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` "
                                         "are not expected to return new values, if incompatible_keys "
                                         "need to be modified, it should be done inplace.")

        visit(self, state_dict, "")
        if strict:
            head = []
            if missing:
                head.append(f"Missing key(s) in state_dict: {_join_keys(missing)}. ")
            if unexpected:
                head.append(f"Unexpected key(s) in state_dict: {_join_keys(unexpected)}. ")
            errors[:0] = head
        if errors:
            details = "\n\t".join(errors)
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t{details}")
        return _IncompatibleKeys(missing, unexpected)
