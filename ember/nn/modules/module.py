"""``Module``: the base class of every layer (layer L4).

A module keeps its state in three tables filled by ``__setattr__``: ``_parameters``, ``_buffers``
and ``_modules`` (children). Attribute reads fall back to them through ``__getattr__``. Every
tree walk starts from ``named_modules``; the state_dict machinery lives in ``_module_state`` and
the hook registration and slow call path in ``_module_hooks``.

Example:
    >>> import ember
    >>> from ember import nn
    >>> class Net(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = nn.Linear(2, 3)
    ...         self.register_buffer("step", ember.zeros(()))
    ...     def forward(self, x):
    ...         return self.fc(x)
    >>> net = Net()
    >>> list(net.state_dict())
    ['step', 'fc.weight', 'fc.bias']
    >>> net
    Net(
      (fc): Linear(in_features=2, out_features=3, bias=True)
    )
"""
from __future__ import annotations

import sys
import warnings
from collections import OrderedDict

from ... import _dtype as D
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import Buffer, Parameter

from ._backward_hook import _global_backward_hooks, _global_backward_pre_hooks
from ._module_hooks import (HookRegistration, _global_forward_hooks,  # noqa: F401 (re-exported)
                            _global_forward_hooks_always_called, _global_forward_pre_hooks,
                            call_with_hooks, register_module_forward_hook,
                            register_module_forward_pre_hook, register_module_full_backward_hook,
                            register_module_full_backward_pre_hook)
from ._module_state import _EXTRA_STATE_KEY_SUFFIX, StateDictMixin, _IncompatibleKeys  # noqa: F401

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook"]

# every table a fresh Module gets; also what __setstate__ fills in for old pickles
_HOOK_TABLES = ("_backward_pre_hooks", "_backward_hooks", "_forward_hooks",
                "_forward_hooks_with_kwargs", "_forward_hooks_always_called", "_forward_pre_hooks",
                "_forward_pre_hooks_with_kwargs", "_state_dict_hooks", "_state_dict_pre_hooks",
                "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks")


def _addindent(text: str, num_spaces: int) -> str:
    """Indent every line of ``text`` but the first by ``num_spaces`` (blank lines stay empty)."""
    first, sep, rest = text.partition("\n")
    if not sep:
        return text
    pad = " " * num_spaces
    return first + "\n" + "\n".join(pad + ln if ln.strip() else "" for ln in rest.split("\n"))


def _typename(obj) -> str:
    """The type name torch prints in assignment errors (``torch.FloatTensor``, ``int``, ``pkg.Cls``)."""
    if isinstance(obj, Tensor):
        return obj.type()
    cls = type(obj)
    where = getattr(cls, "__module__", "") or ""
    return cls.__qualname__ if where in ("", "builtins") else f"{where}.{cls.__qualname__}"


def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" '
                              f'function')


def _check_member_name(kind: str, name) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if not name:
        raise KeyError(f'{kind} name can\'t be empty string ""')


def _forget(name: str, *tables) -> None:
    for table in tables:
        if isinstance(table, set):
            table.discard(name)
        else:
            table.pop(name, None)


def _bump_version(module) -> None:
    # ember.compile guards a module by this counter instead of by each attribute it read
    d = module.__dict__
    d["_ember_version"] = d.get("_ember_version", 0) + 1


def _resolve(root, target: str, want, wrong: str):
    """The object at dotted ``target`` under ``root``; ``want(owner, name, obj)`` validates it."""
    path, _, name = target.rpartition(".")
    owner = root.get_submodule(path)
    if not hasattr(owner, name):
        raise AttributeError(owner._get_name() + " has no attribute `" + name + "`")
    obj = getattr(owner, name)
    if not want(owner, name, obj):
        raise AttributeError("`" + name + "` is " + wrong)
    return obj


class Module(HookRegistration, StateDictMixin):
    """Base class for all neural network modules; subclasses define ``forward``."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs) -> None:
        if not self.call_super_init:
            if kwargs:
                raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                                f"argument '{next(iter(kwargs))}'")
            if args:
                raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                                f"{len(args) + 1} were given")
        # written straight into __dict__: __setattr__ needs these tables to exist first
        state = self.__dict__
        state.update(training=True, _parameters={}, _buffers={},
                     _non_persistent_buffers_set=set(), _is_full_backward_hook=None, _modules={})
        for table in _HOOK_TABLES:
            state[table] = OrderedDict()
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ------------------------------------------------------------------ calling
    def __call__(self, *args, **kwargs):
        # common case first: no hook anywhere means a plain forward call
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks
                or self._backward_pre_hooks or _global_forward_hooks or _global_forward_pre_hooks
                or _global_backward_hooks or _global_backward_pre_hooks):
            return self.forward(*args, **kwargs)
        return call_with_hooks(self, args, kwargs)

    _wrapped_call_impl = __call__

    def _call_impl(self, *args, **kwargs):
        return call_with_hooks(self, args, kwargs)

    # ------------------------------------------------------------------ registration
    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """Add a buffer (state that is not a parameter, e.g. running statistics)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_member_name("buffer", name)
        if name not in self._buffers and hasattr(self, name):
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not (isinstance(tensor, Tensor) or
                                       hasattr(tensor, "__torch_function__")):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        _bump_version(self)
        (self._non_persistent_buffers_set.discard if persistent
         else self._non_persistent_buffers_set.add)(name)

    def register_parameter(self, name: str, param) -> None:
        """Add a parameter (a ``Parameter`` or None) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_member_name("parameter", name)
        if name not in self._parameters and hasattr(self, name):
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None:
            if not isinstance(param, Parameter):
                raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                                "(torch.nn.Parameter or None required)")
            if param.grad_fn:
                raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                                 f"parameters must be created explicitly. To express '{name}' as a "
                                 "function of another Tensor, compute the value in the forward() "
                                 "method.")
        self._parameters[name] = param
        _bump_version(self)

    def add_module(self, name: str, module) -> None:
        """Add a child module under ``name`` (also reachable as an attribute)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if name not in self._modules and hasattr(self, name):
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if not name:
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module
        _bump_version(self)

    def register_module(self, name: str, module) -> None:
        """Alias for ``add_module``."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> "Module":
        """The submodule at dotted path ``target`` ('' is self)."""
        found = self
        for part in target.split(".") if target else ():
            if not hasattr(found, part):
                raise AttributeError(found._get_name() + " has no attribute `" + part + "`")
            found = getattr(found, part)
            if not isinstance(found, Module):
                raise AttributeError("`" + part + "` is not an nn.Module")
        return found

    def set_submodule(self, target: str, module: "Module", strict: bool = False) -> None:
        """Replace (or add, unless ``strict``) the submodule at dotted path ``target``."""
        if not target:
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        path, _, leaf = target.rpartition(".")
        owner = self.get_submodule(path)
        present = hasattr(owner, leaf)
        if strict and not present:
            raise AttributeError(owner._get_name() + " has no attribute `" + leaf + "`")
        if present and not isinstance(getattr(owner, leaf), Module):
            raise AttributeError("`" + leaf + "` is not an nn.Module")
        setattr(owner, leaf, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path ``target``."""
        return _resolve(self, target, lambda owner, n, obj: isinstance(obj, Parameter),
                        "not an nn.Parameter")

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target``."""
        return _resolve(self, target, lambda owner, n, obj: n in owner._buffers, "not a buffer")

    # ------------------------------------------------------------------ attribute protocol
    def __getattr__(self, name: str):
        # only reached when normal lookup failed
        state = self.__dict__
        if "_parameters" in state:
            for table in ("_parameters", "_buffers", "_modules"):
                members = state[table]
                if name in members:
                    return members[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        state = self.__dict__
        params, bufs, mods = (state.get(k) for k in ("_parameters", "_buffers", "_modules"))
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _forget(name, state, bufs, mods, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, None)
        elif isinstance(value, Module):
            if mods is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            _forget(name, state, params, bufs, self._non_persistent_buffers_set)
            mods[name] = value
        elif mods is not None and name in mods:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            mods[name] = None
        elif isinstance(value, Buffer) or (bufs is not None and name in bufs):
            if value is not None and not (isinstance(value, Tensor) or
                                          hasattr(value, "__torch_function__")):
                raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                "(torch.nn.Buffer, torch.Tensor or None expected)")
            # a plain tensor keeps the buffer's current persistence; a Buffer brings its own
            keep = value.persistent if isinstance(value, Buffer) else \
                name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, keep)
        else:
            object.__setattr__(self, name, value)
        _bump_version(self)

    def __delattr__(self, name: str) -> None:
        _bump_version(self)
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __getstate__(self):
        return dict(self.__dict__)

    def __setstate__(self, state):
        self.__dict__.update(state)
        # pickles from older versions may lack tables added since
        for table in _HOOK_TABLES:
            self.__dict__.setdefault(table, OrderedDict())
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    def __dir__(self):
        names = set(dir(type(self)))
        names.update(self.__dict__, self._parameters, self._modules, self._buffers)
        return sorted(n for n in names if not n[0].isdigit())

    # ------------------------------------------------------------------ traversal
    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """Yield ``(name, module)`` for self and every descendant (each module once by default)."""
        seen = set() if memo is None else memo
        if self in seen:
            return
        if remove_duplicate:
            seen.add(self)
        yield prefix, self
        for name, child in self._modules.items():
            if child is not None:
                yield from child.named_modules(seen, f"{prefix}.{name}" if prefix else name,
                                               remove_duplicate)

    def _named_members(self, get_members_fn, prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True):
        if recurse:
            owners = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
        else:
            owners = [(prefix, self)]
        seen = set()
        for owner_name, owner in owners:
            for name, member in get_members_fn(owner):
                if member is None or member in seen:
                    continue
                if remove_duplicate:
                    seen.add(member)
                yield (f"{owner_name}.{name}" if owner_name else name), member

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """Yield ``(dotted name, parameter)``."""
        return self._named_members(lambda m: m._parameters.items(), prefix=prefix, recurse=recurse,
                                   remove_duplicate=remove_duplicate)

    def parameters(self, recurse: bool = True):
        """Yield every parameter (shared ones once)."""
        return (p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """Yield ``(dotted name, buffer)``."""
        return self._named_members(lambda m: m._buffers.items(), prefix=prefix, recurse=recurse,
                                   remove_duplicate=remove_duplicate)

    def buffers(self, recurse: bool = True):
        """Yield every buffer."""
        return (b for _, b in self.named_buffers(recurse=recurse))

    def named_children(self):
        """Yield ``(name, module)`` for the direct children (each once)."""
        seen = set()
        for name, child in self._modules.items():
            if child is None or child in seen:
                continue
            seen.add(child)
            yield name, child

    def children(self):
        """Yield the direct children."""
        return (c for _, c in self.named_children())

    def modules(self):
        """Yield self and every descendant."""
        return (m for _, m in self.named_modules())

    # ------------------------------------------------------------------ bulk changes
    def apply(self, fn):
        """Call ``fn(module)`` on every child (recursively), then on self; returns self."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def _apply(self, fn, recurse: bool = True):
        if recurse:
            for child in self.children():
                child._apply(fn)
        for p in self._parameters.values():
            if p is not None:
                _convert_parameter(p, fn)
        for name, b in list(self._buffers.items()):
            if b is not None:
                self._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """Cast floating/complex parameters and buffers to ``dtype`` and/or move them to ``device``."""
        device, dtype = _parse_to(*args, **kwargs)
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                                f"desired dtype={dtype}")
            if dtype.is_complex:
                warnings.warn("Complex modules are a new feature under active development whose design "
                              "may change, and some modules might not work as expected when using "
                              "complex tensors as parameters or buffers.", stacklevel=2)

        def move(t):
            # integer/bool tensors follow the device but keep their dtype
            keeps_dtype = not (t.is_floating_point() or t.is_complex())
            return t.to(device, None if keeps_dtype else dtype)
        return self._apply(move)

    def _cast_floats(self, method: str):
        return self._apply(lambda t: getattr(t, method)() if t.is_floating_point() else t)

    def float(self):
        return self._cast_floats("float")

    def double(self):
        return self._cast_floats("double")

    def half(self):
        return self._cast_floats("half")

    def bfloat16(self):
        return self._cast_floats("bfloat16")

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def to_empty(self, *, device, recurse: bool = True):
        """Fresh uninitialised storage on ``device`` for every parameter and buffer."""
        from ..._creation import empty_like
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def share_memory(self):
        return self._apply(lambda t: t.share_memory_())

    def train(self, mode: bool = True):
        """Set training mode on self and every descendant; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def compile(self, *args, **kwargs) -> None:
        """Compile this module's ``forward`` in place with ``ember.compile(*args, **kwargs)``;
        parameter names and ``state_dict`` keys stay unchanged (unlike an ``OptimizedModule``)."""
        ember = sys.modules["ember"]  # the top-level namespace (no upward import from nn)
        self.__dict__["forward"] = ember._dynamo.eval_frame.compile_module_forward(self, *args, **kwargs)
        _bump_version(self)

    def eval(self):
        """Same as ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True):
        """Set ``requires_grad`` on every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters (to None by default)."""
        for p in self.parameters():
            g = p.grad
            if g is None:
                continue
            if set_to_none:
                p.grad = None
                continue
            # cut the gradient out of any graph before zeroing it in place
            if g.grad_fn is None:
                g.requires_grad_(False)
            else:
                g.detach_()
            g.zero_()

    # ------------------------------------------------------------------ repr
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """Extra text inside ``Name(...)``; override in subclasses."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        body = extra.split("\n") if extra else []
        if len(body) == 1 and not self._modules:
            return f"{self._get_name()}({body[0]})"
        body += [f"({name}): {_addindent(repr(child), 2)}" for name, child in self._modules.items()]
        if not body:
            return self._get_name() + "()"
        return self._get_name() + "(\n  " + "\n  ".join(body) + "\n)"


def _convert_parameter(p: Parameter, fn) -> None:
    """Apply ``fn`` to a parameter and its grad in place of their data (optimizers hold ``p``)."""
    with no_grad():
        p.data = fn(p)
    g = p.grad
    if g is None:
        return
    with no_grad():
        new_g = fn(g)
    if new_g.dtype is g.dtype:
        g.data = new_g
    else:
        p._set_grad_unchecked(new_g)


def _parse_to(*args, **kwargs):
    """(device, dtype) from ``Module.to``'s argument forms."""
    from ..._device import device as Device
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    for ignored in ("non_blocking", "memory_format"):
        kwargs.pop(ignored, None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments - got unexpected "
                        f"keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, D.dtype):
            dtype = a
        elif isinstance(a, (str, int, Device)) and not isinstance(a, bool):
            device = a if isinstance(a, Device) else Device(a)
    if isinstance(device, str):
        device = Device(device)
    return device, dtype
