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

from .conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,  # noqa: E402
                   ConvTranspose3d)
from .fold import Fold, Unfold  # noqa: E402
from .pixelshuffle import PixelShuffle, PixelUnshuffle  # noqa: E402
from .pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d,  # noqa: E402
                      AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d, AvgPool1d, AvgPool2d,
                      AvgPool3d, LPPool1d, LPPool2d, LPPool3d, MaxPool1d, MaxPool2d, MaxPool3d,
                      MaxUnpool1d, MaxUnpool2d, MaxUnpool3d)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: E402

__all__ += ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d",
            "Fold", "Unfold", "PixelShuffle", "PixelUnshuffle", "MaxPool1d", "MaxPool2d", "MaxPool3d",
            "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
            "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
            "LPPool1d", "LPPool2d", "LPPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
            "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]
