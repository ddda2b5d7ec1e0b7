"""DDP's gradient reducer: flat buckets filled by post-accumulate-grad hooks, reduced asynchronously.

Parameters are assigned to buckets in reverse registration order (gradients become ready roughly in
that order during backward), per dtype, closing a bucket once it holds ``caps[k]`` bytes: the first
cap is small (1 MiB) so the first all-reduce starts early, later ones are ``bucket_cap_mb``. When a
parameter's gradient has been accumulated its hook copies it into its slot of the bucket (nothing to
copy when ``.grad`` already is that slot's view); when a bucket is complete it is launched (the comm
hook, by default an averaging all-reduce, issued with ``async_op``) as soon as every earlier bucket
was, so every rank issues the same collectives in the same order and communication overlaps the rest
of backward. At the end of backward (an engine callback) every bucket's future is waited and the
averaged values are written back into ``.grad`` (or ``.grad`` becomes the bucket view).

Example (inside an initialised world; DistributedDataParallel builds and drives it)::

    reducer = Reducer(params, pg, [1 << 20, 25 << 20], gradient_as_bucket_view=False)
    reducer.prepare(unused=[])   # at each forward that will be followed by a synced backward
"""
from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._creation import tensor, zeros
from ...autograd.engine import queue_callback
from ...autograd.grad_mode import no_grad
from ...distributed._collectives import all_reduce
from ...distributed._grad_bucket import GradBucket
from ...distributed.algorithms.ddp_comm_hooks.default_hooks import allreduce_hook

__all__ = ["Reducer", "assign_buckets", "unfinished_reduction_message"]


def assign_buckets(params: list, caps: list) -> list:
    """Lists of parameter indices, one per bucket, in launch order (see the module docstring)."""
    buckets, open_ = [], {}
    for i in reversed(range(len(params))):
        p = params[i]
        cur = open_.setdefault(p.dtype, [[], 0, 0])
        cur[0].append(i)
        cur[1] += p.numel() * p.element_size()
        if cur[1] >= caps[min(cur[2], len(caps) - 1)]:
            buckets.append(cur[0])
            open_[p.dtype] = [[], 0, cur[2] + 1]
    buckets += sorted((cur[0] for cur in open_.values() if cur[0]), key=lambda idx: -idx[0])
    return buckets


def unfinished_reduction_message(rank: int, missing: list) -> str:
    return ("Expected to have finished reduction in the prior iteration before starting a new one. This error "
            "indicates that your module has parameters that were not used in producing loss. You can enable "
            "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
            "`torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function outputs "
            "participate in calculating loss. \nIf you already have done the above, then the distributed data "
            "parallel module wasn't able to locate the output tensors in the return value of your module's "
            "`forward` function. Please include the loss function and the structure of the return value of "
            "`forward` of your module when reporting this issue (e.g. list, dict, iterable).\n"
            f"Parameter indices which did not receive grad for rank {rank}: {' '.join(map(str, missing))}")


def _copy(dst, src) -> None:
    """``dst.copy_(src)`` for same-shape, same-dtype gradients without autograd: one memory copy (the
    general ``copy_`` materialises its source first, which doubles the traffic on 10M-element buckets)."""
    if dst._dtype is not src._dtype:
        with no_grad():
            dst.copy_(src)
        return
    out, data = dst._data, src._data.reshape(dst._data.shape)
    if data.ndim == 2 and data.size >= 1 << 16 and not data.flags.c_contiguous:
        # a transposed gradient: copying in 128x128 tiles keeps both sides in cache (~2x faster than one copyto)
        for i in range(0, data.shape[0], 128):
            for j in range(0, data.shape[1], 128):
                out[i:i + 128, j:j + 128] = data[i:i + 128, j:j + 128]
    else:
        np.copyto(out, data)
    dst._version_cell().value += 1


class _Bucket:
    def __init__(self, index: int, indices: list, params: list):
        self.index, self.indices = index, indices
        self.params = [params[i] for i in indices]
        with no_grad():
            self.buffer = zeros(sum(p.numel() for p in self.params), dtype=self.params[0].dtype)
            self.views, offset = [], 0
            for p in self.params:
                self.views.append(self.buffer[offset:offset + p.numel()].view(p.shape))
                offset += p.numel()
        self.pending = len(indices)
        self.future = None


class Reducer:
    """Buckets and hooks for ``params`` (the DDP module's parameters that require grad)."""

    def __init__(self, params: list, process_group, caps: list, gradient_as_bucket_view: bool,
                 find_unused_parameters: bool = False):
        self.params, self.pg = params, process_group
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.find_unused_parameters = find_unused_parameters
        self.buckets = [_Bucket(k, idx, params) for k, idx in enumerate(assign_buckets(params, caps))]
        self.slot = {}  # param index -> (bucket, position)
        for b in self.buckets:
            for pos, i in enumerate(b.indices):
                self.slot[i] = (b, pos)
        self.comm_state, self.comm_hook = None, None
        self.armed = False       # the last forward asked for a synced backward
        self.in_flight = False   # hooks fired this iteration, reduction not finalized yet
        self.ready: set = set()
        self.unused: set = set()
        self.next_bucket = 0
        self.callback_queued = False
        if gradient_as_bucket_view:
            with no_grad():
                for i, p in enumerate(params):
                    b, pos = self.slot[i]
                    if p.grad is not None:
                        b.views[pos].copy_(p.grad)
                        p.grad = b.views[pos]
        self.handles = [p.register_post_accumulate_grad_hook(self._hook_for(i)) for i, p in enumerate(params)]

    # -- per iteration ---------------------------------------------------------------------------
    def missing(self) -> list:
        return sorted(set(range(len(self.params))) - self.ready)

    def prepare(self, unused) -> None:
        """Start an iteration whose backward will be synced; ``unused`` indices are marked ready now."""
        for b in self.buckets:
            b.pending, b.future = len(b.indices), None
        self.ready, self.unused, self.next_bucket = set(), set(unused), 0
        self.callback_queued, self.armed = False, True
        for i in sorted(self.unused):
            b, pos = self.slot[i]
            if self.params[i].grad is not b.views[pos]:
                with no_grad():
                    b.views[pos].zero_()
            self._mark_ready(i)
        if self.unused:
            self.in_flight = True

    def _hook_for(self, i: int):
        def hook(param):
            if not self.armed:
                return  # no_sync(), or a backward not preceded by a synced DDP forward
            if i in self.ready:
                raise RuntimeError(
                    f"Expected to mark a variable ready only once. This error is caused by one of the following "
                    f"reasons: 1) Use of a module parameter outside the `forward` function. 2) Reused parameters "
                    f"in multiple reentrant backward passes. Parameter at index {i} has been marked as ready "
                    f"twice. This means that multiple autograd engine hooks have fired for this particular "
                    f"parameter during this iteration.")
            self.in_flight = True
            if not self.callback_queued:
                queue_callback(self._finalize)
                self.callback_queued = True
            b, pos = self.slot[i]
            if param.grad is not b.views[pos]:
                _copy(b.views[pos], param.grad)
            self._mark_ready(i)
            if self.next_bucket:
                self.pg._progress()  # MPI moves data only inside MPI calls: advance launched buckets now
        return hook

    def _mark_ready(self, i: int) -> None:
        self.ready.add(i)
        b, _ = self.slot[i]
        b.pending -= 1
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            self._launch(self.buckets[self.next_bucket])
            self.next_bucket += 1

    def _launch(self, b: _Bucket) -> None:
        grad_bucket = GradBucket(b.index, b.buffer, b.params, is_last=b.index == len(self.buckets) - 1)
        with no_grad():
            if self.comm_hook is None:
                b.future = allreduce_hook(self.pg, grad_bucket)
            else:
                b.future = self.comm_hook(self.comm_state, grad_bucket)

    def _finalize(self) -> None:
        """End of backward: wait for every bucket and write the averaged gradients back."""
        if self.next_bucket < len(self.buckets):
            return  # some parameter got no gradient: the next forward raises (as torch)
        globally_used = None
        if self.find_unused_parameters:  # every rank takes part, whether or not it has unused params
            globally_used = self._globally_used()
        with no_grad():
            for b in self.buckets:
                result = b.future.wait()
                if result is not b.buffer:
                    if result.numel() != b.buffer.numel():
                        raise RuntimeError(f"DDP comm hook returned a tensor of {result.numel()} elements for "
                                           f"bucket {b.index} of {b.buffer.numel()} elements")
                    _copy(b.buffer, result.reshape(-1))
                for pos, i in enumerate(b.indices):
                    p, view = self.params[i], b.views[pos]
                    if i in self.unused and not globally_used[i]:
                        continue  # unused on every rank: .grad left as it was
                    if self.gradient_as_bucket_view:
                        if p.grad is not view:
                            p.grad = view
                    elif p.grad is None or not p.grad._data.flags.c_contiguous:
                        # a transposed grad (Linear's weight grad arrives so) would cost a strided copy here
                        # and in the optimizer: give it the parameter's (contiguous) layout, as torch's are
                        p.grad = view.clone()
                    else:
                        _copy(p.grad, view)
        self.in_flight = self.armed = False

    def _globally_used(self) -> list:
        used = tensor([0 if i in self.unused else 1 for i in range(len(self.params))], dtype=D.int32)
        all_reduce(used, group=self.pg)
        return [bool(v) for v in used.tolist()]

    def remove_hooks(self) -> None:
        for h in self.handles:
            h.remove()
