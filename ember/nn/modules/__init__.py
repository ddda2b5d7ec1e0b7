"""Module classes, one family per file, re-exported for ``ember.nn``."""
from .module import Module
from .activation import (CELU, ELU, GELU, GLU, SELU, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU,
                         LogSigmoid, LogSoftmax, Mish, ReLU, ReLU6, Sigmoid, SiLU, Softmax, Softmin,
                         Softplus, Softsign, Tanh, Tanhshrink, Threshold)
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .dropout import Dropout
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, LazyLinear, Linear
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, L1Loss, MSELoss, NLLLoss,
                   SmoothL1Loss)
from .normalization import LayerNorm, RMSNorm
from .sparse import Embedding

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
           "Identity", "Linear", "Bilinear", "LazyLinear", "ReLU", "ReLU6", "Hardtanh", "LeakyReLU",
           "ELU", "CELU", "SELU", "GELU", "SiLU", "Mish", "Softplus", "Sigmoid", "Tanh",
           "LogSigmoid", "Hardsigmoid", "Hardswish", "Softsign", "Tanhshrink", "Threshold", "GLU",
           "Softmax", "LogSoftmax", "Softmin", "Dropout", "Embedding", "LayerNorm", "RMSNorm",
           "Flatten", "Unflatten", "L1Loss", "MSELoss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
           "BCEWithLogitsLoss", "SmoothL1Loss", "HuberLoss"]
