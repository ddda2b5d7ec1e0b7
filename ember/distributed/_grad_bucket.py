"""``GradBucket``: what a DDP communication hook receives (one flat gradient bucket).

``buffer()`` is the flat 1-D tensor holding the bucket's gradients back to back (reverse registration
order); ``gradients()`` are views of it shaped as ``parameters()``. A hook returns a ``Future`` whose
value is the reduced flat tensor (same numel and dtype as ``buffer()``).

Example:
    >>> import ember
    >>> b = GradBucket(0, ember.arange(5.), [ember.zeros(2), ember.zeros(3)], is_last=True)
    >>> [g.tolist() for g in b.gradients()], b.index(), b.is_last()
    ([[0.0, 1.0], [2.0, 3.0, 4.0]], 0, True)
"""
from __future__ import annotations

__all__ = ["GradBucket"]


class GradBucket:
    """One bucket: ``index()``, ``buffer()``, ``gradients()``, ``parameters()``, ``is_last()``, ``set_buffer()``."""

    def __init__(self, index: int, buffer, params: list, is_last: bool = False):
        self._index, self._buffer, self._params, self._is_last = index, buffer, list(params), is_last

    def index(self) -> int:
        return self._index

    def buffer(self):
        return self._buffer

    def set_buffer(self, buffer) -> None:
        self._buffer = buffer

    def parameters(self) -> list:
        return list(self._params)

    def gradients(self) -> list:
        out, offset = [], 0
        for p in self._params:
            n = p.numel()
            out.append(self._buffer[offset:offset + n].view(p.shape))
            offset += n
        return out

    def is_last(self) -> bool:
        return self._is_last

    def __repr__(self) -> str:
        return f"GradBucket(index={self._index}, numel={self._buffer.numel()}, params={len(self._params)})"
