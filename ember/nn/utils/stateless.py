"""``functional_call``: run a module with some parameters/buffers swapped for given tensors
(layer L4).

Example:
    >>> import ember
    >>> from ember import nn
    >>> m = nn.Linear(2, 1)
    >>> w = {"weight": ember.ones(1, 2), "bias": ember.zeros(1)}
    >>> functional_call(m, w, (ember.tensor([[1., 2.]]),))
    tensor([[3.]])
"""
from __future__ import annotations

from contextlib import contextmanager

__all__ = ["functional_call"]


def _swap(module, name: str, tensor):
    """Put ``tensor`` at dotted ``name``; returns a function restoring the old entry."""
    prefix, _, attr = name.rpartition(".")
    sub = module.get_submodule(prefix) if prefix else module
    for store in (sub._parameters, sub._buffers):
        if attr in store:
            old = store[attr]
            store[attr] = tensor

            def restore(store=store, attr=attr, old=old):
                store[attr] = old
            return restore
    had = attr in sub.__dict__
    old = sub.__dict__.get(attr)
    object.__setattr__(sub, attr, tensor)

    def restore_attr(sub=sub, attr=attr, had=had, old=old):
        if had:
            object.__setattr__(sub, attr, old)
        else:
            object.__delattr__(sub, attr)
    return restore_attr


@contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights: bool = False,
                          strict: bool = False):
    names = dict(parameters_and_buffers)
    if tie_weights:
        # a tensor shared under several names is replaced under all of them
        by_id: dict = {}
        for n, t in list(module.named_parameters(remove_duplicate=False)) + \
                list(module.named_buffers(remove_duplicate=False)):
            by_id.setdefault(id(t), []).append(n)
        for group in by_id.values():
            given = [n for n in group if n in parameters_and_buffers]
            if len(given) > 1:
                first = parameters_and_buffers[given[0]]
                if any(parameters_and_buffers[n] is not first for n in given[1:]):
                    raise ValueError(f"functional_call got multiple values for keys {given}, "
                                     "which are tied. Consider using tie_weights=False")
            if given:
                for n in group:
                    names.setdefault(n, parameters_and_buffers[given[0]])
    if strict:
        expected = {n for n, _ in module.named_parameters(remove_duplicate=False)} | \
            {n for n, _ in module.named_buffers(remove_duplicate=False)}
        missing = sorted(expected - set(names))
        unexpected = sorted(set(parameters_and_buffers) - expected)
        msgs = []
        if unexpected:
            msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(msgs)))
    restores = []
    try:
        for name, tensor in names.items():
            restores.append(_swap(module, name, tensor))
        yield
    finally:
        for restore in reversed(restores):
            restore()


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights: bool = True, strict: bool = False):
    """``module(*args, **kwargs)`` with the named parameters/buffers replaced by the given
    tensors (one dict or a sequence of dicts); the module is unchanged afterwards."""
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        keys = [k for d in parameter_and_buffer_dicts for k in d.keys()]
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        merged = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(parameter_and_buffer_dicts)}")
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, merged, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)
