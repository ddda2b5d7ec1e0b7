"""``torch.ao.nn.quantized.dynamic.modules``."""
from .linear import Linear
from .rnn import GRU, LSTM

__all__ = ["Linear", "LSTM", "GRU"]
