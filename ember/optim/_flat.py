"""Flat optimizer state: a param group's per-parameter state tensors as views of one buffer per name.

With ``foreach=True`` an optimizer runs a handful of ``_foreach_*`` ops per step over every
parameter; on many small parameters the per-tensor NumPy calls dominate. Keeping the state (moments,
momentum buffers, step counters) of a same-dtype bucket in one flat buffer lets those ops run as one
NumPy call over the buffer, elementwise the same arithmetic. The per-parameter layout users see is
torch's: ``state[p]['exp_avg']`` is a tensor shaped like ``p`` (a view), and ``state_dict()`` is
unchanged. Parameters are never flattened (users reassign ``p.data``): gradients are copied into a
flat scratch buffer and updates are added back per parameter.

Example:
    >>> import ember
    >>> ps = [ember.ones(2), ember.ones(3)]
    >>> sts = [{"step": ember.tensor(0.0), "buf": ember.zeros_like(p)} for p in ps]
    >>> b = FlatBucket(ps, sts, ("buf",))
    >>> b.flat["buf"].shape, sts[1]["buf"].shape, b.valid(ps, sts)
    (torch.Size([5]), torch.Size([3]), True)
"""
from __future__ import annotations

from operator import is_

from .. import _creation as C
from .._tensor import Tensor

__all__ = ["FlatBucket", "flat_bucket"]

# a slot whose parameter set keeps changing (grads present on alternating subsets) would copy its
# state every step: after this many rebuilds it stays on the per-tensor path
_MAX_BUILDS = 3


class FlatBucket:
    """Flat buffers for ``names`` (plus ``step``) over ``params``; ``states[i][name]`` become views."""

    def __init__(self, params: list, states: list, names: tuple) -> None:
        sizes = [p.numel() for p in params]
        total = sum(sizes)
        dtype = params[0].dtype
        self.params = list(params)
        self.names = names
        self.flat: dict = {}
        self.views: dict = {}
        for name in names:
            buf = C.empty(total, dtype=dtype)
            views = _split(buf, params, sizes)
            for v, st in zip(views, states):
                v.copy_(st[name])
                st[name] = v
            self.flat[name] = buf
            self.views[name] = views
        self.keys = names + (("step",) if "step" in states[0] else ())  # SGD has no step count
        if "step" in states[0]:
            steps = C.empty(len(params), dtype=states[0]["step"].dtype)
            views = [steps[i] for i in range(len(params))]
            for v, st in zip(views, states):
                v.copy_(st["step"])
                st["step"] = v
            self.flat["step"] = steps
            self.views["step"] = views
        # two scratch buffers: the gradients, then the update; the denominator
        self.grad = C.empty(total, dtype=dtype)
        self.grad_views = _split(self.grad, params, sizes)
        self.scratch = C.empty(total, dtype=dtype)
        self.scratch_views = _split(self.scratch, params, sizes)

    def valid(self, params: list, states: list) -> bool:
        """Whether ``params`` and their state tensors are still exactly the ones this bucket holds."""
        if len(params) != len(self.params) or not all(map(is_, params, self.params)):
            return False
        for name in self.keys:
            if not all(map(is_, [st.get(name) for st in states], self.views[name])):
                return False
        return True


def _split(buf: Tensor, params: list, sizes: list) -> list:
    views, off = [], 0
    for p, n in zip(params, sizes):
        views.append(buf[off:off + n].view(p.shape))
        off += n
    return views


def _eligible(params: list, states: list, names: tuple) -> bool:
    p0 = params[0]
    if p0.is_complex() or not p0.is_floating_point():
        return False
    counted = "step" in states[0]
    for p, st in zip(params, states):
        step = st.get("step")
        if counted and (not isinstance(step, Tensor) or step.dim() != 0
                        or step.dtype != states[0]["step"].dtype):
            return False
        for name in names:
            s = st.get(name)
            if not isinstance(s, Tensor) or s.shape != p.shape or s.dtype != p.dtype:
                return False
    return True


def flat_bucket(opt, key, params: list, states: list, names: tuple) -> FlatBucket | None:
    """The optimizer's flat bucket for ``key`` (built, or rebuilt, as needed), or None to use lists.

    Only optimizers that opted in (``opt._flat_buckets`` set in ``__init__``) get one: the functional
    API passes state tensors that belong to the caller and must stay the ones updated.
    """
    cache = opt.__dict__.get("_flat_buckets")
    if cache is None:
        return None
    entry = cache.get(key)
    if entry is not None:
        bucket, builds = entry
        if bucket is not None and bucket.valid(params, states):
            return bucket
        if builds >= _MAX_BUILDS:
            return None
    else:
        builds = 0
    if not _eligible(params, states, names):
        cache[key] = (None, builds)
        return None
    bucket = FlatBucket(params, states, names)
    cache[key] = (bucket, builds + 1)
    return bucket
