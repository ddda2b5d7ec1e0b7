"""DistributedDataParallel (and SyncBatchNorm) in one 2-rank ``mpiexec`` world: see ``_main_ddp.py``.

Checked against a single process trained on the full batch (computed on every rank from the same
seed) and, for SyncBatchNorm, against torch's BatchNorm on the concatenated batch.
"""
import sys

import pytest

import ember
from ember import nn
from tests.distributed._launch import BIN, run

HERE_SCRIPT = __import__("pathlib").Path(__file__).resolve().parent / "_main_ddp.py"

CHECKS = ["training torch.float32", "training torch.float64", "buffers broadcast", "no_sync", "unused parameter",
          "gradient_as_bucket_view", "comm hooks", "join() with uneven inputs", "compiled module inside DDP", "checkpoint", "DistributedSampler", "SyncBatchNorm", "all"]


def test_ddp_and_sync_batchnorm_in_one_2_rank_world(tmp_path):
    out = run([BIN / "mpiexec", "-n", 2, sys.executable, HERE_SCRIPT, tmp_path], timeout=90)
    assert out.returncode == 0, out.stdout + out.stderr
    for rank in (0, 1):  # lines of the two ranks may interleave
        for check in CHECKS:
            assert f"rank {rank} OK {check}" in out.stdout, (rank, check, out.stdout + out.stderr)


def test_ddp_needs_a_process_group_and_parameters():
    from ember.nn.parallel import DistributedDataParallel
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedDataParallel(nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="doesn't have any parameter that requires a gradient"):
        DistributedDataParallel(nn.ReLU())


def test_bucket_assignment_reverse_order_small_first_bucket():
    from ember.nn.parallel._reducer import assign_buckets
    params = [ember.zeros(100), ember.zeros(100, dtype=ember.float64), ember.zeros(300), ember.zeros(50)]
    # float32: 50 (200 B), 300 (1200 B) close the first bucket at >= 1000 B; float64 alone
    assert assign_buckets(params, [1000, 4000]) == [[3, 2], [1], [0]]
    assert assign_buckets(params, [10 ** 9]) == [[3, 2, 0], [1]]


def test_gradient_copy_handles_transposed_gradients():
    from ember.nn.parallel._reducer import _copy
    src = ember.randn(300, 260).t()  # a transposed (column-major) 260x300 gradient, tiled copy path
    dst = ember.zeros(260 * 300)[0:260 * 300].view(260, 300)
    _copy(dst, src)
    assert ember.equal(dst, src)
    small = ember.randn(3, 4)
    _copy(dst[:3, :4], small)
    assert ember.equal(dst[:3, :4], small)
