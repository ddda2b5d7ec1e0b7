"""``Tensor``: a strided view over a shared storage, with autograd fields (layer L2).

Fields live in ``TensorBase`` slots; the op methods come from the family mixins in
``_tensor_methods``; this file holds what is about the tensor itself: geometry, storage, dtype and
device conversion, autograd API (``requires_grad``, ``grad``, ``backward``, hooks), NumPy interop.

Example:
    >>> import ember
    >>> x = ember.arange(6.).view(2, 3)
    >>> x.t().stride(), x.t().is_contiguous()
    ((1, 3), False)
"""
from __future__ import annotations

import warnings
import weakref

import numpy as np

from . import _dtype as D
from ._dtype_complex32 import encode as _chalf_encode
from ._dtype_scalar import FILL_RANGE, fill_scalar
from ._device import CPU, META, device as Device
from ._creation import empty_strided, from_numpy, tensor
from ._dispatch import MODES as _MODES, dispatch, set_tensor_class, wrap, wrap_meta
from ._dispatch_inplace import WRITE_HOOKS, dispatch_inplace
from ._dlpack import dlpack_device, to_dlpack
from ._indexing import getitem, setitem
from ._shape import Size, contiguous_strides, is_contiguous as _is_contig, normalize_dim
from ._storage import UntypedStorage, VersionCounter
from ._tensor_base import AutogradMeta, TensorBase, new_tensor
from ._tensor_methods._args import as_device, as_dtype, size_args
from ._tensor_methods.complex_parts import ComplexPartsMixin
from ._tensor_methods.foreach import ForeachMixin
from ._tensor_methods.indexing import IndexingMixin
from ._tensor_methods.linalg import LinalgMixin
from ._tensor_methods.misc import MiscMixin
from ._tensor_methods.statistics import StatisticsMixin
from ._tensor_methods.nn import NNMixin
from ._tensor_methods.linalg_decomp import LinalgDecompMixin
from ._tensor_methods.special import SpecialMixin
from ._tensor_methods.pointwise import PointwiseMixin
from ._tensor_methods.pointwise_math import PointwiseMathMixin
from ._tensor_methods.quantized import QuantizedMixin
from ._tensor_methods.random import RandomMixin
from ._tensor_methods.reduction import ReductionMixin
from ._tensor_methods.scan import ScanMixin
from ._tensor_methods.shape_copy import ShapeCopyMixin
from ._tensor_methods.sorting import SortingMixin
from ._tensor_methods.view import ViewMixin
from ._tensor_pickle import deepcopy_tensor, reduce_tensor, setstate_tensor
from ._tensor_str import tensor_repr
from .autograd import backward
from .autograd.grad_mode import STATE
from ._primitives import creation as _CR
from ._primitives import pointwise as P
from ._primitives import shape_copy as SC
from ._primitives import view as V
from .overrides import PLAIN_TYPES, DisableTorchFunctionSubclass, try_torch_function
from .utils.hooks import RemovableHandle, add_hook

_CHALF = D.complex32

__all__ = ["Tensor"]


class Tensor(TensorBase, PointwiseMixin, ReductionMixin, ViewMixin, ShapeCopyMixin, IndexingMixin,
             LinalgMixin, RandomMixin, ForeachMixin, PointwiseMathMixin, SortingMixin, ScanMixin,
             LinalgDecompMixin, SpecialMixin, MiscMixin, NNMixin, StatisticsMixin, QuantizedMixin,
             ComplexPartsMixin):
    """A multi-dimensional array with autograd; ``ember.Tensor(2, 3)`` is uninitialised float32."""

    __slots__ = ("__dict__", "__weakref__")
    __array_priority__ = 1000
    __hash__ = object.__hash__
    is_sparse = False
    is_quantized = False
    is_mkldnn = False
    is_cuda = False
    is_nested = False
    layout = "torch.strided"

    def __new__(cls, *args, device=None, dtype=None):
        dt = as_dtype(dtype) or D.get_default_dtype()
        if len(args) == 1 and not isinstance(args[0], int):
            data = args[0]
            if isinstance(data, TensorBase):
                t = data.detach()
            else:
                t = tensor(data, dtype=dt)
        else:
            size = size_args(args) if args else (0,)
            t = wrap(np.empty(size, dt.np), dt)
        if cls is not Tensor:
            t = Tensor._make_subclass(cls, t)
        return t

    def __init__(self, *args, **kwargs):
        pass

    @staticmethod
    def _make_subclass(cls, data, require_grad: bool = False):
        """A ``cls`` instance sharing ``data``'s memory (how Parameter is built)."""
        return new_tensor(cls, data._data, data._dtype, data._meta, data._base, data._storage,
                          data._version_cell(), requires_grad=bool(require_grad))

    def _op(self, op, *args, **params):
        """Run primitive ``op`` with this tensor first (how derivatives reach other primitives)."""
        return dispatch(op, self, *args, **params)

    # ------------------------------------------------------------------ geometry
    @property
    def shape(self) -> Size:
        d = self._data
        return Size(d.shape if d is not None else self._meta[0])

    def size(self, dim=None):
        shape = self._data.shape if self._data is not None else self._meta[0]
        if dim is None:
            return Size(shape)
        return shape[normalize_dim(dim, len(shape))]

    @property
    def ndim(self) -> int:
        d = self._data
        return d.ndim if d is not None else len(self._meta[0])

    def dim(self) -> int:
        d = self._data
        return d.ndim if d is not None else len(self._meta[0])

    ndimension = dim

    def numel(self) -> int:
        d = self._data
        if d is not None:
            return d.size
        n = 1
        for s in self._meta[0]:
            n *= s
        return n

    nelement = numel

    def stride(self, dim=None):
        d = self._data
        if d is None:
            st = self._meta[1]
        else:
            isz = d.itemsize
            # NumPy 2 reports zero strides for empty arrays; torch reports contiguous ones
            st = tuple(s // isz for s in d.strides) if isz and d.size else contiguous_strides(d.shape)
        if dim is None:
            return st
        return st[normalize_dim(dim, len(st))]

    def storage_offset(self) -> int:
        d = self._data
        if d is None:
            return self._meta[2]
        st = self.untyped_storage()
        if d.itemsize == 0 or st._bytes is None or d.size == 0:
            return 0
        return (d.__array_interface__["data"][0] - st.data_ptr()) // d.itemsize

    def is_contiguous(self, memory_format=None) -> bool:
        d = self._data
        if d is not None:
            if memory_format in (None, "contiguous") or memory_format is contiguous_format:
                return d.flags.c_contiguous or _is_contig(d.shape, self.stride())
            return _is_channels_last(self.shape, self.stride())
        return _is_contig(self._meta[0], self._meta[1])

    def element_size(self) -> int:
        return self._dtype.itemsize

    itemsize = property(element_size)

    @property
    def nbytes(self) -> int:
        return self.numel() * self._dtype.itemsize

    def data_ptr(self) -> int:
        d = self._data
        if d is None or d.size == 0:
            return 0
        return d.__array_interface__["data"][0]

    def untyped_storage(self) -> UntypedStorage:
        """The storage shared by this tensor and all its views (created on first request)."""
        root = self._base if self._base is not None else self
        st = root._storage
        if st is None:
            if root._data is not None:
                st = UntypedStorage.from_array(root._data)
            else:
                shape, strides, off = root._meta
                n = 1 + off + sum((s - 1) * t for s, t in zip(shape, strides)) if all(shape) else 0
                st = UntypedStorage.meta(n * root._dtype.itemsize)
            root._storage = st
        return st

    def _version_cell(self) -> VersionCounter:
        """The family's version counter, made on first need. A node that saved this tensor as its
        output before any counter existed (the fast path's recording) is handed the new one."""
        v = self._vc
        if v is None:
            v = self._vc = VersionCounter()
            fn = self._grad_fn
            if fn is not None:
                fn.adopt_counter(self._output_nr, v)
        return v

    @property
    def _version(self) -> int:
        """How many in-place writes this tensor's family has seen (torch's ``t._version``)."""
        return self._vc.value if self._vc is not None else 0


    def _is_view(self) -> bool:
        return self._base is not None

    def _geometry_in(self, base):
        """(size, stride, offset) of this view inside ``base``'s storage, in elements."""
        return tuple(self.shape), self.stride(), self.storage_offset()

    # ------------------------------------------------------------------ dtype / device
    @property
    def dtype(self) -> D.dtype:
        return self._dtype

    @property
    def device(self) -> Device:
        return CPU if self._data is not None else META

    @property
    def is_meta(self) -> bool:
        return self._data is None

    @property
    def is_cpu(self) -> bool:
        return self._data is not None

    def get_device(self) -> int:
        return -1

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._dtype.is_complex

    def is_signed(self) -> bool:
        return self._dtype.is_signed

    def to(self, *args, **kwargs):
        """``to(dtype)``, ``to(device, dtype=None)``, ``to(other)``; returns self when nothing changes
        (unless ``copy=True``)."""
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(Tensor.to, (self,), self, *args, **kwargs)
            if r is not NotImplemented:
                return r
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        copy = kwargs.pop("copy", False)
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
        for a in args:
            if isinstance(a, TensorBase):
                dtype, device = a.dtype, a.device
            elif isinstance(a, D.dtype):
                dtype = a
            elif isinstance(a, (str, Device)):
                device = a
            elif a is None or isinstance(a, bool):
                continue
            else:
                dtype = as_dtype(a)
        dtype = as_dtype(dtype)
        device = as_device(device)
        out = self
        if device is not None and device != self.device:
            out = out._to_device(device)
            copy = False
        if dtype is not None and dtype is not out._dtype:
            return dispatch(P.to_dtype, out, dtype=dtype)
        if copy:
            return out.clone()
        return out

    def _to_device(self, device: Device):
        if device.type == "cuda":
            raise AssertionError("Torch not compiled with CUDA enabled")
        if device.type == "meta":
            return wrap_meta(self.shape, self._dtype)
        raise NotImplementedError("Cannot copy out of meta tensor; no data! Please use "
                                  "torch.nn.Module.to_empty() instead of torch.nn.Module.to() when "
                                  "moving module from meta to a different device.")

    def type(self, dtype=None, non_blocking=False, **kwargs):
        if dtype is None:
            return self._type_string()
        if isinstance(dtype, str) and dtype.endswith("Tensor"):
            dtype = _TYPE_NAMES_INV[dtype.split(".")[-1]]
        elif isinstance(dtype, type) and dtype.__name__.endswith("Tensor") and hasattr(dtype, "dtype"):
            dtype = dtype.dtype  # a legacy type class: x.type(torch.LongTensor)
        return self.to(as_dtype(dtype))

    def _type_string(self) -> str:
        return f"torch.{_TYPE_NAMES[self._dtype]}"

    def cpu(self, memory_format=None):
        return self if self._data is not None else self._to_device(CPU)

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        raise AssertionError("Torch not compiled with CUDA enabled")

    def float(self, memory_format=None):
        return self.to(D.float32)

    def double(self, memory_format=None):
        return self.to(D.float64)

    def half(self, memory_format=None):
        return self.to(D.float16)

    def bfloat16(self, memory_format=None):
        return self.to(D.bfloat16)

    def int(self, memory_format=None):
        return self.to(D.int32)

    def long(self, memory_format=None):
        return self.to(D.int64)

    def short(self, memory_format=None):
        return self.to(D.int16)

    def char(self, memory_format=None):
        return self.to(D.int8)

    def byte(self, memory_format=None):
        return self.to(D.uint8)

    def bool(self, memory_format=None):
        return self.to(D.bool)

    def chalf(self, memory_format=None):
        return self.to(D.complex32)

    def cfloat(self, memory_format=None):
        return self.to(D.complex64)

    def cdouble(self, memory_format=None):
        return self.to(D.complex128)

    def type_as(self, other):
        return self.to(other.dtype)

    # ------------------------------------------------------------------ copies and views of self
    def contiguous(self, memory_format=None):
        if self.is_contiguous():
            return self
        return dispatch(SC.clone, self, memory_format="contiguous")

    def clone(self, *, memory_format=None):
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(Tensor.clone, (self,), self, memory_format=memory_format)
            if r is not NotImplemented:
                return r
        return dispatch(SC.clone, self, memory_format=memory_format)

    def detach(self):
        """A tensor sharing data and version counter, cut from the graph."""
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(Tensor.detach, (self,), self)
            if r is not NotImplemented:
                return r
        storage = self._storage if self._base is None else self.untyped_storage()
        return new_tensor(Tensor, self._data, self._dtype, self._meta, None, storage,
                          self._version_cell())

    def detach_(self):
        if self._base is not None and self._requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        if self._grad_fn is not None:
            self._version_cell()  # a node that saved this output keeps watching its writes
        self._grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self):
        """The same memory as a tensor outside autograd with a fresh version counter."""
        t = self.detach()
        t._vc = VersionCounter()
        return t

    @data.setter
    def data(self, value):
        if not isinstance(value, TensorBase):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self._data, self._dtype, self._meta = value._data, value._dtype, value._meta
        self._storage = value.untyped_storage()
        self._base = None

    def _output_alias(self, node, output_nr):
        """A tensor sharing this one's data whose grad_fn is ``node`` (unpacked saved outputs)."""
        t = self.detach()
        t._vc = self._version_cell()
        t._grad_fn, t._output_nr, t._requires_grad = node, output_nr, True
        return t

    def _detached_copy(self):
        d = self._data
        if d is None:
            return wrap_meta(self._meta[0], self._dtype)
        return wrap(np.array(d, copy=True, order="K"), self._dtype)

    def _resize_for_out(self, shape):
        if self._data is None:
            self._meta = (tuple(shape), contiguous_strides(shape), 0)
        else:
            self._data = np.empty(shape, self._data.dtype)
        self._storage = None
        self._base = None

    # ------------------------------------------------------------------ in-place writes
    def copy_(self, src, non_blocking=False):
        """Write ``src`` (broadcast, cast) into this tensor's memory."""
        if not isinstance(src, TensorBase):
            src = wrap(np.asarray(src))
        return dispatch_inplace(SC.copy, self, src)

    def fill_(self, value):
        dt = self._dtype
        if ((t := type(value)) is not float and t is not int) or \
                not (r := FILL_RANGE[dt])[0] <= value <= r[1]:  # else: stored as given
            if isinstance(value, TensorBase):
                if value.dim() != 0:
                    raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                                       f"with {value.dim()} dimensions.")
                return self.copy_(value)
            value = fill_scalar(value, dt)  # torch's checked conversion (uint8: -1 -> 255)
        if WRITE_HOOKS:  # tracing observes writes that go through copy_ (a cpu scalar: meta has no data)
            return self.copy_(wrap(np.array(value, dtype=dt.np) if dt is not _CHALF
                                   else _chalf_encode(value), dt))
        if self._requires_grad:
            return self.copy_(self.new_full((), value))
        if self._data is not None:
            self._data[...] = value if dt is not _CHALF else _chalf_encode(value)
        vc = self._vc
        (vc if vc is not None else self._version_cell()).value += 1
        return self

    def zero_(self):
        return self.fill_(0)

    def _accumulate_(self, g):
        """``self += g`` without autograd (gradient accumulation)."""
        d = self._data
        if d is not None:
            np.add(d, g._data, out=d, casting="unsafe")
        self._version_cell().value += 1

    # ------------------------------------------------------------------ creation relative to self
    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        return self._new_like(np.empty, size_args(size), dtype, device, requires_grad)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        return self._new_like(np.zeros, size_args(size), dtype, device, requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        return self._new_like(np.ones, size_args(size), dtype, device, requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
        if not isinstance(fill_value, TensorBase):
            fill_value = fill_scalar(fill_value, as_dtype(dtype) or self._dtype)
        t = self._new_like(np.empty, size_args((size,)), dtype, device, requires_grad, fill_value)
        if t._data is not None:
            t._data[...] = fill_value if t._dtype is not D.complex32 else _chalf_encode(fill_value)
        return t

    def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
        return empty_strided(size, stride, dtype=dtype or self._dtype,
                             device=device or self.device, requires_grad=requires_grad)

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
        return tensor(data, dtype=dtype or self._dtype, device=device or self.device,
                      requires_grad=requires_grad)

    def _new_like(self, fill, size, dtype, device, requires_grad, fill_value=None):
        dt = as_dtype(dtype) or self._dtype
        dev = as_device(device) or self.device
        if dev.type == "cuda":
            raise AssertionError("Torch not compiled with CUDA enabled")
        if _MODES.stack:  # a dispatch mode (make_fx) must see the creation and its value
            value = 0 if fill is np.zeros else 1 if fill is np.ones else fill_value
            t = dispatch(_CR.empty, size=tuple(size), dtype=dt, device=dev) if value is None else \
                dispatch(_CR.full, size=tuple(size), fill_value=value, dtype=dt, device=dev)
        else:
            t = wrap(fill(size, dt.np), dt) if dev is CPU else wrap_meta(size, dt)
            if fill is np.ones and dt is D.complex32:  # ones of (real, imag) pairs is 1+1j: make it 1
                t._data["imag"] = 0
        if requires_grad:
            t.requires_grad_()
        return t

    # ------------------------------------------------------------------ autograd API
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool):
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True):
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError("you can only change requires_grad flags of leaf variables. If you "
                                   "want to use a computed variable in a subgraph that doesn't require "
                                   "differentiation use var_no_grad = var.detach().")
            return self
        if requires_grad and not (self._dtype.is_floating_point or self._dtype.is_complex):
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def grad(self):
        am = self._ameta
        if self._grad_fn is not None and (am is None or not am.retains_grad):
            warnings.warn("The .grad attribute of a Tensor that is not a leaf Tensor is being "
                          "accessed. Its .grad attribute won't be populated during autograd.backward(). "
                          "If you indeed want the .grad field to be populated for a non-leaf Tensor, "
                          "use .retain_grad() on the non-leaf Tensor.", UserWarning, stacklevel=2)
        return am.grad if am is not None else None

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, TensorBase):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value.dtype is not self._dtype:
                raise RuntimeError("assigned grad has data of a different type")
            if tuple(value.shape) != tuple(self.shape):
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value.shape)}' to a "
                                   f"tensor of size '{list(self.shape)}'. Please ensure that the gradient "
                                   "and the tensor are the same size")
        self._set_grad_unchecked(value)

    def _set_grad_unchecked(self, value):
        am = self._ameta
        if am is None:
            if value is None:
                return
            am = self._ameta = AutogradMeta()
        am.grad = value

    @property
    def retains_grad(self) -> bool:
        return bool(self._ameta is not None and self._ameta.retains_grad)

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf tensor after backward."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self.retains_grad:
            return
        am = self._ameta = self._ameta or AutogradMeta()
        ref = weakref.ref(self)

        def retain(grad):
            t = ref()
            if t is not None:
                old = t._ameta.grad
                t._ameta.grad = grad._detached_copy() if old is None else old + grad
        am.retains_grad = self._grad_fn._register_tensor_hook(self._output_nr, retain, retain=True)

    def register_hook(self, hook) -> RemovableHandle:
        """``hook(grad) -> Tensor or None`` runs when this tensor's gradient is computed."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            return self._grad_fn._register_tensor_hook(self._output_nr, hook)
        self._ameta = self._ameta or AutogradMeta()
        return add_hook(self._ameta, "hooks", hook)

    def register_post_accumulate_grad_hook(self, hook) -> RemovableHandle:
        """``hook(tensor)`` runs after the gradient was accumulated into this leaf's ``.grad``."""
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        self._ameta = self._ameta or AutogradMeta()
        return add_hook(self._ameta, "post_acc_hooks", hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad`` (see ``ember.autograd.backward``)."""
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(Tensor.backward, (self,), self, gradient, retain_graph, create_graph,
                                   inputs)
            if r is not NotImplemented:
                return r
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # ------------------------------------------------------------------ Python protocol
    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        if self._data is None:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        if self._dtype is D.complex32:  # (real, imag) float16 pairs
            return self.cfloat().item()
        v = self._data.reshape(()).item() if self._data.ndim else self._data.item()
        if self._dtype in (D.float16, D.bfloat16):
            v = float(v)
        return v

    def tolist(self):
        if self._data is None:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        if self._dtype in (D.float16, D.bfloat16):
            return self._data.astype(np.float32).tolist()
        if self._dtype is D.complex32:
            return self.cfloat().tolist()
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The NumPy array sharing this tensor's memory."""
        if self._data is None:
            raise RuntimeError("Can't call numpy() on Tensor that has no data (device: meta)")
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if self._dtype is D.complex32:
            raise TypeError("Got unsupported ScalarType ComplexHalf")
        return self._data

    def __dlpack__(self, *, stream=-1, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule sharing this tensor's memory (see ``ember.from_dlpack``)."""
        return to_dlpack(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple:
        return dlpack_device(self)

    def __array__(self, dtype=None, copy=None):
        a = self.detach().numpy()
        return a.astype(dtype, copy=False) if dtype is not None else a

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """NumPy ufuncs applied to a tensor return a tensor (bool results as uint8, as torch does)."""
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(Tensor.__array_wrap__, (self,), self, array=array)
            if r is not NotImplemented:
                return r
        if array.dtype == bool:
            array = array.astype("uint8")
        return from_numpy(np.asarray(array))

    def __len__(self) -> int:
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError(f"Boolean value of Tensor with more than one value is ambiguous"
                               if self.numel() else "Boolean value of Tensor with no values is ambiguous")
        return bool(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __complex__(self) -> complex:
        return complex(self.item())

    def __index__(self) -> int:
        if self._dtype.category != 1 or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __contains__(self, element) -> bool:
        return bool((self == element).any())

    def __format__(self, spec):
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __repr__(self, *, tensor_contents=None) -> str:
        return tensor_repr(self)

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the "
                               "deepcopy protocol at the moment.  If you were attempting to deepcopy a "
                               "module, this may be because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        return deepcopy_tensor(self, memo)

    def __reduce_ex__(self, protocol):
        return reduce_tensor(self, type(self) is Tensor)

    def __setstate__(self, state):
        setstate_tensor(self, state)

    # default __torch_function__: run the op with overrides off, then re-wrap results as the subclass
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with DisableTorchFunctionSubclass():
            ret = func(*args, **kwargs)
        return _convert(ret, cls)

    def as_subclass(self, cls):
        """A ``cls`` instance sharing this tensor's memory; it stays in the graph (as an alias)."""
        if not self._requires_grad:
            return Tensor._make_subclass(cls, self)
        src = dispatch(V.alias, self) if STATE.enabled else self
        t = Tensor._make_subclass(cls, src, True)
        t._grad_fn, t._output_nr = src._grad_fn, src._output_nr
        return t

    def conj(self):
        return self if not self._dtype.is_complex else self.conj_physical()

    def resolve_conj(self):
        return self

    def resolve_neg(self):
        return self

    def is_conj(self) -> bool:
        return False

    __getitem__ = getitem  # the function itself: one Python frame less per ``t[i]``

    def __setitem__(self, index, value):
        setitem(self, index, value)


def _convert(ret, cls):
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        return type(ret)(_convert(r, cls) for r in ret)
    return ret


def _is_channels_last(shape, strides) -> bool:
    if len(shape) != 4:
        return False
    n, c, h, w = shape
    return strides == (h * w * c, 1, w * c, c)


contiguous_format = "contiguous"

_TYPE_NAMES = {D.float32: "FloatTensor", D.float64: "DoubleTensor", D.float16: "HalfTensor",
               D.bfloat16: "BFloat16Tensor", D.int64: "LongTensor", D.int32: "IntTensor",
               D.int16: "ShortTensor", D.int8: "CharTensor", D.uint8: "ByteTensor",
               D.bool: "BoolTensor", D.complex64: "ComplexFloatTensor", D.complex32: "ComplexHalfTensor",
               D.complex128: "ComplexDoubleTensor"}
_TYPE_NAMES_INV = {v: k for k, v in _TYPE_NAMES.items()}

PLAIN_TYPES.add(Tensor)
set_tensor_class(Tensor)
