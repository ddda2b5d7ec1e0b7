"""A rank of `mpiexec -n N python _main_mpiexec.py`: backend "mpi" on COMM_WORLD, then every check."""
import sys
import time

from tests.distributed import _checks

import ember
import ember.distributed as dist


def main():
    start = time.monotonic()
    dist.init_process_group(backend="mpi")
    assert dist.is_initialized() and dist.get_backend() == "mpi"
    done = _checks.run_all()
    dist.destroy_process_group()
    assert not dist.is_initialized()
    dist.init_process_group()  # again, in the same processes: a fresh world
    t = ember.ones(2)
    dist.all_reduce(t)
    assert t.tolist() == [float(dist.get_world_size())] * 2 and dist.get_backend() == "undefined"
    dist.destroy_process_group()
    print(f"rank {_rank()} OK {len(done)} checks in {time.monotonic() - start:.1f}s", flush=True)


def _rank():
    import os
    return os.environ.get("PMI_RANK")


if __name__ == "__main__":
    sys.exit(main())
