"""``ember.testing.assert_allclose``: torch's deprecated comparison, kept for old test code.

It differs from :func:`assert_close` in its defaults: NaNs compare equal, dtypes may differ (both
sides go to their promoted dtype, whose tolerances apply), and the tolerance table is its own.

Example:
    >>> import warnings, ember
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     ember.testing.assert_allclose(ember.tensor([1.0, 2.0]), [1.0, 2.00001])
"""
from __future__ import annotations

import warnings
from typing import Any

from .. import _dtype as D
from .._creation import as_tensor
from .._tensor import Tensor
from ._comparison import assert_close

__all__ = ["assert_allclose"]

# (rtol, atol) by dtype; any other dtype compares exactly
_PRECISIONS = {D.float16: (1e-3, 1e-3), D.float32: (1e-4, 1e-5), D.float64: (1e-5, 1e-8)}


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None, atol: float | None = None,
                    equal_nan: bool = True, msg: str = "") -> None:
    """Deprecated: raise ``AssertionError`` unless ``actual`` and ``expected`` (tensors, numbers or
    nested sequences of the same shape) satisfy ``|actual - expected| <= atol + rtol * |expected|``."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
                  "future release. Please use `torch.testing.assert_close()` instead. You can find "
                  "detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
                  FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = as_tensor(actual)
    if not isinstance(expected, Tensor):
        expected = as_tensor(expected, dtype=actual.dtype)
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    if rtol is None:
        rtol, atol = _PRECISIONS.get(D.promote_types(actual.dtype, expected.dtype), (0.0, 0.0))
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
