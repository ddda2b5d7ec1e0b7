"""A rank started by ``python -m ember.distributed.run``: torchrun's environment, env:// init, every check."""
import os
import sys
import time

from tests.distributed import _checks

import ember
import ember.distributed as dist


def main():
    start = time.monotonic()
    backend = sys.argv[1] if len(sys.argv) > 1 else "gloo"
    backend = None if backend == "none" else backend
    env = {k: os.environ.get(k) for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
                                          "MASTER_PORT", "TORCHELASTIC_RUN_ID")}
    assert all(v is not None for v in env.values()), env
    node, local = int(os.environ["GROUP_RANK"]), int(os.environ["LOCAL_RANK"])
    assert dist.is_torchelastic_launched() and int(env["RANK"]) == node * int(env["LOCAL_WORLD_SIZE"]) + local
    dist.init_process_group(backend)
    assert dist.get_rank() == int(env["RANK"]) and dist.get_world_size() == int(env["WORLD_SIZE"])
    assert dist.get_backend() == (backend or "undefined")
    if "--quick" in sys.argv:  # one all_reduce is enough to prove the world is whole
        t = ember.ones(3) * (dist.get_rank() + 1)
        dist.all_reduce(t)
        n = dist.get_world_size()
        assert t.tolist() == [n * (n + 1) / 2] * 3, t
        done = ["quick all_reduce"]
    else:
        done = _checks.run_all()
    dist.destroy_process_group()
    print(f"rank {env['RANK']} OK {len(done)} checks in {time.monotonic() - start:.1f}s", flush=True)


if __name__ == "__main__":
    main()
