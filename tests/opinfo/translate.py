"""Turning torch's OpInfo callables and sample inputs into ember's, and ember's results back.

``to_ember(obj)`` maps a torch object to ember's counterpart: tensors (same storage layout: size,
strides and storage offset are kept, so views and ``as_strided`` samples see what torch saw), dtypes,
devices, memory formats, sizes, public functions (found by the namespace torch exposes them in:
``torch.add`` -> ``ember.add``, ``torch.Tensor.add`` -> ``ember.Tensor.add``), and the lambdas and
helpers written in ``torch.testing._internal`` (rebuilt with their globals, defaults and closure cells
translated, so ``lambda x: torch.foo(x)`` runs ``ember.foo``). ``to_torch(obj)`` turns ember results
into torch values so ``torch.testing.assert_close`` can compare them.
"""
from __future__ import annotations

import collections
import contextlib
import functools
import importlib
import types

import numpy as np
import torch

import ember


class Untranslatable(Exception):
    """A torch object with no ember counterpart (the harness reports the name)."""


# namespaces where torch exposes public functions; the same path under ember holds ember's
_NAMESPACES = ("", "nn.functional", "linalg", "special", "fft", "masked", "signal.windows", "nn",
               "nn.init", "autograd", "testing", "func", "random", "sparse")


@functools.lru_cache(maxsize=None)
def _public_map() -> dict:
    """id(torch object) -> (namespace path, attribute name), first namespace wins."""
    found = {}
    for path in _NAMESPACES:
        try:
            mod = importlib.import_module("torch" + ("." + path if path else ""))
        except ImportError:
            continue
        for name in sorted(dir(mod), key=lambda n: n.startswith("_")):  # public names first
            if name.startswith("__"):
                continue
            obj = getattr(mod, name, None)
            if obj is None or isinstance(obj, (types.ModuleType, int, float, str, bool)):
                continue
            found.setdefault(id(obj), (path, name))
    for name in dir(torch.Tensor):
        obj = getattr(torch.Tensor, name, None)
        if callable(obj):
            found.setdefault(id(obj), ("Tensor", name))
    return found


def _ember_attr(path: str, name: str):
    if path == "Tensor":
        owner = ember.Tensor
    else:
        try:
            owner = importlib.import_module("ember" + ("." + path if path else ""))
        except ImportError as e:
            raise Untranslatable(f"ember has no module ember.{path}") from e
    try:
        return getattr(owner, name)
    except AttributeError:
        where = "ember" + ("." + path if path else "")
        raise Untranslatable(f"{where}.{name} is missing") from None


def _is_testing_code(fn) -> bool:
    mod = getattr(fn, "__module__", None) or ""
    return mod.startswith("torch.testing._") or mod == "__main__"


def _code_names(code) -> set:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _code_names(c)
    return names


_FN_MEMO: dict = {}


def _translate_function(fn):
    key = id(fn)
    if key in _FN_MEMO and _FN_MEMO[key][0] is fn:
        return _FN_MEMO[key][1]
    special = _special().get(fn)
    if special is not None:
        return special
    g = fn.__globals__
    new_globals = {"__builtins__": g.get("__builtins__", __builtins__), "__name__": g.get("__name__")}
    cells = None
    if fn.__closure__:
        cells = tuple(types.CellType() for _ in fn.__closure__)
    new_fn = types.FunctionType(fn.__code__, new_globals, fn.__name__, None, cells)
    _FN_MEMO[key] = (fn, new_fn)  # before translating globals: recursion through helpers
    for name in _code_names(fn.__code__):
        if name in g:
            new_globals[name] = to_ember(g[name])
    for old, new in zip(fn.__closure__ or (), cells or ()):
        if _cell_full(old):
            new.cell_contents = to_ember(old.cell_contents)
    new_fn.__defaults__ = to_ember(fn.__defaults__) if fn.__defaults__ else None
    new_fn.__kwdefaults__ = to_ember(fn.__kwdefaults__) if fn.__kwdefaults__ else None
    new_fn.__qualname__ = fn.__qualname__
    new_fn.__dict__.update(fn.__dict__)
    return new_fn


@contextlib.contextmanager
def _freeze_rng_state():
    state = ember.get_rng_state()
    try:
        yield
    finally:
        ember.set_rng_state(state)


@functools.lru_cache(maxsize=None)
def _special() -> dict:
    """torch testing helpers that reach torch internals, with ember's equivalents."""
    from torch.testing import _utils
    return {_utils.freeze_rng_state: _freeze_rng_state}


def _cell_full(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


class TensorConverter:
    """torch tensors -> ember tensors keeping storage sharing, strides and offsets.

    One converter per sample: tensors viewing one torch storage become views of one ember buffer.
    ``grad=False`` makes every ember tensor a plain tensor (for method and in-place variants).
    """

    def __init__(self, grad: bool = True):
        self.grad = grad
        self.bases: dict = {}
        self.tensors: dict = {}

    def __call__(self, t: torch.Tensor):
        if id(t) in self.tensors:
            return self.tensors[id(t)][1]
        if t.layout != torch.strided:
            raise Untranslatable(f"layout {t.layout}")
        td = t.detach()
        if td.is_conj():
            td = td.resolve_conj()
        if td.is_neg():
            td = td.resolve_neg()
        storage = td.untyped_storage()
        key = (storage.data_ptr(), td.dtype)
        if key not in self.bases:
            n = storage.nbytes() // td.element_size()
            flat = torch.empty(0, dtype=td.dtype).set_(storage, 0, (n,), (1,))
            if td.dtype == torch.bfloat16:  # NumPy knows bfloat16 through ml_dtypes only
                import ml_dtypes
                arr = flat.view(torch.int16).numpy().view(ml_dtypes.bfloat16).copy()
            elif td.dtype == torch.complex32:  # ember's complex32: the same float16 pairs
                arr = flat.view(torch.int32).numpy().copy()
            else:
                arr = flat.numpy().copy()
            self.bases[key] = ember.from_numpy(arr)
            if td.dtype == torch.complex32:
                self.bases[key] = self.bases[key].view(ember.complex32)
        base = self.bases[key]
        e = base.as_strided(tuple(td.shape), td.stride(), td.storage_offset()).detach()
        if self.grad and t.requires_grad:
            e.requires_grad_(True)
        self.tensors[id(t)] = (t, e)  # keep t alive so its id is not reused
        return e


def to_ember(obj, tensors: TensorConverter | None = None):
    """ember's counterpart of a torch object (see the module docstring)."""
    if isinstance(obj, torch.Tensor):
        if tensors is None:
            tensors = TensorConverter()
        return tensors(obj)
    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes, slice, np.ndarray,
                                       np.generic, type(Ellipsis))):
        return obj
    if isinstance(obj, torch.dtype):
        return getattr(ember, str(obj).split(".")[1])
    if isinstance(obj, torch.device):
        return ember.device(str(obj))
    if isinstance(obj, torch.memory_format):
        return getattr(ember, str(obj).split(".")[1])
    if isinstance(obj, torch.layout):
        return getattr(ember, str(obj).split(".")[1])
    if isinstance(obj, torch.Size):
        return ember.Size(obj)
    if isinstance(obj, torch.Generator):
        return ember.Generator().manual_seed(obj.initial_seed())
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(to_ember(x, tensors) for x in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_ember(x, tensors) for x in obj)
    if isinstance(obj, dict):
        return type(obj)((k, to_ember(v, tensors)) for k, v in obj.items())
    if isinstance(obj, torch.nn.Module):
        return _translate_module(obj, tensors)
    if isinstance(obj, types.ModuleType):
        name = obj.__name__
        if name == "torch" or name.startswith("torch."):
            try:
                return importlib.import_module("ember" + name[5:])
            except ImportError as e:
                raise Untranslatable(f"module ember{name[5:]}") from e
        return obj
    if obj is torch.Tensor or obj is torch.nn.Parameter:
        return getattr(ember, obj.__name__) if obj is torch.Tensor else ember.nn.Parameter
    if isinstance(obj, functools.partial):
        return functools.partial(to_ember(obj.func), *to_ember(obj.args, tensors),
                                 **to_ember(obj.keywords, tensors))
    hit = _public_map().get(id(obj))
    if hit is not None:
        return _ember_attr(*hit)
    if isinstance(obj, types.FunctionType):
        if obj in _special():
            return _special()[obj]
        if _is_testing_code(obj):
            return _translate_function(obj)
        mod = obj.__module__ or ""
        if mod == "torch" or mod.startswith("torch."):
            path = mod[6:] if mod != "torch" else ""
            try:
                return _ember_attr(path, obj.__qualname__)
            except Untranslatable:
                return _ember_attr("", obj.__name__)
        return obj
    if isinstance(obj, types.MethodType) and isinstance(obj.__self__, torch.Tensor):
        return getattr(to_ember(obj.__self__, tensors), obj.__name__)
    if isinstance(obj, torch._ops.OpOverload):  # aten.slice.Tensor -> ember.ops.aten.slice.Tensor
        ns, rest = str(obj).split(".", 1)
        target = importlib.import_module("ember.ops")
        for part in [ns] + rest.split("."):
            try:
                target = getattr(target, part)
            except (AttributeError, NotImplementedError, RuntimeError):
                raise Untranslatable(f"ember.ops.{obj}") from None
        return target
    if isinstance(obj, (types.BuiltinFunctionType, types.MethodDescriptorType,
                        types.WrapperDescriptorType)):
        name = getattr(obj, "__name__", "?")
        owner = getattr(obj, "__objclass__", None)
        if owner is not None and issubclass(owner, torch._C.TensorBase):
            return _ember_attr("Tensor", name)
        mod = getattr(obj, "__module__", None) or ""
        if mod.startswith("torch"):
            return _ember_attr("", name)
        return obj
    if isinstance(obj, type) and (obj.__module__ or "").startswith("torch"):
        mod = obj.__module__
        if mod.startswith("torch.testing._internal"):
            return obj
        path = mod[6:] if mod != "torch" else ""
        try:
            return _ember_attr(path, obj.__name__)
        except Untranslatable:
            return _ember_attr("", obj.__name__)
    return obj


def _translate_module(mod, tensors):
    """An ember nn.Module of the same class with the same settings, parameters and buffers."""
    cls = getattr(ember.nn, type(mod).__name__, None)
    if cls is None:
        raise Untranslatable(f"ember.nn.{type(mod).__name__}")
    new = cls.__new__(cls)
    ember.nn.Module.__init__(new)
    for k, v in vars(mod).items():
        if not k.startswith("_") and k != "training":
            setattr(new, k, to_ember(v, tensors))
    for k, p in mod._parameters.items():
        new.register_parameter(k, None if p is None else ember.nn.Parameter(to_ember(p.detach(), tensors)))
    for k, b in mod._buffers.items():
        new.register_buffer(k, to_ember(b, tensors))
    for k, m in mod._modules.items():
        setattr(new, k, to_ember(m, tensors))
    new.train(mod.training)
    return new


def _from_numpy(arr):
    return torch.from_numpy(arr) if arr.ndim else torch.from_numpy(arr.reshape(1)).reshape(())


def to_torch(obj):
    """torch's counterpart of an ember result (tensors by value, through NumPy)."""
    if isinstance(obj, ember.Tensor):
        a = obj.detach()
        if a.device.type == "meta":
            raise AssertionError("ember returned a meta tensor")
        if a.is_conj():
            a = a.resolve_conj()
        if a.dtype is ember.complex32:  # float16 pairs: the same bits in torch
            return to_torch(a.contiguous().view(ember.int32)).view(torch.complex32)
        arr = np.array(a.numpy(), copy=True)
        if arr.dtype.name == "bfloat16":  # ml_dtypes' bfloat16: through float32 (exact)
            return _from_numpy(arr.astype(np.float32)).to(torch.bfloat16)
        return _from_numpy(arr)
    if isinstance(obj, ember.dtype):
        return str(getattr(torch, str(obj).split(".")[1]))
    if isinstance(obj, ember.Size):
        return torch.Size(obj)
    if isinstance(obj, ember.device):
        return str(torch.device(str(obj)))
    if isinstance(obj, (list, tuple)):
        return [to_torch(x) for x in obj] if isinstance(obj, list) else tuple(to_torch(x) for x in obj)
    if isinstance(obj, dict):
        return {k: to_torch(v) for k, v in obj.items()}
    return obj


def plain(obj):
    """torch results with named tuples and return_types as plain tuples (for comparing)."""
    if isinstance(obj, torch.Tensor):
        return obj.detach()
    if isinstance(obj, list):
        return [plain(x) for x in obj]
    if isinstance(obj, tuple):
        return tuple(plain(x) for x in obj)
    if isinstance(obj, collections.abc.Mapping):
        return {k: plain(v) for k, v in obj.items()}
    if isinstance(obj, (torch.dtype, torch.device)):
        return str(obj)  # assert_close compares numbers, tensors and containers only
    return obj
