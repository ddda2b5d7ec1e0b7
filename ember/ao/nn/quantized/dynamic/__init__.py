"""``torch.ao.nn.quantized.dynamic``: int8-weight modules applied to float activations."""
from .modules import GRU, LSTM, Linear

__all__ = ["Linear", "LSTM", "GRU"]
