"""``torch.torch_version``: a version string that compares with strings and tuples.

``TorchVersion`` is a ``str`` (it prints, hashes and concatenates as one) whose comparisons are by
version order, so library checks such as ``torch.__version__ >= "2.0"`` or
``torch.__version__ < (2, 14)`` behave as they do under torch.

Example:
    >>> from ember.torch_version import TorchVersion
    >>> v = TorchVersion("2.13.0+ember")
    >>> v >= "2.1", v < (2, 14), v > (2, 13, 0), str(v)
    (True, True, True, '2.13.0+ember')
"""
from __future__ import annotations

import re

__all__ = ["TorchVersion", "internal_version", "__version__"]

# release, pre-release (a/b/rc), post, dev, local: the parts of a PEP 440 version that order it
_PATTERN = re.compile(r"^v?(\d+(?:\.\d+)*)(?:[.-]?(a|b|rc|alpha|beta|c)[.-]?(\d*))?"
                      r"(?:[.-]?post[.-]?(\d+))?(?:[.-]?dev[.-]?(\d*))?(?:\+([0-9a-zA-Z.]+))?$")
_PRE_RANK = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2}
_FINAL = (3, 0)  # sorts after every pre-release


class InvalidVersion(ValueError):
    """A string that is not a PEP 440 version."""


def _key(text: str) -> tuple:
    """The ordering key of a version string (PEP 440 order)."""
    m = _PATTERN.match(text.strip())
    if m is None:
        raise InvalidVersion(f"Invalid version: '{text}'")
    release, pre, pre_n, post, dev, local = m.groups()
    parts = [int(p) for p in release.split(".")]
    while len(parts) > 1 and parts[-1] == 0:  # 2.13 == 2.13.0
        parts.pop()
    pre_key = (_PRE_RANK[pre], int(pre_n or 0)) if pre else _FINAL
    if dev is not None and not pre and post is None:
        pre_key = (-1, 0)  # 2.13.0.dev1 < 2.13.0a0
    post_key = int(post) if post is not None else -1
    dev_key = int(dev or 0) if dev is not None else float("inf")
    # a local label sorts after the public version; numeric segments above alphanumeric ones
    local_key = (() if local is None else
                 tuple((1, int(p), "") if p.isdigit() else (0, 0, p.lower())
                       for p in re.split(r"[._-]", local)))
    return tuple(parts), pre_key, post_key, dev_key, local is not None, local_key


def _other_key(other) -> tuple:
    if isinstance(other, (tuple, list)):
        return _key(".".join(str(p) for p in other))
    if isinstance(other, str):
        return _key(other)
    raise InvalidVersion(f"cannot compare a version with {type(other).__name__} {other!r}")


class TorchVersion(str):
    """A version string ordered as a version: compares with ``str`` and ``tuple`` operands."""

    def _cmp(self, other, op):
        try:
            return op(_key(self), _other_key(other))
        except InvalidVersion:
            if isinstance(other, str):  # not a version: plain string semantics
                return op(str(self), other)
            raise

    def __eq__(self, other):
        if not isinstance(other, (str, tuple, list)):
            return NotImplemented
        return self._cmp(other, lambda a, b: a == b)

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __lt__(self, other):
        return self._cmp(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._cmp(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._cmp(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._cmp(other, lambda a, b: a >= b)

    __hash__ = str.__hash__


# the torch API version ember implements (the local label says who implements it)
internal_version = "2.13.0+ember"
__version__ = TorchVersion(internal_version)
