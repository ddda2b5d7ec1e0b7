"""Anomaly detection (layer L2): forward nodes remember their traceback; backward NaNs raise.

With anomaly mode on, every Node records the stack that created it, and an error in its backward
(including a NaN in its result when ``check_nan``) shows that forward traceback as a warning.

Example:
    >>> import ember
    >>> with ember.autograd.detect_anomaly():
    ...     ember.is_anomaly_enabled()
    True
"""
from __future__ import annotations

import warnings

from .grad_mode import _DecoratorContextManager as DecoratorContextManager
from .grad_mode import note_special_recording
from .graph import LOCAL

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]


def is_anomaly_enabled() -> bool:
    return LOCAL.anomaly


def is_anomaly_check_nan_enabled() -> bool:
    return LOCAL.anomaly_check_nan


class detect_anomaly(DecoratorContextManager):
    """Context manager and decorator enabling anomaly detection inside its block."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = LOCAL.anomaly
        self.check_nan = check_nan
        self.prev_check_nan = LOCAL.anomaly_check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and "
                      "should only be enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        self.prev, self.prev_check_nan = LOCAL.anomaly, LOCAL.anomaly_check_nan
        note_special_recording()
        LOCAL.anomaly, LOCAL.anomaly_check_nan = True, self.check_nan

    def __exit__(self, *exc) -> None:
        LOCAL.anomaly, LOCAL.anomaly_check_nan = self.prev, self.prev_check_nan

    def clone(self):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.__class__(self.check_nan)


class set_detect_anomaly:
    """Turn anomaly detection on or off at once; as a context manager, restore it on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev, self.prev_check_nan = LOCAL.anomaly, LOCAL.anomaly_check_nan
        if mode:
            note_special_recording()
        LOCAL.anomaly, LOCAL.anomaly_check_nan = bool(mode), bool(check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        LOCAL.anomaly, LOCAL.anomaly_check_nan = self.prev, self.prev_check_nan
