"""``__torch_function__``: the public-level interception point (layer L2), with torch's names.

Every public function and Tensor method checks its tensor-like arguments; when one has a
``__torch_function__`` other than the plain Tensor's, the call goes to it as
``cls.__torch_function__(func, types, args, kwargs)``. fx's Proxy and Tensor subclasses hook in here.

Example:
    >>> class Logged:
    ...     @classmethod
    ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
    ...         return func.__name__
    >>> import ember
    >>> ember.add(Logged(), 1)
    'add'
"""
from __future__ import annotations

import functools
import threading
from types import FunctionType

from ._tensor_base import TensorBase

__all__ = ["has_torch_function", "handle_torch_function", "try_torch_function", "is_tensor_like", "public", "mode_call",
           "TorchFunctionMode",
           "PLAIN_TYPES", "DisableTorchFunction", "DisableTorchFunctionSubclass"]

# types that never override the protocol (the fast path skips it for them): Python scalars and None
# here, Tensor and Parameter added where they are defined. While a TorchFunctionMode is entered in any
# thread, the tensor classes leave this set, so every inline ``type(x) in PLAIN_TYPES`` check fails and
# its ``try_torch_function`` shows the mode the call: modes cost nothing while none is entered. (A
# plain set: ``in`` on a set subclass costs ~25 ns more.)
PLAIN_TYPES: set = {int, float, bool, complex, type(None)}
_SCALAR_TYPES = frozenset(PLAIN_TYPES)
# what never overrides the protocol, whatever modes do: PLAIN_TYPES itself, or while a function mode
# is entered the copy taken before its tensor classes left it
_PLAIN: set = PLAIN_TYPES
_TENSOR_PLAIN: set = set()  # the tensor classes taken out of PLAIN_TYPES while a mode is entered
_TENSOR_BASE_TYPE = [None]  # the public Tensor class among them (torch's ``types`` for F.* functions)
# entered modes, every thread: [dispatch modes (and general_path_only), function modes]; ANY_MODE[0]
# is True while either is non-zero: the one global read the fast paths make
_MODE_COUNT = [0, 0]
ANY_MODE = [False]
_COUNT_LOCK = threading.Lock()


def _hide_tensor_types(hide: bool) -> None:
    global _PLAIN
    if hide:
        _PLAIN = frozenset(PLAIN_TYPES)
        _TENSOR_PLAIN.clear()
        _TENSOR_PLAIN.update(t for t in PLAIN_TYPES if t not in _SCALAR_TYPES)
        bases = [t for t in _TENSOR_PLAIN if issubclass(t, TensorBase)]
        _TENSOR_BASE_TYPE[0] = min(bases, key=lambda t: len(t.__mro__)) if bases else None
        PLAIN_TYPES.difference_update(_TENSOR_PLAIN)
    else:
        PLAIN_TYPES.update(_TENSOR_PLAIN)
        _PLAIN = PLAIN_TYPES


def count_modes(kind: int, delta: int) -> None:
    """A mode of ``kind`` (0: dispatch, 1: function) was entered (+1) or exited (-1) in some thread."""
    with _COUNT_LOCK:
        before = _MODE_COUNT[1]
        _MODE_COUNT[kind] += delta
        ANY_MODE[0] = bool(_MODE_COUNT[0] or _MODE_COUNT[1])
        _any_function_mode[0] = bool(_MODE_COUNT[1])
        if kind == 1 and bool(before) != bool(_MODE_COUNT[1]):
            _hide_tensor_types(not before)
            for cls, visible, original in _SWAPS:  # methods that do not check modes themselves
                now, then = (original, visible) if not before else (visible, original)
                for attr, fn in then.items():
                    if cls.__dict__.get(attr) is now[attr]:  # (an attribute reassigned since stays)
                        setattr(cls, attr, fn)


class _State(threading.local):
    def __init__(self):
        self.disabled = 0
        self.subclass_disabled = 0


STATE = _State()


def is_tensor_like(x) -> bool:
    return isinstance(x, TensorBase) or hasattr(type(x), "__torch_function__")


def _overriding(args) -> list:
    seen, out = set(), []
    for a in args:
        t = type(a)
        if t in _PLAIN or t in seen:
            continue
        if t is list or t is tuple:
            for x in _overriding(a):
                if type(x) not in seen:
                    seen.add(type(x))
                    out.append(x)
            continue
        if hasattr(t, "__torch_function__"):
            seen.add(t)
            out.append(a)
    return out


def has_torch_function(args) -> bool:
    """True when some argument overrides the protocol (and it is not disabled)."""
    if STATE.disabled:
        return False
    for a in args:
        t = type(a)
        if t in _PLAIN:
            continue
        if t is list or t is tuple:
            if has_torch_function(a):
                return True
        elif hasattr(t, "__torch_function__"):
            if STATE.subclass_disabled and isinstance(a, TensorBase):
                continue
            return True
    return False


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call the overriding ``__torch_function__`` of ``relevant_args`` (subclasses first)."""
    overloaded = _overriding(relevant_args)
    # subclasses before their parents, as torch orders them
    overloaded.sort(key=lambda x: -len(type(x).__mro__))
    types = tuple(type(x) for x in overloaded)
    for a in overloaded:
        fn = type(a).__torch_function__
        result = fn(public_api, types, args, kwargs) if not hasattr(fn, "__func__") \
            else fn.__func__(type(a), public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    raise TypeError(f"no implementation found for '{getattr(public_api, '__qualname__', public_api)}' on "
                    f"types that implement __torch_function__: {[type(a) for a in overloaded]}")


class _ModeStack(threading.local):
    def __init__(self):
        self.stack = []


_FUNCTION_MODES = _ModeStack()
_any_function_mode = [False]


class TorchFunctionMode:
    """Intercepts every public function, Tensor method and operator call in its ``with`` block, as
    torch's does: override ``__torch_function__(self, func, types, args=(), kwargs=None)``; ``func`` is
    the public callable (``Tensor.add`` for ``a + b``, ``ember.zeros``...), and calling it inside runs
    it under the modes below this one (this one is popped meanwhile). ``types``: the argument types
    that override the protocol (Tensor subclasses), as torch gives them. ember's own use: autocast's
    float32 list for composite losses.

    Example:
        >>> import ember
        >>> seen = []
        >>> class Log(TorchFunctionMode):
        ...     def __torch_function__(self, func, types, args=(), kwargs=None):
        ...         seen.append(func.__name__)
        ...         return func(*args, **(kwargs or {}))
        >>> t = ember.ones(2)
        >>> with Log():
        ...     _ = (t + t).exp().sum()
        >>> seen
        ['add', 'exp', 'sum']
    """

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _FUNCTION_MODES.stack.append(self)
        count_modes(1, 1)
        return self

    def __exit__(self, *exc):
        _FUNCTION_MODES.stack.remove(self)
        count_modes(1, -1)

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)


def _mode_types(func, args, kwargs) -> tuple:
    """torch's ``types`` for a mode: the overriding argument types (Tensor subclasses, other
    tensor-likes), subclasses first; plain Tensors count only for Python-level functions
    (nn.functional), as torch's Python ``handle_torch_function`` collects them."""
    overloaded = _overriding(tuple(args) + tuple(kwargs.values()) if kwargs else args)
    python_level = (getattr(func, "__module__", None) or "").startswith("ember.nn.functional")
    types = [type(a) for a in overloaded]
    if python_level and not types and any(type(a) is _TENSOR_BASE_TYPE[0] for a in args):
        types.append(_TENSOR_BASE_TYPE[0])  # (a Parameter is plain there too)
    return tuple(sorted(types, key=lambda t: -len(t.__mro__)))




def _via_function_mode(func, args, kwargs):
    """Hand the call to the innermost mode, popped while it runs (its ``func(...)`` runs below it)."""
    stack = _FUNCTION_MODES.stack
    mode = stack.pop()
    try:
        return mode.__torch_function__(func, _mode_types(func, args, kwargs), tuple(args), kwargs or {})
    finally:
        stack.append(mode)


def try_torch_function(public_api, relevant_args, *args, **kwargs):
    """``public_api``'s result from the innermost ``TorchFunctionMode`` or an overriding
    ``__torch_function__`` among ``relevant_args``, or ``NotImplemented`` when neither applies (for
    callers that handle several arguments themselves)."""
    if _FUNCTION_MODES.stack and not STATE.disabled:
        return _via_function_mode(public_api, args, kwargs)
    if has_torch_function(relevant_args):
        return handle_torch_function(public_api, relevant_args, *args, **kwargs)
    return NotImplemented


def mode_call(public_api, args, kwargs):
    """``public_api``'s result from the innermost ``TorchFunctionMode`` of this thread, or
    ``NotImplemented`` when none is entered (or ``DisableTorchFunction`` is): for public functions
    with no tensor argument (factories), after reading ``ANY_MODE[0]``."""
    if _FUNCTION_MODES.stack and not STATE.disabled:
        return _via_function_mode(public_api, args, kwargs)
    return NotImplemented


def public(fn, name: str | None = None, module: str | None = None):
    """Decorate a public function so tensor-like arguments may override it (the long-tail path);
    ``name``/``module`` publish it under another name (``ember.lu_solve`` from a helper)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if _any_function_mode[0] and _FUNCTION_MODES.stack and not STATE.disabled:
            return _via_function_mode(wrapper, args, kwargs)
        for a in args:  # plain Tensors and scalars (the common case) cannot override: no further check
            if type(a) not in _PLAIN:
                if has_torch_function(args):
                    return handle_torch_function(wrapper, args + tuple(kwargs.values()), *args, **kwargs)
                break
        if kwargs and has_torch_function(tuple(kwargs.values())):
            return handle_torch_function(wrapper, args + tuple(kwargs.values()), *args, **kwargs)
        return fn(*args, **kwargs)
    wrapper.__wrapped__ = fn
    if name is not None:
        wrapper.__name__ = wrapper.__qualname__ = name
    if module is not None:
        wrapper.__module__ = module
    return wrapper


# ------------------------------------------------------------------ making every public name visible
_PUBLIC_CODE = public(lambda: None).__code__


def shows_modes(fn, name: str) -> bool:
    """Whether ``fn`` already hands a ``TorchFunctionMode`` its calls under ``name``: a ``public``
    function, a generated fast method (its fallback checks), or one that calls
    ``try_torch_function``/``handle_torch_function`` (its inline ``PLAIN_TYPES`` check fails while a
    mode is entered)."""
    if getattr(fn, "__name__", None) != name:
        return False
    code = fn.__code__
    return code is _PUBLIC_CODE or getattr(fn, "_shows_modes", False) \
        or code.co_filename.startswith("<ember fast path") \
        or "try_torch_function" in code.co_names or "handle_torch_function" in code.co_names


def mode_visible(fn, name: str, qualname: str | None = None, module: str | None = None):
    """``fn`` behind a check that hands an entered ``TorchFunctionMode`` the call as ``name`` (the
    wrapper itself is the ``func`` the mode calls back)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if ANY_MODE[0] and _FUNCTION_MODES.stack and not STATE.disabled:
            return _via_function_mode(wrapper, args, kwargs)
        return fn(*args, **kwargs)
    wrapper.__name__ = name
    wrapper.__qualname__ = qualname or name
    if module is not None:
        wrapper.__module__ = module
    wrapper._shows_modes = True
    return wrapper


def expose_functions(namespace: dict, names, module: str) -> None:
    """Make the functions ``names`` of a public namespace (a module's ``__dict__``) visible to modes:
    those that do not check modes themselves are replaced by a ``mode_visible`` wrapper, once."""
    for name in names:
        fn = namespace.get(name)
        if type(fn) is FunctionType and not shows_modes(fn, name):
            namespace[name] = mode_visible(fn, name, name, module)


# (class, {attr: visible version}, {attr: original}): installed while a function mode is entered in
# any thread, so the methods cost nothing otherwise (installing ~300 attributes takes ~50 us)
_SWAPS: list = []


def expose_methods(cls, methods, properties, operators: dict) -> None:
    """Make ``cls``'s methods, properties (a mode sees their ``__get__``) and operators (as the name
    torch shows: ``__radd__`` -> ``add``) visible to modes while one is entered."""
    import inspect  # noqa: PLC0415 (import time only)
    visible, original = {}, {}
    for attr in sorted(set(methods) | set(operators)):
        try:
            fn = inspect.getattr_static(cls, attr)
        except AttributeError:
            continue
        shown = operators.get(attr, attr)
        if type(fn) is FunctionType and not shows_modes(fn, shown):
            visible[attr] = mode_visible(fn, shown, f"{cls.__name__}.{shown}", fn.__module__)
            original[attr] = fn
    for attr in sorted(properties):
        prop = inspect.getattr_static(cls, attr, None)
        if type(prop) is property and prop.fget is not None:
            get = mode_visible(prop.fget, "__get__", f"{cls.__name__}.{attr}.__get__", prop.fget.__module__)
            visible[attr] = property(get, prop.fset, prop.fdel, prop.__doc__)
            original[attr] = prop
    with _COUNT_LOCK:
        _SWAPS.append((cls, visible, original))
        for attr, fn in original.items():  # inherited ones now live on cls: the swap restores them there
            setattr(cls, attr, visible[attr] if _MODE_COUNT[1] else fn)


def run_without_function_modes(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` with this thread's function modes set aside (torch's autograd engine
    runs derivatives below them)."""
    stack = _FUNCTION_MODES.stack
    if not stack:
        return fn(*args, **kwargs)
    _FUNCTION_MODES.stack = []
    try:
        return fn(*args, **kwargs)
    finally:
        _FUNCTION_MODES.stack = stack


class DisableTorchFunction:
    """Inside, ``__torch_function__`` overrides are ignored entirely."""

    def __enter__(self):
        STATE.disabled += 1

    def __exit__(self, *exc):
        STATE.disabled -= 1


class DisableTorchFunctionSubclass:
    """Inside, Tensor subclasses' overrides are ignored (what the default ``__torch_function__`` uses)."""

    def __enter__(self):
        STATE.subclass_disabled += 1

    def __exit__(self, *exc):
        STATE.subclass_disabled -= 1
