"""Choosing (scale, zero_point) from a value range: the dynamic rule and the observers' rule.

``choose_qparams_dynamic`` is what dynamic quantization applies to each activation (scale in double,
zero point taken from whichever end loses less precision, rounded half to even); ``observer_qparams``
is the rule of torch.ao observers (float32 arithmetic, affine or symmetric, scale at least eps).

Example:
    >>> choose_qparams_dynamic(-1.0, 2.0, 0, 255)
    (0.011764705882352941, 85)
"""
from __future__ import annotations

import numpy as np

__all__ = ["choose_qparams_dynamic", "observer_qparams"]

_EPS32 = np.float32(np.finfo(np.float32).eps)


def choose_qparams_dynamic(min_val: float, max_val: float, qmin: int, qmax: int) -> tuple:
    """(scale, zero_point) covering ``[min(min_val, 0), max(max_val, 0)]`` with ``[qmin, qmax]``."""
    mn, mx = min(float(np.float32(min_val)), 0.0), max(float(np.float32(max_val)), 0.0)
    scale = (mx - mn) / (qmax - qmin)
    if float(np.float32(scale)) == 0.0 or np.isinf(np.float32(1.0) / np.float32(scale)):
        scale = 0.1
    scale = float(scale)
    zp_from_min = qmin - mn / scale
    zp_from_max = qmax - mx / scale
    err_min = abs(qmin) + abs(mn / scale)
    err_max = abs(qmax) + abs(mx / scale)
    initial = zp_from_min if err_min < err_max else zp_from_max
    if initial < qmin:
        zp = qmin
    elif initial > qmax:
        zp = qmax
    else:
        zp = int(np.rint(initial))
    return scale, zp


def observer_qparams(min_val, max_val, quant_min: int, quant_max: int, symmetric: bool,
                     unsigned: bool, eps=_EPS32) -> tuple:
    """Arrays (scale float32, zero_point int64) for observed ``min_val``/``max_val`` (scalars or 1-d)."""
    mn = np.minimum(np.asarray(min_val, np.float32), np.float32(0))
    mx = np.maximum(np.asarray(max_val, np.float32), np.float32(0))
    eps = np.float32(eps)
    if symmetric:
        mx = np.maximum(-mn, mx)
        scale = mx / np.float32((quant_max - quant_min) / 2)
        scale = np.maximum(scale, eps)
        zp = np.full(scale.shape, (quant_min + quant_max + 1) // 2 if unsigned else 0, np.int64)
    else:
        scale = (mx - mn) / np.float32(quant_max - quant_min)
        scale = np.maximum(scale, eps)
        zp = quant_min - np.rint(mn / scale).astype(np.int64)
        zp = np.clip(zp, quant_min, quant_max)
    return scale.astype(np.float32), zp.astype(np.int64)
