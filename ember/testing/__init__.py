"""ember.testing: ``assert_close`` with torch's tolerances and messages.

Example:
    >>> import ember
    >>> ember.testing.assert_close(ember.tensor(1.0), ember.tensor(1.0))
"""
from __future__ import annotations

from ._comparison import assert_close
from ._deprecated import assert_allclose

__all__ = ["assert_close", "assert_allclose"]
