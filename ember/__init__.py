"""ember: a deep-learning framework in Python with PyTorch's API (``import ember as torch``).

Example:
    >>> import ember
    >>> x = ember.ones(2, 3, requires_grad=True)
    >>> (x * 2).sum().backward()
    >>> x.grad.shape
    torch.Size([2, 3])
"""
from __future__ import annotations

from . import _dtype
from ._device import device, get_default_device, set_default_device
from ._dtype import (bfloat16, bool, can_cast, complex64, complex128, dtype, finfo, float16, float32,
                     float64, get_default_dtype, iinfo, int8, int16, int32, int64, promote_types,
                     set_default_dtype, uint8)
from ._dtype import qint8, qint32, quint8
from ._shape import Size
from ._storage import UntypedStorage
from ._tensor import Tensor
from ._creation import (arange, as_tensor, empty, empty_like, empty_strided, eye, from_numpy, full,
                        full_like, linspace, logspace, ones, ones_like, scalar_tensor, tensor, zeros,
                        zeros_like)
from . import autograd
from . import random
from .random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed,
                     set_rng_state)
from ._tensor_str import get_printoptions, printoptions, set_printoptions
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .autograd.grad_mode import is_inference_mode_enabled
from ._tensor_methods import (foreach as _m_foreach, indexing as _m_indexing, linalg as _m_linalg,
                              pointwise as _m_pointwise, random as _m_random,
                              reduction as _m_reduction, shape_copy as _m_shape_copy, view as _m_view)
from ._tensor_methods import (pointwise_math as _m_pointwise_math, scan as _m_scan,
                              sorting as _m_sorting)
from ._tensor_methods import misc as _m_misc, statistics as _m_statistics
from ._tensor_methods import nn as _m_nn
from ._tensor_methods import (linalg_decomp as _m_linalg_decomp, random_dist as _m_random_dist,
                              special as _m_special)

half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
cfloat, cdouble = complex64, complex128
strided = "torch.strided"
contiguous_format = "contiguous"
channels_last = "channels_last"
preserve_format = "preserve"

for _mod in (_m_pointwise, _m_reduction, _m_view, _m_shape_copy, _m_indexing, _m_linalg, _m_random,
             _m_foreach, _m_pointwise_math, _m_sorting, _m_scan, _m_linalg_decomp, _m_random_dist,
             _m_special, _m_misc, _m_statistics, _m_nn):
    globals().update(_mod.FUNCTIONS)
del _mod

from . import accelerator, backends, cuda, optim, testing  # noqa: E402
from . import nn  # noqa: E402
globals().update({k: v for k, v in nn.functional.TORCH_FUNCTIONS.items() if k not in globals()})
from ._threads import (get_num_interop_threads, get_num_threads, set_num_interop_threads,  # noqa: E402
                       set_num_threads)
from . import serialization  # noqa: E402
from .serialization import load, save  # noqa: E402
from ._serialization._names import add_safe_globals  # noqa: E402
from ._dlpack import from_dlpack, to_dlpack  # noqa: E402
from . import fft, linalg, special  # noqa: E402
from ._window import FUNCTIONS as _window_functions  # noqa: E402

globals().update(_window_functions)
globals().update(linalg.TORCH_FUNCTIONS)

from ._creation_interop import asarray, frombuffer, range  # noqa: E402
from ._global_flags import (get_device, get_float32_matmul_precision, init_num_threads,  # noqa: E402
                            is_inference, is_neg, is_signed, is_storage, is_warn_always_enabled,
                            set_default_tensor_type, set_float32_matmul_precision, set_flush_denormal,
                            set_warn_always)
__version__ = "0.1.0"


from ._checks import (_assert, _check, _check_index, _check_is_size, _check_not_implemented,  # noqa: E402
                      _check_type, _check_value, _check_with)


def is_tensor(obj) -> "bool":
    return isinstance(obj, Tensor)


def numel(input) -> "int":
    return input.numel()


def is_floating_point(input) -> "bool":
    return input.is_floating_point()


def is_complex(input) -> "bool":
    return input.is_complex()


from ._legacy import (BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor,  # noqa: E402
                      FloatTensor, HalfTensor, IntTensor, LongTensor, ShortTensor,
                      are_deterministic_algorithms_enabled, get_deterministic_debug_mode,
                      is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
                      use_deterministic_algorithms)

# subpackages and names imported on first use, keeping `import ember` fast
_LAZY_MODULES = ("fx", "amp", "cpu", "distributions", "func", "jit", "hub", "distributed", "onnx",
                 "version", "torch_version")
_LAZY_MODULES += ("ao", "quantization")
_LAZY_AMP = ("autocast", "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype",
             "set_autocast_dtype", "is_autocast_cpu_enabled", "get_autocast_cpu_dtype",
             "get_autocast_gpu_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
             "clear_autocast_cache")


# out of scope: an AttributeError (so hasattr() probes stay False) that says why
_UNSUPPORTED = {
    "sparse layouts are not supported by ember": (
        "sparse_coo_tensor", "sparse_csr_tensor", "sparse_csc_tensor", "sparse_bsr_tensor",
        "sparse_bsc_tensor", "sparse_compressed_tensor", "sparse_coo", "sparse_csr", "sparse_csc",
        "sparse_bsr", "sparse_bsc", "sparse"),
    "4-bit and 2-bit quantized dtypes are not supported by ember": ("quint4x2", "quint2x4"),
    "MPS and XLA devices are not supported by ember (CPU only)": ("mps", "xla"),
}


def __getattr__(name):
    # heavier namespaces load on first use, keeping `import ember` fast
    import importlib
    if name in _LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY_AMP:
        return getattr(importlib.import_module(".amp.autocast_mode", __name__), name)
    if name == "install_as_torch":  # the opt-in import torch -> ember alias
        return importlib.import_module("._torch_alias", __name__).install_as_torch
    if name == "vmap":  # torch.vmap is torch.func.vmap
        return importlib.import_module(".func", __name__).vmap
    for why, names in _UNSUPPORTED.items():
        if name in names:
            raise AttributeError(f"module 'ember' has no attribute '{name}': {why}")
    raise AttributeError(f"module 'ember' has no attribute '{name}'")

# quantization (issue 28): quantized tensors and their kernels; ao/quantization load lazily
from ._quantized.tensor import (qscheme, per_tensor_affine, per_channel_affine,  # noqa: E402
                                per_tensor_symmetric, per_channel_symmetric,
                                per_channel_affine_float_qparams, quantize_per_tensor,
                                quantize_per_channel, quantize_per_tensor_dynamic, dequantize)
from ._quantized.fake_quantize import (fake_quantize_per_tensor_affine,  # noqa: E402
                                       fake_quantize_per_channel_affine)
from ._quantized import kernels as _quantized_kernels  # noqa: E402,F401  (registers QTensor kernels)
from ._quantized.kernels import (int_repr, q_per_channel_axis, q_per_channel_scales,  # noqa: E402
                                 q_per_channel_zero_points, q_scale, q_zero_point,
                                 quantized_batch_norm, quantized_max_pool1d, quantized_max_pool2d)
_LAZY_MODULES += ("ops", "library")  # torch.ops / torch.library, loaded on first use
_LAZY_MODULES += ("_C", "_custom_ops")  # torch._C, torch._custom_ops: names libraries touch on import

# ember.compile (torch.compile); the compiler stack loads on first use
_LAZY_MODULES += ("_dynamo", "compiler", "_logging")


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, name=None, disable=False, recompile_limit=None, isolate_recompiles=False,
            shapes_spec=None):
    """torch.compile: capture ``model`` (a function or nn.Module) into graphs for ``backend``."""
    from ._dynamo.eval_frame import compile as _compile
    return _compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                    options=options, name=name, disable=disable, recompile_limit=recompile_limit,
                    isolate_recompiles=isolate_recompiles, shapes_spec=shapes_spec)

# issue 22 (opinfo): torch.resize_as_ as a function; Tensor.stft/istft (defined in L3 _window)
resize_as_ = Tensor.resize_as_
Tensor.stft = _window_functions["stft"]
Tensor.istft = _window_functions["istft"]
