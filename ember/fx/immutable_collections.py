"""``immutable_list`` / ``immutable_dict``: the containers Node args and kwargs are stored in.

Mutating them raises, so a Node's uses stay consistent: change arguments through ``node.args = ...``
or ``node.update_arg``.

Example:
    >>> from ember.fx.immutable_collections import immutable_list
    >>> xs = immutable_list([1, 2])
    >>> try:
    ...     xs.append(3)
    ... except NotImplementedError as e:
    ...     print(e)
    'immutable_list' object does not support mutation. If you are attempting to modify the kwargs or args of a torch.fx.Node object, instead create a new copy of it and assign the copy to the node:
        new_args = ... # copy and mutate args
        node.args = new_args
"""
from __future__ import annotations

from ..utils._pytree import register_pytree_node

__all__ = ["immutable_list", "immutable_dict"]

_help = ("If you are attempting to modify the kwargs or args of a torch.fx.Node object, instead "
         "create a new copy of it and assign the copy to the node:\n"
         "    new_args = ... # copy and mutate args\n"
         "    node.args = new_args\n")


def _no_mutation(self, *args, **kwargs):
    raise NotImplementedError(f"'{type(self).__name__}' object does not support mutation. {_help}")


class immutable_list(list):
    """A list that refuses mutation (hashable, so it can key a dict)."""

    __delitem__ = __iadd__ = __imul__ = __setitem__ = _no_mutation
    append = clear = extend = insert = pop = remove = reverse = sort = _no_mutation

    def __hash__(self):
        return hash(tuple(self))

    def __reduce__(self):
        return (immutable_list, (tuple(iter(self)),))


class immutable_dict(dict):
    """A dict that refuses mutation (hashable, so it can key a dict)."""

    __delitem__ = __setitem__ = __ior__ = _no_mutation
    clear = pop = popitem = setdefault = update = _no_mutation

    def __hash__(self):
        return hash(tuple(self.items()))

    def __reduce__(self):
        return (immutable_dict, (tuple(self.items()),))


register_pytree_node(immutable_list, lambda x: (list(x), None),
                     lambda values, ctx: immutable_list(values))
register_pytree_node(immutable_dict, lambda x: (list(x.values()), list(x.keys())),
                     lambda values, keys: immutable_dict(zip(keys, values)))
