"""``RemovableHandle``: what every ``register_*_hook`` returns (pure Python, layer L0).

Example:
    >>> from collections import OrderedDict
    >>> hooks = OrderedDict()
    >>> h = RemovableHandle(hooks); hooks[h.id] = print
    >>> h.remove(); len(hooks)
    0
"""
from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict

__all__ = ["RemovableHandle", "add_hook"]


class RemovableHandle:
    """Removes the hook it was created for from one or more OrderedDicts (weak-referenceable), keyed by ``id``."""

    id: int
    next_id = itertools.count()

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle.next_id)
        if extra_dict is None:
            extra = ()
        elif isinstance(extra_dict, (list, tuple)):
            extra = tuple(extra_dict)
        else:
            extra = (extra_dict,)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra)

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref,) + self.extra_dict_ref:
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id)

    def __setstate__(self, state):
        self.hooks_dict_ref = weakref.ref(state[0] if state[0] is not None else OrderedDict())
        self.id = state[1]
        RemovableHandle.next_id = itertools.count(max(next(RemovableHandle.next_id), self.id + 1))
        self.extra_dict_ref = ()


def add_hook(owner, attr: str, value) -> RemovableHandle:
    """Store ``value`` in the OrderedDict ``owner.<attr>`` (made on first use, so objects without hooks
    carry None) under a new handle, and return the handle."""
    hooks = getattr(owner, attr)
    if hooks is None:
        hooks = OrderedDict()
        setattr(owner, attr, hooks)
    handle = RemovableHandle(hooks)
    hooks[handle.id] = value
    return handle
