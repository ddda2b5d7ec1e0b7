"""Checks run inside one initialised world (every launch path runs them): every collective, dtype and
ReduceOp against NumPy references, object collectives, subgroups, stores and async work handles.

Each rank derives every rank's input from a seed, so it can compute the NumPy reference alone.
``run_all()`` returns a list of "name" strings it checked; any mismatch raises AssertionError.
"""
from __future__ import annotations

import warnings
from datetime import timedelta

import ml_dtypes
import numpy as np

import ember
import ember.distributed as dist

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128"]
R = dist.ReduceOp


def data(rank: int, dtype: str, shape=(5, 3), salt: int = 0) -> np.ndarray:
    """Rank ``rank``'s input: small values so products and sums stay exact in every dtype."""
    rng = np.random.default_rng(1000 * rank + salt)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("complex"):
        return (rng.integers(-3, 4, shape) + 1j * rng.integers(-3, 4, shape)).astype(dtype)
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    low = 0 if dtype == "uint8" else -3
    return rng.integers(low, 4, shape).astype(np_dtype)


def tensor(a: np.ndarray):
    return ember.from_numpy(np.array(a, copy=True))


def close(name: str, got, want) -> None:
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype or want.dtype == object, f"{name}: dtype {got.dtype} != {want.dtype}"
    ok = np.allclose(got.astype(np.complex128), want.astype(np.complex128), rtol=1e-2, atol=1e-2)
    assert got.shape == want.shape and ok, f"{name}: got\n{got}\nwant\n{want}"


def reference(op, arrays):
    stack = np.stack([a.astype(np.complex128) if a.dtype.kind == "c" else a for a in arrays])
    if arrays[0].dtype == np.bool_:
        out = {R.SUM: stack.any(0), R.MAX: stack.any(0), R.BOR: stack.any(0), R.PRODUCT: stack.all(0),
               R.MIN: stack.all(0), R.BAND: stack.all(0), R.BXOR: np.logical_xor.reduce(stack, 0)}[op]
        return out
    if op in (R.BAND, R.BOR, R.BXOR):
        f = {R.BAND: np.bitwise_and, R.BOR: np.bitwise_or, R.BXOR: np.bitwise_xor}[op]
        return f.reduce(stack, 0).astype(arrays[0].dtype)
    wide = stack.astype(np.float64) if arrays[0].dtype.kind == "f" or arrays[0].dtype == ml_dtypes.bfloat16 else stack
    out = {R.SUM: wide.sum(0), R.PRODUCT: wide.prod(0), R.MIN: wide.min(0), R.MAX: wide.max(0),
           R.AVG: wide.mean(0)}[op]
    return out.astype(arrays[0].dtype)


def ops_for(dtype: str):
    if dtype in ("float16", "bfloat16", "float32", "float64"):
        return [R.SUM, R.AVG, R.PRODUCT, R.MIN, R.MAX]
    if dtype.startswith("complex"):
        return [R.SUM, R.AVG, R.PRODUCT]
    return [R.SUM, R.PRODUCT, R.MIN, R.MAX, R.BAND, R.BOR, R.BXOR]


def check_reductions(rank, n, done):
    for dtype in DTYPES:
        for op in ops_for(dtype):
            inputs = [data(r, dtype) for r in range(n)]
            t = tensor(inputs[rank])
            dist.all_reduce(t, op=op)
            close(f"all_reduce {dtype} {op}", t, reference(op, inputs))
            t = tensor(inputs[rank])
            dist.reduce(t, dst=n - 1, op=op)
            if rank == n - 1:
                close(f"reduce {dtype} {op}", t, reference(op, inputs))
            # reduce_scatter_single: each rank's input is n blocks of 2 rows
            full = [data(r, dtype, (2 * n, 3), salt=7) for r in range(n)]
            out = tensor(np.zeros((2, 3), full[0].dtype))
            dist.reduce_scatter_single(out, tensor(full[rank]), op=op)
            close(f"reduce_scatter_single {dtype} {op}", out, reference(op, full)[2 * rank:2 * rank + 2])
        done.append(f"reductions {dtype}")
    # non-contiguous tensors are staged and written back in place
    base = tensor(data(rank, "float32", (4, 6)))
    view = base.t()
    dist.all_reduce(view)
    close("all_reduce non-contiguous", base, sum(data(r, "float32", (4, 6)) for r in range(n)))
    # errors as torch's gloo
    for dtype, op, kind, text in [("int64", R.AVG, RuntimeError, "desired output type Long"),
                                  ("complex64", R.MAX, ValueError, "does not support RedOpType.MAX on complex"),
                                  ("float32", R.BAND, RuntimeError, "Cannot use ReduceOp.BAND with non-integral")]:
        try:
            dist.all_reduce(tensor(data(rank, dtype)), op=op)
            raise AssertionError(f"all_reduce {dtype} {op} did not raise")
        except kind as e:
            assert text in str(e), str(e)
    done.append("reduction errors")


def check_ring(rank, n, done):
    """Large all-reduces take the ring (forced here by lowering its threshold): every dtype, every op,
    chunks of uneven and zero length, and two rings in flight at once."""
    from ember.distributed import _process_group
    saved, _process_group.RING_BYTES = _process_group.RING_BYTES, 1
    try:
        cases = [(dtype, R.SUM, (7, 5)) for dtype in DTYPES]  # every dtype, and every op on two of them
        cases += [(dtype, op, shape) for dtype in ("float32", "int32") for op in ops_for(dtype)
                  for shape in ((7, 5), (2,))]
        for dtype, op, shape in cases:
            inputs = [data(r, dtype, shape, salt=5) for r in range(n)]
            t = tensor(inputs[rank])
            dist.all_reduce(t, op=op)
            close(f"ring all_reduce {dtype} {op} {shape}", t, reference(op, inputs))
        a, b = tensor(np.full(100, float(rank))), tensor(np.full(33, rank + 1, np.int64))
        works = [dist.all_reduce(a, async_op=True), dist.all_reduce(b, op=R.PRODUCT, async_op=True)]
        for w in reversed(works):
            w.wait()
        close("ring in flight (sum)", a, np.full(100, float(sum(range(n)))))
        close("ring in flight (product)", b, np.full(33, int(np.prod(np.arange(1, n + 1))), np.int64))
    finally:
        _process_group.RING_BYTES = saved
    done.append("ring all_reduce")


def check_movement(rank, n, done):
    for dtype in DTYPES:
        inputs = [data(r, dtype, salt=3) for r in range(n)]
        t = tensor(inputs[rank])
        dist.broadcast(t, src=n - 1)
        close(f"broadcast {dtype}", t, inputs[n - 1])
        outs = [tensor(np.zeros_like(inputs[0])) for _ in range(n)]
        dist.all_gather(outs, tensor(inputs[rank]))
        for r in range(n):
            close(f"all_gather {dtype}", outs[r], inputs[r])
        big = tensor(np.zeros((5 * n, 3), inputs[0].dtype))
        dist.all_gather_single(big, tensor(inputs[rank]))
        close(f"all_gather_single {dtype}", big, np.concatenate(inputs))
        if dtype == "float32":  # torch 2.13's deprecated names still work, with its FutureWarning
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                big2 = tensor(np.zeros((5 * n, 3), inputs[0].dtype))
                dist.all_gather_into_tensor(big2, tensor(inputs[rank]))
                out = tensor(np.zeros((5, 3), inputs[0].dtype))
                dist.reduce_scatter_tensor(out, tensor(np.concatenate(inputs)))
            close("all_gather_into_tensor", big2, np.concatenate(inputs))
            close("reduce_scatter_tensor", out, n * inputs[rank])
            assert [str(w.message).split("`")[1] for w in caught if w.category is FutureWarning] == [
                "torch.distributed.all_gather_into_tensor", "torch.distributed.reduce_scatter_tensor"], caught
        gl = [tensor(np.zeros_like(inputs[0])) for _ in range(n)] if rank == 0 else None
        dist.gather(tensor(inputs[rank]), gl, dst=0)
        if rank == 0:
            for r in range(n):
                close(f"gather {dtype}", gl[r], inputs[r])
        pieces = [data(r, dtype, (2, 2), salt=11) for r in range(n)]
        out = tensor(np.zeros((2, 2), pieces[0].dtype))
        dist.scatter(out, [tensor(p) for p in pieces] if rank == 1 else None, src=1)
        close(f"scatter {dtype}", out, pieces[rank])
        done.append(f"movement {dtype}")


def check_uneven(rank, n, done):
    """Sizes that differ per rank: all_gather, gather, all_to_all(_single), reduce_scatter."""
    sizes = [r + 1 for r in range(n)]
    mine = np.arange(sizes[rank], dtype=np.float64) + 10 * rank
    outs = [tensor(np.zeros(s)) for s in sizes]
    dist.all_gather(outs, tensor(mine))
    for r in range(n):
        close("all_gather uneven", outs[r], np.arange(sizes[r]) + 10.0 * r)
    # all_to_all_single: rank r sends (r + j + 1) rows to rank j
    send_splits = [rank + j + 1 for j in range(n)]
    recv_splits = [j + rank + 1 for j in range(n)]
    x = np.concatenate([np.full((send_splits[j], 2), 100 * rank + j, np.int32) for j in range(n)])
    y = tensor(np.zeros((sum(recv_splits), 2), np.int32))
    dist.all_to_all_single(y, tensor(x), recv_splits, send_splits)
    want = np.concatenate([np.full((recv_splits[j], 2), 100 * j + rank, np.int32) for j in range(n)])
    close("all_to_all_single uneven", y, want)
    y = tensor(np.zeros((2 * n, 3), np.int64))
    x = np.arange(2 * n * 3, dtype=np.int64).reshape(2 * n, 3) + 1000 * rank
    dist.all_to_all_single(y, tensor(x))
    want = np.concatenate([(np.arange(2 * n * 3).reshape(2 * n, 3) + 1000 * j)[2 * rank:2 * rank + 2]
                           for j in range(n)])
    close("all_to_all_single even", y, want)
    ins = [tensor(np.full(j + 1, rank * 10 + j, np.float32)) for j in range(n)]
    outs = [tensor(np.zeros(rank + 1, np.float32)) for _ in range(n)]
    dist.all_to_all(outs, ins)
    for j in range(n):
        close("all_to_all", outs[j], np.full(rank + 1, j * 10 + rank, np.float32))
    ins = [tensor(np.full(j + 2, float(rank + 1))) for j in range(n)]
    out = tensor(np.zeros(rank + 2))
    dist.reduce_scatter(out, ins, op=R.MAX)
    close("reduce_scatter uneven", out, np.full(rank + 2, float(n)))
    done.append("uneven splits")


def check_p2p(rank, n, done):
    right, left = (rank + 1) % n, (rank - 1) % n
    got = tensor(np.zeros(4, ml_dtypes.bfloat16))
    ops = [dist.P2POp(dist.isend, tensor(np.full(4, rank, ml_dtypes.bfloat16)), right),
           dist.P2POp(dist.irecv, got, left)]
    for work in dist.batch_isend_irecv(ops):
        work.wait()
    close("batch_isend_irecv", got, np.full(4, left, ml_dtypes.bfloat16))
    if rank == 0:
        for r in range(1, n):
            buf = tensor(np.zeros(3, np.int64))
            sender = dist.recv(buf)
            close("recv any source", buf, np.full(3, sender, np.int64))
    else:
        dist.send(tensor(np.full(3, rank, np.int64)), dst=0)
    done.append("p2p")


def check_objects(rank, n, done):
    objs = [{"rank": rank, "t": ember.tensor([float(rank)])}, "x" * (rank + 1)]
    gathered = [None] * n
    dist.all_gather_object(gathered, objs)
    assert [g[0]["rank"] for g in gathered] == list(range(n)) and gathered[n - 1][1] == "x" * n
    assert gathered[1][0]["t"].tolist() == [1.0]
    lst = [rank, None, "a" * rank] if rank == 1 else [None, None, None]
    dist.broadcast_object_list(lst, src=1)
    assert lst == [1, None, "a"], lst
    out = [None] * n if rank == 0 else None
    dist.gather_object(("g", rank), out, dst=0)
    if rank == 0:
        assert out == [("g", r) for r in range(n)], out
    got = [None]
    dist.scatter_object_list(got, [("s", r) for r in range(n)] if rank == 0 else None, src=0)
    assert got == [("s", rank)], got
    if rank == 0:
        dist.send_object_list([{"k": 1}, [2]], dst=1)
    elif rank == 1:
        box = [None, None]
        assert dist.recv_object_list(box, src=0) == 0 and box == [{"k": 1}, [2]], box
    done.append("object collectives")


def check_async(rank, n, done):
    t = tensor(np.full(1000, float(rank + 1)))
    work = dist.all_reduce(t, async_op=True)
    fut = work.get_future().then(lambda f: f.value()[0].sum().item())
    assert work.wait(timeout=timedelta(seconds=20)) is True and work.is_completed() and work.is_success()
    assert fut.wait() == 1000 * n * (n + 1) / 2
    # several in flight, completed by progress (a later wait), callbacks fire in order
    order = []
    works = [dist.all_reduce(tensor(np.ones(10) * i), async_op=True) for i in range(4)]
    for i, w in enumerate(works):
        w.get_future().add_done_callback(lambda f, i=i: order.append(i))
    works[-1].wait()
    for w in works:
        w.wait()
    assert sorted(order) == [0, 1, 2, 3] and all(w.result()[0].tolist()[0] == i * n for i, w in enumerate(works))
    b = dist.barrier(async_op=True)
    b.wait()
    dist.monitored_barrier(timeout=timedelta(seconds=20))
    done.append("async work handles")


def check_groups(rank, n, done):
    ranks = [0, n - 1]
    g = dist.new_group(ranks)
    if rank in ranks:
        assert dist.get_world_size(g) == 2 and dist.get_rank(g) == ranks.index(rank)
        assert dist.get_process_group_ranks(g) == ranks and dist.get_global_rank(g, 1) == n - 1
        t = tensor(np.full(3, float(rank)))
        dist.all_reduce(t, group=g)
        close("subgroup all_reduce", t, np.full(3, float(n - 1)))
        t = tensor(np.full(2, rank, np.int32))
        dist.broadcast(t, src=n - 1, group=g)
        close("subgroup broadcast (global src)", t, np.full(2, n - 1, np.int32))
        t = tensor(np.full(2, rank, np.int32))
        dist.broadcast(t, group=g, group_src=0)
        close("subgroup broadcast (group_src)", t, np.zeros(2, np.int32))
    else:
        assert g == dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(g) == -1
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert dist.all_reduce(tensor(np.ones(2)), group=g) is None
        assert "does not belong to the given group" in str(caught[0].message)
    dist.barrier()
    done.append("subgroups")


def check_store(rank, n, done):
    box = [None]
    if rank == 0:
        server = dist.TCPStore("127.0.0.1", 0, n, is_master=True, timeout=timedelta(seconds=20))
        box = [server.port]
    dist.broadcast_object_list(box, src=0)
    store = server if rank == 0 else dist.TCPStore("127.0.0.1", box[0], n, timeout=timedelta(seconds=20))
    store.set(f"k{rank}", f"v{rank}")
    assert store.add("counter", rank + 1) >= rank + 1
    store.wait([f"k{r}" for r in range(n)])
    assert [store.get(f"k{r}") for r in range(n)] == [f"v{r}".encode() for r in range(n)]
    dist.barrier()
    assert int(store.get("counter")) == n * (n + 1) // 2
    if rank == 0:
        assert store.compare_set("cas", "", "first") == b"first"
        assert store.compare_set("cas", "wrong", "second") == b"first"
        assert store.compare_set("cas", "first", "second") == b"second"
    dist.barrier()
    assert store.get("cas") == b"second"
    try:
        store.wait(["never"], timedelta(milliseconds=100))
        raise AssertionError("wait did not time out")
    except dist.DistStoreError as e:
        assert "never" in str(e)
    prefixed = dist.PrefixStore("p", store)
    prefixed.set(f"r{rank}", "1")
    prefixed.wait([f"r{r}" for r in range(n)])
    assert store.check([f"p/r{r}" for r in range(n)])
    dist.barrier()
    done.append("stores")


def run_all() -> list:
    rank, n = dist.get_rank(), dist.get_world_size()
    done: list = []
    for check in (check_reductions, check_ring, check_movement, check_uneven, check_p2p, check_objects, check_async,
                  check_groups, check_store):
        check(rank, n, done)
    return done
