"""The backend registry: names -> ``backend(gm, example_inputs) -> callable``.

``"eager"`` runs the captured graph as generated Python; ``"aot_eager"`` runs it through AOT
autograd (``ember._functorch``: forward and backward graphs, interpreted node by node).
``"inductor"`` (the default of ``ember.compile``) runs AOT autograd with ``ember._inductor``'s
generated fused kernels (``ember._inductor.compile_fx``).

Example:
    >>> from ember._dynamo.backends.registry import list_backends, lookup_backend
    >>> "inductor" in list_backends(), "eager" in list_backends()
    (True, False)
    >>> lookup_backend("eager").__name__
    'eager'
"""
from __future__ import annotations

from ..._functorch.compilers import aot_eager as _aot_eager
from ..._inductor.compile_fx import compile_fx
from ..exc import InvalidBackend

_BACKENDS: dict = {}
_TAGS: dict = {}


def register_backend(compiler_fn=None, name: str | None = None, tags=()):
    """Register ``compiler_fn`` under ``name`` (default: its ``__name__``); usable as a decorator."""
    if compiler_fn is None:
        return lambda fn: register_backend(fn, name=name, tags=tags)
    name = name or compiler_fn.__name__
    if name in _BACKENDS and _BACKENDS[name] is not compiler_fn:
        raise AssertionError(f"duplicate name: {name}")
    _BACKENDS[name] = compiler_fn
    _TAGS[name] = tuple(tags)
    return compiler_fn


def lookup_backend(compiler_fn):
    """A backend callable from a name or a callable; unknown names raise ``InvalidBackend``."""
    if isinstance(compiler_fn, str):
        if compiler_fn not in _BACKENDS:
            raise InvalidBackend(name=compiler_fn)
        return _BACKENDS[compiler_fn]
    if not callable(compiler_fn):
        raise InvalidBackend(name=compiler_fn)
    return compiler_fn


def list_backends(exclude_tags=("debug", "experimental")) -> list:
    """Registered backend names, without those carrying any of ``exclude_tags``."""
    exclude = set(exclude_tags or ())
    return sorted(n for n in _BACKENDS if not exclude.intersection(_TAGS[n]))


@register_backend(tags=("debug",))
def eager(gm, example_inputs):
    """Run the captured graph's generated Python as is."""
    return gm.forward


def inductor(gm, example_inputs, **kwargs):
    """AOT autograd + generated Numba kernels (``ember._inductor.compile_fx``)."""
    return compile_fx(gm, example_inputs, **kwargs)


register_backend(inductor, name="inductor")
register_backend(_aot_eager, name="aot_eager", tags=("debug",))
