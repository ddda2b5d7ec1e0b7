"""``DistributedDataParallel``: data parallelism over an ``ember.distributed`` process group.

At construction every rank checks that the parameter shapes match across the group and takes rank 0's
parameters and buffers; each forward broadcasts rank 0's buffers (``broadcast_buffers``) and arms the
reducer (``_reducer.Reducer``): during backward gradients are averaged over the group in flat buckets
whose all-reduces overlap the rest of backward. ``no_sync()`` accumulates locally instead.

Example (inside an initialised world; ``python -m ember.examples.ddp_train`` runs a whole job)::

    model = DistributedDataParallel(nn.Linear(10, 1))
    loss = model(x).pow(2).mean(); loss.backward()     # every rank now holds the averaged .grad
    model.state_dict().keys()                          # 'module.weight', 'module.bias'
"""
from __future__ import annotations

import warnings
from contextlib import contextmanager

from ..._tensor import Tensor
from ... import _dtype as D
from ..._creation import tensor
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...distributed import _world
from ...distributed._collectives import all_reduce, broadcast
from ...distributed._object_collectives import all_gather_object
from ...distributed.distributed_c10d import get_global_rank
from ..modules.module import Module
from ._reducer import Reducer, unfinished_reduction_message

__all__ = ["DistributedDataParallel"]

_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024
_DEFAULT_BUCKET_CAP_MB = 25


def _tensors_in(obj, out: list) -> list:
    """Every tensor in a (nested) forward output: tuples, lists, dicts, dataclass-like objects."""
    if isinstance(obj, Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            _tensors_in(x, out)
    elif isinstance(obj, dict):
        for x in obj.values():
            _tensors_in(x, out)
    return out


def _reachable_leaves(outputs) -> set:
    """ids of the leaf tensors whose AccumulateGrad nodes the outputs' graphs reach."""
    seen, found = set(), set()
    stack = [t.grad_fn for t in _tensors_in(outputs, []) if t.grad_fn is not None]
    leaves = {id(t) for t in _tensors_in(outputs, []) if t.grad_fn is None and t.requires_grad}
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        var = getattr(node, "variable", None)
        if var is not None:
            found.add(id(var))
        stack.extend(child for child, _ in node.next_functions if child is not None)
    return found | leaves


class DistributedDataParallel(Module):
    """Wraps ``module`` (``self.module``); see the module docstring. Arguments and defaults as torch's.

    ``device_ids``/``output_device`` must be None (CPU); ``process_group`` None is the default group.
    ``bucket_cap_mb`` (default 25) caps every bucket after the first (1 MiB).
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=None,
                 init_sync=True, process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None, mixed_precision=None,
                 device_mesh=None, skip_all_reduce_unused_params=False, bucket_cap_mb_list=None,
                 batched_grad_copy=False, forward_sync_buffers=None):
        super().__init__()
        params = []
        for p in module.parameters():
            if p.requires_grad and all(p is not q for q in params):
                params.append(p)
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any "
                               "parameter that requires a gradient.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        if device_ids:
            raise ValueError(f"DistributedDataParallel device_ids and output_device arguments only work with "
                             f"single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                             f"{device_ids}, output_device {output_device}, and module parameters {{'cpu'}}.")
        if mixed_precision is not None or device_mesh is not None or delay_all_reduce_named_params:
            raise NotImplementedError("DistributedDataParallel: mixed_precision, device_mesh and "
                                      "delay_all_reduce_named_params are not supported by ember")
        if broadcast_buffers is not None:
            warnings.warn("`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead.",
                          FutureWarning, stacklevel=2)
        self.module = module
        self.process_group = _world.resolve(process_group)
        self.device_ids, self.output_device, self.dim = None, None, dim
        self.device = params[0].device
        if forward_sync_buffers is not None:
            self.forward_sync_buffers, init_sync_buffers = forward_sync_buffers, True
        else:
            self.forward_sync_buffers = init_sync_buffers = broadcast_buffers if broadcast_buffers is not None else True
        self.find_unused_parameters = find_unused_parameters
        self.static_graph = static_graph
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        cap_mb = _DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb
        self.bucket_bytes_cap = int(cap_mb * 1024 * 1024)
        self._authoritative = get_global_rank(self.process_group, 0)
        self._module_parameters = params
        if init_sync:
            self._verify_param_shapes(params)
            self._broadcast(list(module.parameters()) + (list(module.buffers()) if init_sync_buffers else []))
        caps = [min(_DEFAULT_FIRST_BUCKET_BYTES, self.bucket_bytes_cap), self.bucket_bytes_cap]
        self.reducer = Reducer(params, self.process_group, caps, gradient_as_bucket_view,
                               find_unused_parameters or static_graph)
        self._comm_hook_registered = False
        self._join_iterations = None  # an int inside join()

    # -- construction helpers ----------------------------------------------------------------
    def _verify_param_shapes(self, params) -> None:
        mine = [tuple(p.shape) for p in params]
        everyone = [None] * self.process_group.size()
        all_gather_object(everyone, mine, group=self.process_group)
        for r, theirs in enumerate(everyone):  # every rank raises the same error
            if len(theirs) != len(everyone[0]):
                raise RuntimeError(f"DDP expects same model across all ranks, but Rank {r} has {len(theirs)} "
                                   f"params, while rank 0 has inconsistent {len(everyone[0])} params.")
            for i, shape in enumerate(theirs):
                if everyone[0][i] != shape:
                    raise RuntimeError(f"[{r}]: params[{i}] in this process with sizes {list(shape)} appears "
                                       f"not to match sizes of the same param in process 0.")

    def _broadcast(self, tensors, src=None) -> None:
        src = self._authoritative if src is None else src
        works = [broadcast(t, src=src, group=self.process_group, async_op=True) for t in tensors]
        for w in works:
            w.wait()

    # -- forward -----------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        reducer = self.reducer
        if self._join_iterations is not None:  # inside join(): tell joined ranks one more iteration comes
            self._join_flag(1)
            self._join_iterations += 1
        if reducer.in_flight:
            raise RuntimeError(unfinished_reduction_message(self.process_group.rank(), reducer.missing()))
        if self.forward_sync_buffers and self.require_forward_param_sync:
            buffers = list(self.module.buffers())
            if buffers:
                self._broadcast(buffers)
        output = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            unused = []
            if self.find_unused_parameters or self.static_graph:
                reached = _reachable_leaves(output)
                unused = [i for i, p in enumerate(reducer.params) if id(p) not in reached]
            reducer.prepare(unused)
        else:
            reducer.armed = False
        return output

    @contextmanager
    def no_sync(self):
        """Skip gradient synchronisation in backward passes of forwards run inside this context."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def register_comm_hook(self, state, hook) -> None:
        """``hook(state, bucket: GradBucket) -> Future`` reduces each bucket instead of the averaging all-reduce."""
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        if self._comm_hook_registered:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        self._comm_hook_registered = True
        self.reducer.comm_state, self.reducer.comm_hook = state, hook

    @contextmanager
    def join(self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False):
        """Train on uneven inputs: a rank whose data ran out shadows the others' collectives (zero
        gradients, so they are averaged over the initial world size) until every rank is done; then the
        parameters and buffers of the last rank to finish are broadcast to all."""
        if not enable:
            yield
            return
        if throw_on_early_termination or not divide_by_initial_world_size:
            raise NotImplementedError("DistributedDataParallel.join: ember supports only "
                                      "divide_by_initial_world_size=True, throw_on_early_termination=False")
        if self.find_unused_parameters:
            raise NotImplementedError("DistributedDataParallel.join with find_unused_parameters=True is not "
                                      "supported by ember")
        self._join_iterations = 0
        try:
            yield
        except BaseException:
            self._join_iterations = None
            raise
        iterations, self._join_iterations = self._join_iterations, None
        while self._join_flag(0) > 0:  # others still train: mirror one iteration of theirs
            self._shadow_iteration()
        counts = [None] * self.process_group.size()
        all_gather_object(counts, (iterations, self.process_group.rank()), group=self.process_group)
        last = max(counts)[1]
        self._broadcast(list(self.module.parameters()) + list(self.module.buffers()),
                        src=get_global_rank(self.process_group, last))

    def _join_flag(self, value: int) -> int:
        flag = tensor([value], dtype=D.int32)
        all_reduce(flag, group=self.process_group)
        return int(flag.item())

    def _shadow_iteration(self) -> None:
        if self.forward_sync_buffers and self.require_forward_param_sync:
            buffers = list(self.module.buffers())
            if buffers:
                self._broadcast(buffers)
        for b in self.reducer.buckets:
            with no_grad():
                b.buffer.zero_()
            self.reducer._launch(b)
        for b in self.reducer.buckets:
            b.future.wait()

    def _get_ddp_bucket_indices(self) -> list:
        """The parameter indices of each bucket, in launch order (ember's introspection helper)."""
        return [list(b.indices) for b in self.reducer.buckets]

    def extra_repr(self) -> str:
        return ""
