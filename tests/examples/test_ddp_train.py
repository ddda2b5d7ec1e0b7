"""``python -m ember.examples.ddp_train`` launches itself on 2 ranks, trains with DDP and learns the digits."""
import re
import sys

from tests.distributed._launch import run


def test_ddp_train_example_runs_on_2_ranks_and_learns(tmp_path):
    out = run([sys.executable, "-m", "ember.examples.ddp_train", "--epochs", "3"], timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    accuracy = {int(r): float(a) for r, a in re.findall(r"rank (\d) final test accuracy ([0-9.]+)", out.stdout)}
    assert set(accuracy) == {0, 1} and accuracy[0] == accuracy[1] >= 0.9, out.stdout
    assert len(re.findall(r"rank \d throughput \d+ samples/s", out.stdout)) == 2, out.stdout
