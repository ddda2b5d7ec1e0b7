"""Operator definitions (layer L1): the registry and every primitive, one family per file.

    pointwise    add mul div exp log tanh where maximum comparisons logical/bitwise casts ...
    reduction    sum mean prod amax amin max min argmax var cumsum ...
    view         view permute transpose expand select slice unsqueeze squeeze diagonal as_strided
    shape_copy   clone copy cat stack flip roll ...
    indexing     index index_put gather scatter index_select masked_fill ...
    linalg       matmul (BLAS via NumPy) ...
    creation     full empty arange linspace eye ...
    random       uniform normal bernoulli randint randperm multinomial ...
    foreach      _foreach_* multi-tensor ops for optimizers
    nn_ops       softmax log_softmax nll_loss native_layer_norm embedding (+ their backward)
    conv         convolution (and transposed), its weight gradient, im2col/col2im
    pooling      max/avg/adaptive pools and their backward kernels
    sampling     interpolation indices/weights, grid_sample
    pointwise_math  lgamma digamma xlogy copysign gcd shifts frexp complex views ...
    sorting      sort topk kthvalue mode unique searchsorted bincount histc histogram
    scan         cummax cummin logcumsumexp
    rnn_ops      fused LSTM/GRU cell pointwise steps (+ their backward), lstm_layer (a whole layer),
                 rnn_split_steps
"""
from . import (creation, foreach, indexing, linalg, nn_ops, pointwise, random,  # noqa: F401
               reduction, shape_copy, view)  # registration happens on import
from . import conv, pooling, sampling  # noqa: F401
from . import pointwise_math, scan, sorting  # noqa: F401
from . import rnn_ops  # noqa: F401
from . import quantized  # noqa: F401
from ._registry import REGISTRY, OpDef, TensorMeta, primitive

__all__ = ["REGISTRY", "OpDef", "TensorMeta", "primitive"]
