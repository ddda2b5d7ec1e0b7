"""torch <-> ember global names, and the unpicklers that resolve them (layer L3).

A checkpoint names its classes and functions by import path (``torch._utils._rebuild_tensor_v2``,
``torch.nn.modules.linear.Linear``). ember mirrors torch's module paths, so loading maps ``torch.X``
to ``ember.X`` (plus a short table for torch-internal helpers), and saving maps ``ember.X`` back to
``torch.X`` so real PyTorch reads ember's files.

``RestrictedUnpickler`` (``weights_only=True``) resolves only an allow-list (tensor rebuilding,
storages, dtypes, OrderedDict, plain containers and numbers) plus what the user approved with
``add_safe_globals``; anything else is refused *before* it is imported, naming the global.
"""
from __future__ import annotations

import _compat_pickle
import builtins
import collections
import importlib
import pickle
import threading

from .. import _dtype as D
from .. import _tensor_pickle as TP
from .._device import device
from .._shape import Size
from .._tensor import Tensor

__all__ = [
    "STORAGE_TYPES",
    "FullUnpickler",
    "RestrictedUnpickler",
    "StorageType",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "safe_globals",
    "to_torch_name",
]


class StorageType:
    """A legacy typed-storage class (``torch.FloatStorage``): in a checkpoint it names a dtype."""

    def __init__(self, name: str, dtype):
        self.__name__ = self.__qualname__ = name
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"StorageType(dtype={self.dtype})"

    def __reduce__(self):
        return self.__name__  # a global of this module; save() renames it to torch.<name>


_STORAGE_NAMES = {D.float64: "DoubleStorage", D.float32: "FloatStorage", D.float16: "HalfStorage",
                  D.bfloat16: "BFloat16Storage", D.int64: "LongStorage", D.int32: "IntStorage",
                  D.int16: "ShortStorage", D.int8: "CharStorage", D.uint8: "ByteStorage",
                  D.bool: "BoolStorage", D.complex64: "ComplexFloatStorage",
                  D.complex128: "ComplexDoubleStorage",
                  D.qint8: "QInt8Storage", D.quint8: "QUInt8Storage", D.qint32: "QInt32Storage"}
STORAGE_TYPES = {dt: StorageType(name, dt) for dt, name in _STORAGE_NAMES.items()}
globals().update({st.__name__: st for st in STORAGE_TYPES.values()})
# torch >= 2 names new dtypes' storages as UntypedStorage and passes the dtype to _rebuild_tensor_v3
UntypedStorage = StorageType("UntypedStorage", D.uint8)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype,
                       metadata=None):
    if not isinstance(storage, TP.TypedStorage) or not isinstance(dtype, D.dtype):
        raise TypeError("_rebuild_tensor_v3 expects a storage and a dtype")
    storage = TP.TypedStorage(storage._untyped_storage, dtype)
    return TP._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad)


def _encode(obj, encoding="latin1"):
    # protocol 2 pickles bytes as _codecs.encode(str, 'latin1'); no other codec is looked up
    if not isinstance(obj, str) or encoding.replace("-", "").lower() not in ("latin1", "latin_1"):
        raise pickle.UnpicklingError("_codecs.encode is allowed only for latin1 text (pickled bytes)")
    return obj.encode("latin1")


_HERE = __name__
_QSCHEME_NAMES = ("per_tensor_affine", "per_channel_affine", "per_tensor_symmetric",
                  "per_channel_symmetric", "per_channel_affine_float_qparams")
# (torch module, name) <-> (ember module, name) where the generic torch.X <-> ember.X rule fails
_SPECIAL = {("torch", d.name): ("ember._dtype", d.name) for d in D.ALL_DTYPES + D.QUANTIZED_DTYPES}
_QT = "ember._quantized.tensor"  # quantized tensors: their rebuild function and qschemes
_SPECIAL.update({("torch", n): (_QT, n) for n in _QSCHEME_NAMES})
_SPECIAL[("torch._utils", "_rebuild_qtensor")] = (_QT, "_rebuild_qtensor")
# torch's dynamic RNNs pickle TorchScript cell params; trusted loads (weights_only=False) read them
_SPECIAL[("torch", "ScriptObject")] = ("ember.ao.nn.quantized.dynamic.modules.rnn", "ScriptObject")
_SPECIAL.update({("torch", st.__name__): (_HERE, st.__name__) for st in STORAGE_TYPES.values()})
_SPECIAL.update({
    ("torch", "UntypedStorage"): (_HERE, "UntypedStorage"),
    ("torch", "Size"): ("ember._shape", "Size"),
    ("torch", "device"): ("ember._device", "device"),
    ("torch", "Tensor"): ("ember._tensor", "Tensor"),
    ("torch._tensor", "Tensor"): ("ember._tensor", "Tensor"),
    ("torch._utils", "_rebuild_tensor_v2"): ("ember._tensor_pickle", "_rebuild_tensor_v2"),
    ("torch._utils", "_rebuild_tensor"): ("ember._tensor_pickle", "_rebuild_tensor"),
    ("torch._utils", "_rebuild_tensor_v3"): (_HERE, "_rebuild_tensor_v3"),
    ("torch._tensor", "_rebuild_from_type_v2"): ("ember._tensor_pickle", "_rebuild_from_type_v2"),
    ("torch._utils", "_rebuild_parameter"): ("ember.nn.parameter", "_rebuild_parameter"),
    ("torch._utils", "_rebuild_parameter_with_state"):
        ("ember.nn.parameter", "_rebuild_parameter_with_state"),
})
_TO_TORCH = {v: k for k, v in _SPECIAL.items()}
_TO_TORCH[("ember._tensor_pickle", "TypedStorage")] = ("torch.storage", "TypedStorage")
# complex32 (issue 22): torch pickles it as _rebuild_tensor_v3 over torch.storage.UntypedStorage
_SPECIAL[("torch.storage", "UntypedStorage")] = (_HERE, "UntypedStorage")
_TO_TORCH[(_HERE, "UntypedStorage")] = ("torch.storage", "UntypedStorage")
_TO_TORCH[("ember._tensor_pickle", "_rebuild_tensor_v3")] = ("torch._utils", "_rebuild_tensor_v3")
# legacy checkpoints written on a GPU name cuda storages; their dtype is what matters here
_SPECIAL.update({("torch.cuda", st.__name__): (_HERE, st.__name__) for st in STORAGE_TYPES.values()})


def _py3_name(module: str, name: str) -> tuple:
    # protocol-2 pickles name Python 2 modules (__builtin__.set, copy_reg); pickle maps them this way
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


def _renamed(special: dict, module: str, name: str, src: str, dst: str) -> tuple:
    """``(module, name)`` with package ``src`` replaced by ``dst``, unless ``special`` maps it."""
    mapped = special.get((module, name))
    if mapped is not None:
        return mapped
    if module == src or module.startswith(src + "."):
        return dst + module[len(src):], name
    return module, name


def to_ember_name(module: str, name: str) -> tuple:
    return _renamed(_SPECIAL, module, name, "torch", "ember")


def to_torch_name(module: str, name: str) -> tuple:
    return _renamed(_TO_TORCH, module, name, "ember", "torch")


def _resolve(module: str, name: str):
    mod = importlib.import_module(module)
    obj = mod
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


# ------------------------------------------------------------------------------ allow-list
def _allowed_by_default() -> dict:
    from .._tensor_pickle import (
        _rebuild_from_type_v2,
        _rebuild_tensor,
        _rebuild_tensor_v2,
    )
    rc = {("collections", "OrderedDict"): collections.OrderedDict,
          ("collections", "Counter"): collections.Counter,
          ("_codecs", "encode"): _encode,
          ("builtins", "bytearray"): bytearray, ("builtins", "set"): builtins.set,
          ("builtins", "frozenset"): frozenset, ("builtins", "complex"): complex,
          ("torch", "Size"): Size, ("torch", "device"): device, ("torch", "Tensor"): Tensor,
          ("torch._tensor", "Tensor"): Tensor,
          ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
          ("torch._utils", "_rebuild_tensor"): _rebuild_tensor,
          ("torch._utils", "_rebuild_tensor_v3"): _rebuild_tensor_v3,
          ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type_v2,
          ("torch", "UntypedStorage"): UntypedStorage,
          ("torch.storage", "UntypedStorage"): UntypedStorage}
    for d in D.ALL_DTYPES + D.QUANTIZED_DTYPES:
        rc[("torch", d.name)] = d
    from .._quantized import tensor as QT
    rc[("torch._utils", "_rebuild_qtensor")] = QT._rebuild_qtensor
    for n in _QSCHEME_NAMES:
        rc[("torch", n)] = getattr(QT, n)
    for st in STORAGE_TYPES.values():
        rc[("torch", st.__name__)] = st
        rc[("torch.cuda", st.__name__)] = st
    # Parameter lives in nn (a higher layer): resolve it by name, only when a checkpoint asks
    for name in ("_rebuild_parameter", "_rebuild_parameter_with_state"):
        rc[("torch._utils", name)] = None
    rc[("torch.nn.parameter", "Parameter")] = None
    # ember's own names for the same objects (files pickled by ember without the torch renaming)
    for (m, n), obj in list(rc.items()):
        rc.setdefault(to_ember_name(m, n), obj)
    return rc


_DEFAULT_ALLOWED = None
_USER_SAFE: dict = {}  # "module.qualname" -> object, approved by add_safe_globals
_tls = threading.local()


def _key(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes/functions (or ``(obj, "module.name")`` pairs) in ``weights_only`` loads."""
    for g in safe_globals:
        if isinstance(g, tuple):
            obj, name = g
            _USER_SAFE[name] = obj
        else:
            _USER_SAFE[_key(g)] = g


def get_safe_globals() -> list:
    """The user-approved globals."""
    return list(_USER_SAFE.values())


def clear_safe_globals() -> None:
    """Forget every global approved with ``add_safe_globals``."""
    _USER_SAFE.clear()


class safe_globals:
    """Context manager approving ``safe_globals`` for ``weights_only`` loads inside the block."""

    def __init__(self, safe_globals: list):
        self.safe_globals = safe_globals

    def __enter__(self):
        self._saved = dict(_USER_SAFE)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        _USER_SAFE.clear()
        _USER_SAFE.update(self._saved)
        return False


_UNSAFE_HINT = (
    "Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can "
    "result in arbitrary code execution. Do it only if you got the file from a trusted source.")


def _refuse(module: str, name: str):
    short = name.rsplit(".", 1)[-1]
    raise pickle.UnpicklingError(
        f"Weights only load failed. {_UNSAFE_HINT}\nPlease file an issue with the following so that "
        f"we can make `weights_only=True` compatible with your use case: WeightsUnpickler error: "
        f"Unsupported global: GLOBAL {module}.{name} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{short}])` or the "
        f"`torch.serialization.safe_globals([{short}])` context manager to allowlist this global if "
        f"you trust this class/function.")


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that resolves only allowed globals (``weights_only=True``)."""

    def find_class(self, module: str, name: str):
        global _DEFAULT_ALLOWED
        if _DEFAULT_ALLOWED is None:
            _DEFAULT_ALLOWED = _allowed_by_default()
        module, name = _py3_name(module, name)
        key = (module, name)
        if key in _DEFAULT_ALLOWED:
            obj = _DEFAULT_ALLOWED[key]
            return obj if obj is not None else _resolve(*to_ember_name(module, name))
        em, en = to_ember_name(module, name)
        for k in (f"{em}.{en}", f"{module}.{name}"):
            if k in _USER_SAFE:
                return _USER_SAFE[k]
        _refuse(module, name)


class FullUnpickler(pickle.Unpickler):
    """An unpickler for trusted files (``weights_only=False``): any global, torch.X read as ember.X."""

    def find_class(self, module: str, name: str):
        module, name = _py3_name(module, name)
        em, en = to_ember_name(module, name)
        try:
            return _resolve(em, en)
        except (ImportError, AttributeError) as e:
            if em != module:
                raise pickle.UnpicklingError(
                    f"the checkpoint uses {module}.{name}, which has no ember counterpart "
                    f"({em}.{en}): {e}") from None
            raise
