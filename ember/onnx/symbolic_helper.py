"""``torch.onnx.symbolic_helper``: ``parse_args``, the decorator symbolic functions declare their
argument kinds with ("v" value, "i" int, "f" float, "b" bool, "is" int list, "none").

ember has no ONNX exporter yet, so the descriptors are only recorded on the function
(``fn._arg_descriptors``) for an exporter to use; calling the function passes arguments unchanged.

Example:
    >>> @parse_args("v", "i")
    ... def sym(g, x, dim):
    ...     return (x, dim)
    >>> sym._arg_descriptors, sym(None, 1, 2)
    (('v', 'i'), (1, 2))
"""
from __future__ import annotations

import functools

__all__ = ["parse_args"]


def parse_args(*arg_descriptors):
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(g, *args, **kwargs):
            return fn(g, *args, **kwargs)
        wrapper._arg_descriptors = arg_descriptors
        return wrapper
    return decorator
