"""FX graph-mode quantization passes: fuse, prepare (observers), convert."""
from .convert import convert_graph
from .fuse import fuse_graph
from .prepare import insert_observers

__all__ = ["fuse_graph", "insert_observers", "convert_graph"]
