"""Random primitives (layer L1)."""
from __future__ import annotations

import numpy as np

from ._registry import TensorMeta, primitive

__all__: list = []
