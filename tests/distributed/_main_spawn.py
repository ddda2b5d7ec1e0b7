"""Launch path 2: ``ember.multiprocessing.spawn(fn, args=(world_size,), nprocs=world_size)`` with PyTorch's
DDP-tutorial pattern (MASTER_ADDR/MASTER_PORT set by ``fn``, ``init_process_group("gloo", rank, world_size)``).
argv: port, mode ("checks" or "raise")."""
import os
import signal
import sys
import time

import ember.distributed as dist
import ember.multiprocessing as mp


def fn(rank, world_size, port, mode):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    if mode == "raise" and rank == 1:
        raise KeyError("child 1 raises on purpose")
    if mode == "sigkill" and rank == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    start = time.monotonic()
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    assert dist.get_rank() == rank and dist.get_world_size() == world_size
    from tests.distributed import _checks
    done = _checks.run_all() + _dataloader_in_a_group(rank)
    dist.destroy_process_group()
    print(f"rank {rank} OK {len(done)} checks in {time.monotonic() - start:.1f}s", flush=True)


class Squares:
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return i * i


def _dataloader_in_a_group(rank):
    """DataLoader workers inside a process group start without fork (fork after MPI init is unsafe)."""
    import ember
    from ember.utils.data import DataLoader, DistributedSampler
    loader = DataLoader(Squares(), batch_size=2, num_workers=1, sampler=DistributedSampler(Squares(), shuffle=False))
    batches = [b.tolist() for b in loader]
    from ember.utils.data.dataloader import _default_context
    method = _default_context().get_start_method()
    assert method == "forkserver", method
    assert batches == [[0, 4], [16]] if rank == 0 else [[1, 9], [25]], batches
    t = ember.tensor([float(sum(sum(b) for b in batches))])
    dist.all_reduce(t)
    assert t.item() == 55.0
    return [f"dataloader workers ({method})"]


def _faults(port):
    """A child raising -> ProcessRaisedException; a child SIGKILLed -> ProcessExitedException; prints pids."""
    for mode, expected in (("raise", mp.ProcessRaisedException), ("sigkill", mp.ProcessExitedException)):
        ctx = mp.spawn(fn, args=(2, port, mode), nprocs=2, join=False)
        try:
            while not ctx.join():
                pass
            print(f"{mode}: no exception", flush=True)
        except expected as e:
            extra = f" exit_code={e.exit_code} signal_name={e.signal_name}" if mode == "sigkill" else ""
            print(f"{mode}: {type(e).__name__} index={e.error_index}{extra}: {e}", flush=True)
        print(f"{mode} pids: {' '.join(map(str, ctx.pids()))}", flush=True)
        port += 1


if __name__ == "__main__":
    port, mode = int(sys.argv[1]), sys.argv[2]
    if mode == "faults":
        _faults(port)
    else:
        ctx = mp.spawn(fn, args=(2, port, "checks"), nprocs=2, join=False)
        assert isinstance(ctx, mp.ProcessContext) and len(ctx.pids()) == 2
        while not ctx.join(timeout=0.5):
            pass
        print("parent joined", flush=True)
