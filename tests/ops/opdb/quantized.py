"""Op-database entries of the fake-quantization primitives (straight-through gradients)."""
import numpy as np

from ._core import OpInfo, Sample, arr

_SCALE = np.float32(0.1)


def _per_tensor(dtype):
    x = arr((4, 5), dtype, -8, 8)
    return [Sample((x,), {}, "affine"), Sample((arr((3, 2, 2), dtype, -20, 20),), {}, "clamped")]


def _per_channel(dtype):
    return [Sample((arr((3, 4), dtype, -8, 8), np.array([0.1, 0.2, 0.05, 0.3], np.float32),
                    np.array([0, 3, -2, 1], np.int32)), {}, "axis1")]


OPS = [
    OpInfo("fake_quantize_per_tensor_affine",
           lambda lib, x: lib.fake_quantize_per_tensor_affine(x, 0.1, 3, -128, 127), _per_tensor,
           dtypes=("float32",), gradcheck=False),
    OpInfo("fake_quantize_per_channel_affine",
           lambda lib, x, s, z: lib.fake_quantize_per_channel_affine(x, s, z, 1, -128, 127),
           _per_channel, dtypes=("float32",), gradcheck=False),
]
