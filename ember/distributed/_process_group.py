"""``ProcessGroup`` on an MPI communicator: every collective is non-blocking and returns a ``Work``.

Tensors travel as NumPy buffers: bfloat16 and float16 as their 16-bit patterns (reductions add in
float32 and round back, ember's rule for half types), bool as bytes (SUM is logical or, PRODUCT
logical and, as torch's gloo does). A contiguous output with a wire-ready dtype is written in place
by MPI; anything else is staged and copied back when the work completes. Ranks here are ranks
within the group; ``distributed_c10d`` maps torch's global ranks to them.

Example (inside an MPI process; ``init_process_group`` builds the real ones)::

    pg = ProcessGroup(MPI.COMM_WORLD, list(range(MPI.COMM_WORLD.Get_size())), "mpi", timeout=60.0)
    work = pg.allreduce([t])          # issued, not finished
    work.get_future().then(callback)  # runs when a later wait/progress sees it complete
    work.wait()
"""
from __future__ import annotations

import os

import numpy as np

from .. import _dtype as D
from . import _mpi
from ._errors import DistBackendError
from ._reduce_op import ReduceOp
from ._ring import RING_BYTES, UFUNCS, ring_allreduce
from ._work import SPIN_SECONDS, Work

__all__ = ["ProcessGroup"]

_MPI_OPS = {ReduceOp.SUM: "SUM", ReduceOp.AVG: "SUM", ReduceOp.PRODUCT: "PROD", ReduceOp.MIN: "MIN",
            ReduceOp.MAX: "MAX", ReduceOp.BAND: "BAND", ReduceOp.BOR: "BOR", ReduceOp.BXOR: "BXOR"}
_BOOL_OPS = {ReduceOp.SUM: "MAX", ReduceOp.PRODUCT: "MIN"}  # or / and on 0-1 bytes
_TORCH_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
                     "int64": "Long"}


def check_reduce_op(name: str, op, dtype) -> None:
    """Raise torch's error for a reduction the dtype does not support."""
    if op not in _MPI_OPS:
        if op == ReduceOp.PREMUL_SUM:
            raise RuntimeError(f"{name}: ReduceOp.PREMUL_SUM is not supported by ember's MPI backend")
        raise TypeError(f"{name}: op must be a torch.distributed.ReduceOp, got {op!r}")
    if dtype.is_complex and op in (ReduceOp.MIN, ReduceOp.MAX):
        raise ValueError(f"{name} does not support {op} on complex tensors")
    if (dtype.is_floating_point or dtype.is_complex) and op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR):
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    if op == ReduceOp.AVG and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_TORCH_TYPE_NAMES[dtype.name]}")


def _raw(array: np.ndarray) -> np.ndarray:
    """A contiguous array of a type MPI knows, sharing memory with ``array`` when it can."""
    array = np.ascontiguousarray(array)
    if array.dtype.itemsize == 2 and array.dtype.kind not in "iu":  # float16, bfloat16: their bits
        return array.view(np.uint16)
    if array.dtype == np.bool_:
        return array.view(np.uint8)
    return array


def _reducible(array: np.ndarray, in_place: bool = False) -> np.ndarray:
    """A contiguous buffer to reduce in place: ``array`` itself when ``in_place`` and MPI can reduce its
    dtype directly, else a fresh copy (half types widened to float32, bool as bytes)."""
    if array.dtype.itemsize == 2 and array.dtype.kind not in "iu":
        return array.astype(np.float32)
    if array.dtype == np.bool_:
        return array.astype(np.uint8)
    if in_place and array.flags.c_contiguous:
        return array
    return np.array(array, order="C", copy=True)


def _bump(tensor) -> None:
    tensor._version_cell().value += 1


def _store(tensor, values: np.ndarray) -> None:
    """Write ``values`` (any dtype, same number of elements) into ``tensor`` and bump its version."""
    data = tensor._data
    if values is not data:  # reduced in place already
        np.copyto(data, values.reshape(data.shape).astype(data.dtype, copy=False))
    _bump(tensor)


def _receiver(tensor):
    """(buffer MPI writes into, finish step) for an output tensor: in place when it can be."""
    data = tensor._data
    if data.flags.c_contiguous:
        return _raw(data), lambda: _bump(tensor)
    staged = _raw(np.empty(data.shape, data.dtype))

    def finish():
        np.copyto(data, staged.view(data.dtype).reshape(data.shape))
        _bump(tensor)
    return staged, finish


def _chain(*steps):
    def run():
        for step in steps:
            step()
    return run


class ProcessGroup:
    """A group of ranks on one MPI communicator; methods take and return group ranks.

    Args:
        comm: the mpi4py communicator; ranks: the global rank of each group rank;
        backend: the name ``get_backend`` reports; timeout: seconds before a collective fails.
    """

    def __init__(self, comm, ranks: list, backend: str, timeout: float, global_rank: int | None = None):
        self._comm, self._ranks, self._backend, self._timeout = comm, list(ranks), backend, float(timeout)
        self._MPI = _mpi.load()
        self._global_rank = self._ranks[comm.Get_rank()] if global_rank is None else global_rank
        self._pending: list = []
        self._broken = None
        self._ring_comm = comm.Dup() if comm.Get_size() > 1 else None  # ring traffic never meets user p2p
        # spinning pays only when every rank of this machine has a core of its own
        local = comm.Split_type(self._MPI.COMM_TYPE_SHARED) if comm.Get_size() > 1 else None
        self._spin = SPIN_SECONDS if local is None or local.Get_size() <= len(os.sched_getaffinity(0)) else 0.0
        if local is not None:
            local.Free()
        self._ring_tag = 0

    # -- bookkeeping -------------------------------------------------------------------------
    def rank(self) -> int:
        return self._comm.Get_rank()

    def size(self) -> int:
        return self._comm.Get_size()

    def name(self) -> str:
        return self._backend.upper()

    def _abort(self, error: Exception) -> None:
        if self._broken is None:
            self._broken = error
        _mpi.mark_aborted()

    def _progress(self, until: Work | None = None) -> bool:
        """Test every pending work once, in issue order; report whether ``until`` completed."""
        if self._pending:
            self._pending = [w for w in self._pending if not w._test()]
        return until is None or until._completed

    def _issue(self, name: str, post, finish=None, result=None, stages=None) -> Work:
        if self._broken is not None:
            raise DistBackendError(f"{name} on rank {self._global_rank}: the process group was aborted by an "
                                   f"earlier failure: {self._broken}")
        self._progress()
        try:
            requests = post() if stages is None else next(stages, [])
        except self._MPI.Exception as e:
            raise DistBackendError(f"{name} failed on rank {self._global_rank}: {e}") from None
        work = Work(self, name, requests if isinstance(requests, list) else [requests], finish, result, stages)
        self._pending.append(work)
        return work

    def _op_name(self, op, dtype) -> str:
        return _BOOL_OPS.get(op, _MPI_OPS[op]) if dtype == D.bool else _MPI_OPS[op]

    def _op(self, op, dtype):
        return getattr(self._MPI, self._op_name(op, dtype))

    # -- reductions --------------------------------------------------------------------------
    def _reduce_finish(self, tensor, buf, op):
        def finish():
            if op == ReduceOp.AVG:
                np.divide(buf, self.size(), out=buf, casting="unsafe")
            _store(tensor, buf)
        return finish

    def allreduce(self, tensors: list, op=ReduceOp.SUM) -> Work:
        bufs = [_reducible(t._data, in_place=True) for t in tensors]
        ops = [self._op(op, t._dtype) for t in tensors]
        finish = _chain(*(self._reduce_finish(t, b, op) for t, b in zip(tensors, bufs)))
        if len(tensors) == 1 and self._ring_comm is not None and bufs[0].nbytes >= RING_BYTES:
            self._ring_tag = (self._ring_tag + 1) % 32768  # every rank issues collectives in the same order
            ufunc = UFUNCS[self._op_name(op, tensors[0]._dtype)]
            ring = ring_allreduce(self._ring_comm, bufs[0].reshape(-1), ufunc, self._ring_tag)
            return self._issue("all_reduce", None, finish, tensors, stages=ring)
        return self._issue("all_reduce", lambda: [self._comm.Iallreduce(self._MPI.IN_PLACE, b, o)
                                                   for b, o in zip(bufs, ops)], finish, tensors)

    def reduce(self, tensors: list, root: int, op=ReduceOp.SUM) -> Work:
        t = tensors[0]
        buf, mpi_op = _reducible(t._data, in_place=True), self._op(op, t._dtype)
        if self.rank() == root:
            return self._issue("reduce", lambda: self._comm.Ireduce(self._MPI.IN_PLACE, buf, mpi_op, root),
                               self._reduce_finish(t, buf, op), tensors)
        return self._issue("reduce", lambda: self._comm.Ireduce(buf, None, mpi_op, root), None, tensors)

    def reduce_scatter(self, output, inputs: list, op=ReduceOp.SUM) -> Work:
        counts = [int(x._data.size) for x in inputs]
        send = np.concatenate([_reducible(x._data).reshape(-1) for x in inputs]) if inputs else None
        buf = _reducible(output._data).reshape(-1)
        mpi_op = self._op(op, output._dtype)
        return self._issue("reduce_scatter", lambda: self._comm.Ireduce_scatter(send, buf, counts, mpi_op),
                           self._reduce_finish(output, buf, op), [output])

    def reduce_scatter_single(self, output, input, op=ReduceOp.SUM) -> Work:
        send, buf = _reducible(input._data).reshape(-1), _reducible(output._data).reshape(-1)
        if send.size != buf.size * self.size():
            raise ValueError(f"reduce_scatter_single: input tensor must have world_size ({self.size()}) times "
                             f"the elements of the output ({tuple(input.shape)} vs {tuple(output.shape)})")
        mpi_op = self._op(op, output._dtype)
        return self._issue("reduce_scatter_single",
                           lambda: self._comm.Ireduce_scatter_block(send, buf, mpi_op),
                           self._reduce_finish(output, buf, op), [output])

    # -- data movement -----------------------------------------------------------------------
    def broadcast(self, tensors: list, root: int) -> Work:
        t = tensors[0]
        buf, finish = _receiver(t)
        if self.rank() == root:
            buf, finish = _raw(t._data), None
        return self._issue("broadcast", lambda: self._comm.Ibcast(buf, root), finish, tensors)

    def allgather(self, outputs: list, input) -> Work:
        """``outputs[i]`` receives group rank i's ``input`` (sizes may differ)."""
        send = _raw(input._data).reshape(-1)
        counts = [int(o._data.size) for o in outputs]
        recv = _raw(np.empty(sum(counts), input._data.dtype))
        return self._issue("all_gather", lambda: self._comm.Iallgatherv(send, [recv, counts]),
                           self._scatter_back(outputs, recv, counts), outputs)

    def _scatter_back(self, outputs, recv, counts):
        def finish():
            at = 0
            for o, n in zip(outputs, counts):
                np.copyto(o._data, recv[at:at + n].view(o._data.dtype).reshape(o._data.shape))
                _bump(o)
                at += n
        return finish

    def allgather_into(self, output, input, name="all_gather_single") -> Work:
        send = _raw(input._data).reshape(-1)
        if output._data.size != send.size * self.size():
            raise ValueError(f"{name}: output tensor must have world_size ({self.size()}) times the "
                             f"elements of the input ({tuple(output.shape)} vs {tuple(input.shape)})")
        recv, finish = _receiver(output)
        return self._issue(name, lambda: self._comm.Iallgather(send, recv.reshape(-1)), finish, [output])

    def gather(self, outputs: list, input, root: int) -> Work:
        send = _raw(input._data).reshape(-1)
        if self.rank() != root:
            return self._issue("gather", lambda: self._comm.Igatherv(send, None, root), None, [])
        counts = [int(o._data.size) for o in outputs]
        recv = _raw(np.empty(sum(counts), input._data.dtype))
        return self._issue("gather", lambda: self._comm.Igatherv(send, [recv, counts], root),
                           self._scatter_back(outputs, recv, counts), outputs)

    def scatter(self, output, inputs: list, root: int) -> Work:
        recv, finish = _receiver(output)
        if self.rank() != root:
            return self._issue("scatter", lambda: self._comm.Iscatterv(None, recv.reshape(-1), root),
                               finish, [output])
        counts = [int(x._data.size) for x in inputs]
        send = np.concatenate([_raw(x._data).reshape(-1) for x in inputs])
        return self._issue("scatter", lambda: self._comm.Iscatterv([send, counts], recv.reshape(-1), root),
                           finish, [output])

    def alltoall(self, outputs: list, inputs: list) -> Work:
        scounts = [int(x._data.size) for x in inputs]
        rcounts = [int(o._data.size) for o in outputs]
        send = np.concatenate([_raw(x._data).reshape(-1) for x in inputs])
        recv = _raw(np.empty(sum(rcounts), outputs[0]._data.dtype))
        return self._issue("all_to_all", lambda: self._comm.Ialltoallv([send, scounts], [recv, rcounts]),
                           self._scatter_back(outputs, recv, rcounts), outputs)

    def alltoall_single(self, output, input, output_split_sizes, input_split_sizes) -> Work:
        n = self.size()
        row_in = int(np.prod(input.shape[1:])) if len(input.shape) > 1 else 1
        row_out = int(np.prod(output.shape[1:])) if len(output.shape) > 1 else 1
        if not input_split_sizes and input.shape[0] % n:
            raise ValueError(f"all_to_all_single: input dim 0 ({input.shape[0]}) must divide by the group "
                             f"size ({n}) when input_split_sizes is not given")
        in_splits = input_split_sizes or [input.shape[0] // n] * n
        out_splits = output_split_sizes or [output.shape[0] // n] * n
        send = _raw(input._data).reshape(-1)
        recv, finish = _receiver(output)
        scounts = [int(s) * row_in for s in in_splits]
        rcounts = [int(s) * row_out for s in out_splits]
        return self._issue("all_to_all_single",
                           lambda: self._comm.Ialltoallv([send, scounts], [recv.reshape(-1), rcounts]),
                           finish, [output])

    def send(self, tensors: list, dst: int, tag: int = 0) -> Work:
        buf = _raw(tensors[0]._data).reshape(-1)
        return self._issue("send", lambda: self._comm.Isend(buf, dst, tag), None, tensors)

    def recv(self, tensors: list, src: int | None, tag: int = 0) -> Work:
        recv, finish = _receiver(tensors[0])
        source = self._MPI.ANY_SOURCE if src is None else src
        return self._issue("recv", lambda: self._comm.Irecv(recv.reshape(-1), source, tag), finish, tensors)

    def barrier(self) -> Work:
        return self._issue("barrier", lambda: self._comm.Ibarrier())

    def fence(self, name: str) -> None:
        """A barrier bounded by the timeout, before a blocking MPI call that cannot be polled."""
        self.barrier().wait()

    def __repr__(self) -> str:
        return f"ProcessGroup(backend={self._backend!r}, rank={self.rank()}, size={self.size()})"
