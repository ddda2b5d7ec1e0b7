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

from .activation import (Hardshrink, MultiheadAttention, PReLU, RReLU, Softmax2d,  # noqa: E402
                         Softshrink)
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm  # noqa: E402
from .channelshuffle import ChannelShuffle  # noqa: E402
from .distance import CosineSimilarity, PairwiseDistance  # noqa: E402
from .dropout import AlphaDropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout  # noqa: E402
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d  # noqa: E402
from .loss import (CosineEmbeddingLoss, CTCLoss, GaussianNLLLoss, HingeEmbeddingLoss,  # noqa: E402
                   KLDivLoss, MarginRankingLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss,
                   MultiMarginLoss, NLLLoss2d, PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss,
                   TripletMarginWithDistanceLoss)
from .normalization import GroupNorm, LocalResponseNorm  # noqa: E402
from .padding import (CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d,  # noqa: E402
                      ConstantPad2d, ConstantPad3d, ReflectionPad1d, ReflectionPad2d,
                      ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d,
                      ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .rnn import GRU, LSTM, RNN, RNNBase, RNNCell, RNNCellBase, GRUCell, LSTMCell  # noqa: E402
from .sparse import EmbeddingBag  # noqa: E402
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,  # noqa: E402
                          TransformerEncoder, TransformerEncoderLayer)

__all__ += ["Hardshrink", "MultiheadAttention", "PReLU", "RReLU", "Softmax2d", "Softshrink",
            "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "ChannelShuffle",
            "CosineSimilarity", "PairwiseDistance", "AlphaDropout", "Dropout1d", "Dropout2d",
            "Dropout3d", "FeatureAlphaDropout", "InstanceNorm1d", "InstanceNorm2d",
            "InstanceNorm3d", "CosineEmbeddingLoss", "CTCLoss", "GaussianNLLLoss",
            "HingeEmbeddingLoss", "KLDivLoss", "MarginRankingLoss", "MultiLabelMarginLoss",
            "MultiLabelSoftMarginLoss", "MultiMarginLoss", "NLLLoss2d", "PoissonNLLLoss",
            "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "GroupNorm",
            "LocalResponseNorm", "CircularPad1d", "CircularPad2d", "CircularPad3d",
            "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d",
            "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
            "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "GRU", "LSTM", "RNN",
            "RNNBase", "RNNCell", "RNNCellBase", "GRUCell", "LSTMCell", "EmbeddingBag",
            "Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
            "TransformerEncoderLayer"]
from .lazy import (LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d,  # noqa: E402
                   LazyConvTranspose2d, LazyConvTranspose3d)
__all__ += ["LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
            "LazyConvTranspose3d"]
from .lazy import (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyInstanceNorm1d,  # noqa: E402
                   LazyInstanceNorm2d, LazyInstanceNorm3d)
__all__ += ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
            "LazyInstanceNorm2d", "LazyInstanceNorm3d"]
from .pooling import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402  (issue 22)
__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]
from .linear_cross_entropy_options import LinearCrossEntropyOptions  # noqa: E402
__all__ += ["LinearCrossEntropyOptions"]
