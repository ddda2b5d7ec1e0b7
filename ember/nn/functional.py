"""``ember.nn.functional``: layers as functions, written as composites of ember ops (layer L4).

Composites get autograd, meta shapes and tracing for free; a function is promoted to a primitive only
when a benchmark asks for it. Losses live in ``_functional_loss*`` and are re-exported here.

Example:
    >>> import ember
    >>> import ember.nn.functional as F
    >>> F.softmax(ember.tensor([1., 1.]), dim=0)
    tensor([0.5000, 0.5000])
"""
from __future__ import annotations

import math

from .. import _dtype as D
from .._creation import arange
from .._tensor import Tensor
from .._tensor_methods.pointwise import where
from ..autograd.grad_mode import is_grad_enabled, no_grad
from .._dispatch import dispatch
from .._dispatch_inplace import dispatch_inplace
from .._shape import normalize_dim
from .._primitives import nn_ops as NN
from ..overrides import public
from . import (_functional_attention, _functional_loss_likelihood, _functional_loss_margin, _functional_misc,
               _functional_norm)
from ._functional_attention import multi_head_attention_forward, scaled_dot_product_attention
from ._functional_linear import bilinear, linear
from ._functional_loss_likelihood import ctc_loss, gaussian_nll_loss, kl_div, poisson_nll_loss
from ._functional_loss_margin import (cosine_embedding_loss, hinge_embedding_loss, margin_ranking_loss,
                                      multi_margin_loss, multilabel_margin_loss, multilabel_soft_margin_loss,
                                      soft_margin_loss, triplet_margin_loss,
                                      triplet_margin_with_distance_loss)
from ._functional_misc import (alpha_dropout, cdist, cosine_similarity, dropout, dropout1d, dropout2d,
                               dropout3d, embedding, embedding_bag, feature_alpha_dropout, gumbel_softmax,
                               hardshrink, pairwise_distance, pdist, prelu, rrelu, rrelu_, softshrink)
from ._functional_norm import (batch_norm, group_norm, instance_norm, layer_norm,
                               local_response_norm, normalize, rms_norm)
from ._functional_loss import (binary_cross_entropy, binary_cross_entropy_with_logits,
                               cross_entropy, huber_loss, l1_loss, mse_loss, nll_loss, smooth_l1_loss)
from ._functional_conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,  # noqa: F401
                               conv_transpose3d)
from ._functional_pooling import (  # noqa: F401
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices, adaptive_max_pool2d, adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d, adaptive_max_pool3d_with_indices, avg_pool1d, avg_pool2d, avg_pool3d,
    lp_pool1d, lp_pool2d, lp_pool3d, max_pool1d, max_pool1d_with_indices, max_pool2d,
    max_pool2d_with_indices, max_pool3d, max_pool3d_with_indices, max_unpool1d, max_unpool2d,
    max_unpool3d)
from ._functional_pad_fold_shuffle import (channel_shuffle, fold, pad, pixel_shuffle,  # noqa: F401
                                           pixel_unshuffle, unfold)
from . import _functional_conv, _functional_pad_fold_shuffle, _functional_pooling
from ._functional_sampling import (affine_grid, grid_sample, interpolate, upsample,  # noqa: F401
                                   upsample_bilinear, upsample_nearest)
from ._functional_sampling import __all__ as _sampling_all

__all__ = ["linear", "bilinear", "relu", "relu_", "relu6", "hardtanh", "hardtanh_", "leaky_relu",
           "leaky_relu_", "elu", "elu_", "selu", "celu", "gelu", "silu", "mish", "softplus", "sigmoid",
           "tanh", "logsigmoid", "hardsigmoid", "hardswish", "softsign", "tanhshrink", "threshold",
           "glu", "softmax", "log_softmax", "softmin", "one_hot", "layer_norm",
           "rms_norm", "normalize", "pad", "cross_entropy", "nll_loss", "mse_loss", "l1_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "smooth_l1_loss", "huber_loss",
           *_functional_norm.__all__[3:], *_functional_attention.__all__,
           *_functional_loss_likelihood.__all__, *_functional_loss_margin.__all__,
           *_functional_misc.__all__]
__all__ += [n for m in (_functional_conv, _functional_pooling, _functional_pad_fold_shuffle)
            for n in m.__all__ if n not in __all__]
__all__ += [n for n in _sampling_all if n not in __all__]


def _log1p(x):
    return x.log1p() if hasattr(x, "log1p") else (x + 1).log()


def _expm1(x):
    return x.expm1() if hasattr(x, "expm1") else x.exp() - 1


# ------------------------------------------------------------------------------ activations
def _write_in_place(input, fn, *args):
    """``input.copy_(fn(input, *args))`` for an in-place activation written as a composite. When
    autograd records, the formula runs on a copy of ``input``, so what its ops save for backward is
    the copy and not the tensor being overwritten (torch's in-place activations save the result or
    the original input), and writing into the output of e.g. a norm or a pooling stays legal."""
    src = input.clone() if input.requires_grad and is_grad_enabled() else input
    return input.copy_(fn(src, *args))


@public
def relu(input, inplace: bool = False):
    """``max(input, 0)``."""
    return input.relu_() if inplace else input.relu()


def relu_(input):
    return input.relu_()


@public
def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    """Clamp into ``[min_val, max_val]``."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if inplace:
        return dispatch_inplace(NN.hardtanh, input, min_val=min_val, max_val=max_val)
    return dispatch(NN.hardtanh, input, min_val=min_val, max_val=max_val)


def hardtanh_(input, min_val: float = -1.0, max_val: float = 1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


@public
def relu6(input, inplace: bool = False):
    """``min(max(input, 0), 6)``."""
    return hardtanh(input, 0.0, 6.0, inplace)


@public
def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """``input`` where positive, else ``negative_slope * input``."""
    if inplace:
        return _write_in_place(input, leaky_relu, negative_slope)
    out = where(input > 0, input, input * negative_slope)
    return out


def leaky_relu_(input, negative_slope: float = 0.01):
    return leaky_relu(input, negative_slope, inplace=True)


@public
def elu(input, alpha: float = 1.0, inplace: bool = False):
    """``input`` where positive, else ``alpha * (exp(input) - 1)``."""
    if inplace:
        return _write_in_place(input, elu, alpha)
    # clamp before exp so the unused branch cannot overflow into a NaN gradient
    # the negative branch where input <= 0 (a NaN takes the identity branch: gradient 1, as torch's)
    neg = input.where(input <= 0, 0)  # not clamp: a NaN would reach expm1's derivative
    out = where(input <= 0, _expm1(neg) * alpha, input)
    return out


def elu_(input, alpha: float = 1.0):
    return elu(input, alpha, inplace=True)


@public
def selu(input, inplace: bool = False):
    """``scale * elu(input, alpha)`` with the self-normalising constants."""
    if inplace:
        return _write_in_place(input, selu)
    alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    out = elu(input, alpha) * scale
    return out


@public
def celu(input, alpha: float = 1.0, inplace: bool = False):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    if inplace:
        return _write_in_place(input, celu, alpha)
    neg = input.where(input <= 0, 0)
    out = where(input <= 0, _expm1(neg / alpha) * alpha, input)
    return out


@public
def gelu(input, approximate: str = "none"):
    """``x * Phi(x)``; ``approximate='tanh'`` uses the tanh formula."""
    if approximate == "none":
        return input * (1 + (input * (1 / math.sqrt(2))).erf()) * 0.5
    if approximate == "tanh":
        inner = (input + input * input * input * 0.044715) * math.sqrt(2 / math.pi)
        return input * (1 + inner.tanh()) * 0.5
    raise RuntimeError(f"approximate argument must be either none or tanh.")


@public
def silu(input, inplace: bool = False):
    """``x * sigmoid(x)``."""
    if inplace:
        return _write_in_place(input, silu)
    out = input * input.sigmoid()
    return out


@public
def softplus(input, beta: float = 1.0, threshold: float = 20.0):
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``."""
    # log(1 + e^z) = max(z, 0) + log1p(e^-|z|) with z = beta * x, stable for either sign
    return dispatch(NN.softplus, input, beta=beta, threshold=threshold)


@public
def mish(input, inplace: bool = False):
    """``x * tanh(softplus(x))``."""
    if inplace:
        return _write_in_place(input, mish)
    out = input * softplus(input).tanh()
    return out


@public
def sigmoid(input):
    """``1 / (1 + exp(-x))``."""
    return input.sigmoid()


@public
def tanh(input):
    """Hyperbolic tangent."""
    return input.tanh()


@public
def logsigmoid(input):
    """``log(sigmoid(x))``, computed stably."""
    return -softplus(-input)


@public
def hardsigmoid(input, inplace: bool = False):
    """``relu6(x + 3) / 6``."""
    if inplace:
        return _write_in_place(input, hardsigmoid)
    out = (input + 3).clamp(0, 6) / 6
    return out


@public
def hardswish(input, inplace: bool = False):
    """``x * relu6(x + 3) / 6``."""
    if inplace:
        return _write_in_place(input, hardswish)
    return dispatch(NN.hardswish, input)


@public
def softsign(input):
    """``x / (1 + |x|)``."""
    return input / (input.abs() + 1)


@public
def tanhshrink(input):
    """``x - tanh(x)``."""
    return input - input.tanh()


@public
def threshold(input, threshold: float, value: float, inplace: bool = False):
    """``input`` where ``input > threshold``, else ``value``."""
    if inplace:
        return _write_in_place(input, lambda x: where(x > threshold, x, value))
    out = where(input > threshold, input, value)
    return out


@public
def glu(input, dim: int = -1):
    """``a * sigmoid(b)`` where ``a, b`` are the halves of ``input`` along ``dim``."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if input.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.dim()} is size "
                           f"{input.shape[dim]}")
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def _softmax_dim(ndim: int) -> int:
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_args(input, dim, dtype, name):
    if dim is None:
        dim = _softmax_dim(input.dim())
        import warnings
        warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                      "include dim=X as an argument.", stacklevel=4)
    if dtype is not None:
        input = input.to(dtype)
    return input, normalize_dim(dim, input.dim())


@public
def softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim`` (the max is subtracted first for stability)."""
    input, dim = _softmax_args(input, dim, dtype, "softmax")
    return dispatch(NN.softmax, input, dim=dim)


@public
def log_softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    """``x - log(sum(exp(x)))`` along ``dim``, computed stably."""
    input, dim = _softmax_args(input, dim, dtype, "log_softmax")
    return dispatch(NN.log_softmax, input, dim=dim)


@public
def softmin(input, dim=None, _stacklevel: int = 3, dtype=None):
    """``softmax(-input)``."""
    return softmax(-input, dim, dtype=dtype)


# ------------------------------------------------------------------------------ dropout, embedding
@public
def one_hot(tensor, num_classes: int = -1):
    """``(*) -> (*, num_classes)`` int64 with a 1 at each index."""
    if tensor.dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = max(tensor.reshape(-1).tolist()) + 1
    return (tensor.unsqueeze(-1) == arange(num_classes)).to(D.int64)


def _adopt(fn):
    """Make a function from a private module public here: ``__torch_function__`` check, torch's
    ``__module__``."""
    if getattr(fn, "__wrapped__", None) is None:
        fn = public(fn)
    fn.__module__ = __name__
    return fn


for _name in ("linear", "bilinear", "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "binary_cross_entropy",
              "binary_cross_entropy_with_logits", "smooth_l1_loss", "huber_loss",
              *_functional_norm.__all__, *_functional_attention.__all__,
              *_functional_loss_likelihood.__all__, *_functional_loss_margin.__all__,
              *_functional_misc.__all__):
    globals()[_name] = _adopt(globals()[_name])
del _name


# ------------------------------------------------------------------------------ torch.* aliases
def _torch_dropout(name, fn):
    def f(input, p, train):
        return fn(input, p, train)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"``torch.{name}(input, p, train)``: :func:`ember.nn.functional.{fn.__name__}`."
    return f


def _torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
                      cudnn_enabled=True):
    """``torch.batch_norm``: :func:`ember.nn.functional.batch_norm` with aten's argument order."""
    return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def _torch_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                         eps, cudnn_enabled=True):
    """``torch.instance_norm``: :func:`ember.nn.functional.instance_norm` with aten's order."""
    return instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum,
                         eps)


def _torch_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """``torch.layer_norm``: :func:`ember.nn.functional.layer_norm`."""
    return layer_norm(input, normalized_shape, weight, bias, eps)


def _torch_group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """``torch.group_norm``: :func:`ember.nn.functional.group_norm`."""
    return group_norm(input, num_groups, weight, bias, eps)


def _torch_embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``torch.embedding(weight, indices)``: :func:`ember.nn.functional.embedding`, arguments swapped."""
    return embedding(indices, weight, None if padding_idx < 0 else padding_idx,
                     scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


# the nn functions torch also exposes as torch.xxx; only those whose aten signature equals
# nn.functional's are plain aliases (losses take an int reduction there, so they are not exported)
TORCH_FUNCTIONS = {n: globals()[n] for n in (
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "avg_pool1d", "adaptive_avg_pool1d", "max_pool1d", "max_pool2d", "max_pool3d",
    "max_pool1d_with_indices", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
    "cosine_similarity", "pairwise_distance", "pdist", "cdist", "prelu", "selu", "celu", "rrelu",
    "hardshrink", "threshold", "bilinear", "rms_norm") if n in globals()}
_ATEN_FORMS = dict(
    dropout=_torch_dropout("dropout", dropout),
    alpha_dropout=_torch_dropout("alpha_dropout", alpha_dropout),
    feature_alpha_dropout=_torch_dropout("feature_alpha_dropout", feature_alpha_dropout),
    batch_norm=_torch_batch_norm, instance_norm=_torch_instance_norm, layer_norm=_torch_layer_norm,
    group_norm=_torch_group_norm, embedding=_torch_embedding)
for _name, _f in _ATEN_FORMS.items():
    _f.__name__ = _f.__qualname__ = _name
    _f.__module__ = "ember"
    TORCH_FUNCTIONS[_name] = public(_f)
del _name, _f, _ATEN_FORMS

# fractional max pooling (issue 22)
from ._functional_fractional import (fractional_max_pool2d,  # noqa: E402
                                     fractional_max_pool2d_with_indices, fractional_max_pool3d,
                                     fractional_max_pool3d_with_indices)
__all__ += ["fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
            "fractional_max_pool3d_with_indices"]
from ._functional_linear_ce import linear_cross_entropy  # noqa: E402
__all__ += ["linear_cross_entropy"]
