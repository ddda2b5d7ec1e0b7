"""What FX graph-mode quantization does with each kind of node (ember's x86 "backend config").

- ``QUANTIZED_MODULES`` (Linear, Conv, fused, BatchNorm2d, LayerNorm, Hardswish ...): inputs and
  output observed; convert swaps in the quantized module (``REFERENCE_MODULES`` for reference mode);
- ``BINARY`` (add, mul): inputs and output observed; convert calls the quantized add/mul kernel;
- ``SHARE`` ops (pooling, ReLU modules, flatten, view, dropout, cat): observed like torch does, but
  convert runs them on the quantized tensor, which keeps the input's qparams;
- ``FLOAT_OBSERVED`` (torch.relu, sigmoid, tanh): convert dequantizes their input, runs them in float
  and quantizes their output with its observer's qparams;
- everything else stays float (with a ``dequantize`` in front when fed a quantized value).

Example:
    >>> from ember import nn
    >>> kind_of_module(nn.MaxPool2d(2)), kind_of_module(nn.Linear(2, 2))
    ('share', 'quantized')
"""
from __future__ import annotations

import operator

from .... import nn
from ...._tensor import Tensor
from ...._tensor_methods import shape_copy
from ....nn import functional as F
from ...nn import intrinsic as nni
from ...nn import quantized as nnq
from ...nn.intrinsic import quantized as nniq
from ...nn.quantized import reference as nnqr
from ...nn import qat as nnqat
from ...nn.intrinsic import qat as nniqat

__all__ = ["QUANTIZED_MODULES", "REFERENCE_MODULES", "SHARE_MODULES", "SHARE_FUNCTIONS",
           "SHARE_METHODS", "BINARY", "FLOAT_OBSERVED_FUNCTIONS", "FLOAT_OBSERVED_MODULES",
           "FUSION_PATTERNS", "kind_of_module", "kind_of_function", "kind_of_method",
           "QAT_MODULES", "QAT_SWAPS"]

QUANTIZED_MODULES = {
    nn.Linear: nnq.Linear, nn.Conv1d: nnq.Conv1d, nn.Conv2d: nnq.Conv2d,
    nn.BatchNorm2d: nnq.BatchNorm2d, nn.LayerNorm: nnq.LayerNorm, nn.Hardswish: nnq.Hardswish,
    nn.LeakyReLU: nnq.LeakyReLU, nni.LinearReLU: nniq.LinearReLU, nni.ConvReLU1d: nniq.ConvReLU1d,
    nni.ConvReLU2d: nniq.ConvReLU2d,
}
# float or fused module -> its QAT module (prepare_qat_fx), and QAT module -> quantized (convert)
QAT_SWAPS = {nn.Linear: nnqat.Linear, nn.Conv2d: nnqat.Conv2d, nni.ConvBn2d: nniqat.ConvBn2d,
             nni.ConvBnReLU2d: nniqat.ConvBnReLU2d, nni.ConvReLU2d: nniqat.ConvReLU2d,
             nni.LinearReLU: nniqat.LinearReLU}
QAT_MODULES = {nnqat.Linear: nnq.Linear, nnqat.Conv2d: nnq.Conv2d, nniqat.ConvBn2d: nnq.Conv2d,
               nniqat.ConvBnReLU2d: nniq.ConvReLU2d, nniqat.ConvReLU2d: nniq.ConvReLU2d,
               nniqat.LinearReLU: nniq.LinearReLU}

# float module -> (reference class, index of the weighted child for fused modules or None)
REFERENCE_MODULES = {
    nn.Linear: (nnqr.Linear, None), nn.Conv1d: (nnqr.Conv1d, None), nn.Conv2d: (nnqr.Conv2d, None),
    nni.LinearReLU: (nnqr.Linear, 0), nni.ConvReLU1d: (nnqr.Conv1d, 0),
    nni.ConvReLU2d: (nnqr.Conv2d, 0),
}

SHARE_MODULES = (nn.ReLU, nn.ReLU6, nn.MaxPool1d, nn.MaxPool2d, nn.AdaptiveAvgPool1d,
                 nn.AdaptiveAvgPool2d, nn.AvgPool2d, nn.Dropout, nn.Identity, nn.Flatten, nn.Hardtanh)
SHARE_FUNCTIONS = {F.relu, F.relu6, F.hardtanh, F.max_pool1d, F.max_pool2d, F.adaptive_avg_pool2d,
                   F.avg_pool2d, F.dropout, Tensor.flatten, shape_copy.cat, F.interpolate,
                   Tensor.transpose, Tensor.permute, Tensor.reshape}
SHARE_METHODS = {"view", "reshape", "flatten", "permute", "transpose", "contiguous", "squeeze",
                 "unsqueeze", "relu", "relu_", "t"}
BINARY = {operator.add: "add", operator.mul: "mul", Tensor.add: "add", Tensor.mul: "mul"}
BINARY_METHODS = {"add": "add", "mul": "mul", "__add__": "add", "__mul__": "mul"}
FLOAT_OBSERVED_FUNCTIONS = {Tensor.relu, F.sigmoid, Tensor.sigmoid, F.tanh, Tensor.tanh,
                            F.hardsigmoid, F.softmax}
FLOAT_OBSERVED_MODULES = (nn.Sigmoid, nn.Tanh, nn.Hardsigmoid, nn.Softmax)

# (first, second[, third]) module types or functions -> fused eval / QAT module
FUSION_PATTERNS = [
    ((nn.Conv2d, nn.BatchNorm2d, nn.ReLU), "conv_bn_relu"),
    ((nn.Conv1d, nn.BatchNorm1d, nn.ReLU), "conv_bn_relu"),
    ((nn.Conv2d, nn.BatchNorm2d), "conv_bn"),
    ((nn.Conv1d, nn.BatchNorm1d), "conv_bn"),
    ((nn.Conv2d, nn.ReLU), "conv_relu"),
    ((nn.Conv1d, nn.ReLU), "conv_relu"),
    ((nn.Linear, nn.ReLU), "linear_relu"),
    ((nn.Linear, nn.BatchNorm1d), "linear_bn"),
    ((nn.BatchNorm2d, nn.ReLU), "bn_relu"),
]
RELU_FUNCTIONS = {F.relu}  # functional relus fused like nn.ReLU (torch.relu is not, as in torch)


def kind_of_module(mod) -> str:
    t = type(mod)
    if t in QUANTIZED_MODULES or t in QAT_MODULES:
        return "quantized"
    if isinstance(mod, SHARE_MODULES):
        return "share"
    if isinstance(mod, FLOAT_OBSERVED_MODULES):
        return "float_observed"
    return "float"


def kind_of_function(fn) -> str:
    if fn in BINARY:
        return "binary"
    if fn in SHARE_FUNCTIONS:
        return "share"
    if fn in FLOAT_OBSERVED_FUNCTIONS:
        return "float_observed"
    return "float"


def kind_of_method(name: str) -> str:
    if name in BINARY_METHODS:
        return "binary"
    if name in SHARE_METHODS:
        return "share"
    if name in ("sigmoid", "tanh"):
        return "float_observed"
    return "float"
