"""Forward/backward hooks of ``Module``: registration (per module and global) and the slow call path.

Every hook table is an OrderedDict keyed by the id of a ``RemovableHandle``; side tables
(``..._with_kwargs``, ``..._always_called``) hold the ids of hooks registered with that option, so
removing the handle clears all of them. ``Module.__call__`` only enters ``call_with_hooks`` when one
of the tables is non-empty.
"""
from __future__ import annotations

import warnings
from collections import OrderedDict

from ...utils.hooks import RemovableHandle
from ._backward_hook import BackwardHook, _global_backward_hooks, _global_backward_pre_hooks

_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_forward_hooks_always_called: OrderedDict = OrderedDict()


def _add(table, hook, *, options=(), prepend: bool = False, always_extra=()) -> RemovableHandle:
    """Store ``hook`` in ``table``; ``options`` are (side_table, enabled) pairs marking its id."""
    handle = RemovableHandle(table, extra_dict=[side for side, _ in options] + list(always_extra))
    table[handle.id] = hook
    for side, enabled in options:
        if enabled:
            side[handle.id] = True
    if prepend:
        table.move_to_end(handle.id, last=False)
    return handle


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """Run ``hook(module, args)`` before the forward of every module (before per-module hooks)."""
    return _add(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """Run ``hook(module, args, output)`` after the forward of every module."""
    return _add(_global_forward_hooks, hook,
                options=[(_global_forward_hooks_always_called, always_call)])


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """Run ``hook(module, grad_output)`` for every module before its input gradients are computed."""
    return _add(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """Run ``hook(module, grad_input, grad_output)`` for every module once its input gradients exist."""
    return _add(_global_backward_hooks, hook)


def _needs_backward_hook(module) -> bool:
    return bool(module._backward_hooks or module._backward_pre_hooks or _global_backward_hooks
                or _global_backward_pre_hooks)


def _apply_pre_hooks(module, args, kwargs):
    kw_ids = module._forward_pre_hooks_with_kwargs
    for table in (_global_forward_pre_hooks, module._forward_pre_hooks):
        for hid, hook in list(table.items()):
            if hid in kw_ids:
                new = hook(module, args, kwargs)
                if new is None:
                    continue
                if not (isinstance(new, tuple) and len(new) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of "
                                       f"(new_args, new_kwargs), but got {new}.")
                args, kwargs = new
            else:
                new = hook(module, args)
                if new is not None:
                    args = new if isinstance(new, tuple) else (new,)
    return args, kwargs


def _post_hooks(module):
    """(id, hook, takes_kwargs, always_call) for every forward hook, global ones first."""
    kw_ids = module._forward_hooks_with_kwargs
    always_ids = module._forward_hooks_always_called
    out = []
    for table in (_global_forward_hooks, module._forward_hooks):
        for hid, hook in table.items():
            out.append((hid, hook, hid in kw_ids,
                        hid in always_ids or hid in _global_forward_hooks_always_called))
    return out


def _run_post_hook(module, hook, takes_kwargs, args, kwargs, output):
    new = hook(module, args, kwargs, output) if takes_kwargs else hook(module, args, output)
    return output if new is None else new


def call_with_hooks(module, args, kwargs):
    """``module.forward`` wrapped in its forward hooks and, when needed, its backward hooks."""
    output = None
    done = set()  # always-call hooks that already ran, so the error path does not repeat them
    try:
        args, kwargs = _apply_pre_hooks(module, args, kwargs)
        bw = None
        if _needs_backward_hook(module):
            bw = BackwardHook(module,
                              [*_global_backward_hooks.values(), *module._backward_hooks.values()],
                              [*_global_backward_pre_hooks.values(),
                               *module._backward_pre_hooks.values()])
            args = bw.setup_input_hook(args)
        output = module.forward(*args, **kwargs)
        for hid, hook, takes_kwargs, always in _post_hooks(module):
            if always:
                done.add(hid)
            output = _run_post_hook(module, hook, takes_kwargs, args, kwargs, output)
        return output if bw is None else bw.setup_output_hook(output)
    except Exception:
        for hid, hook, takes_kwargs, always in _post_hooks(module):
            if not always or hid in done:
                continue
            try:
                output = _run_post_hook(module, hook, takes_kwargs, args, kwargs, output)
            except Exception as e:
                # the original error is the one worth seeing; the hook's is only reported
                warnings.warn("module forward hook with ``always_call=True`` raised an exception "
                              f"that was silenced as another error was raised in forward: {e}",
                              stacklevel=2)
        raise


class HookRegistration:
    """The per-module hook registration methods of ``Module``."""

    def register_forward_pre_hook(self, hook, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` (or ``(module, args, kwargs)``) runs before ``forward``; may replace args."""
        return _add(self._forward_pre_hooks, hook, prepend=prepend,
                    options=[(self._forward_pre_hooks_with_kwargs, with_kwargs)])

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """``hook(module, args, output)`` (or ``(module, args, kwargs, output)``) runs after ``forward``."""
        return _add(self._forward_hooks, hook, prepend=prepend,
                    options=[(self._forward_hooks_with_kwargs, with_kwargs),
                             (self._forward_hooks_always_called, always_call)])

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` runs once the output gradients are known; may return new ones."""
        return _add(self._backward_pre_hooks, hook, prepend=prepend)

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` runs once the input gradients are known; may
        return a new ``grad_input``."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on "
                               "a single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        return _add(self._backward_hooks, hook, prepend=prepend)
