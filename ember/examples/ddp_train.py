"""Data-parallel training on 2 ranks: a small CNN on the bundled 8x8 digits with DistributedDataParallel.

Run ``python -m ember.examples.ddp_train [--nproc N] [--epochs E]``: without torchrun's environment it
starts itself under ``python -m ember.distributed.run --standalone --nproc-per-node N``. Each rank joins
the "gloo" process group (MPI underneath), reads its shard of the training set through a
``DistributedSampler`` (reshuffled each epoch with ``set_epoch``), trains the CNN (Conv2d, SyncBatchNorm,
ReLU, MaxPool2d, Linear) wrapped in ``DistributedDataParallel`` with Adam, and prints its throughput
(samples/s); then every rank scores its shard of the test set and the counts are all-reduced, so all
ranks print the same final test accuracy. With ``import torch`` in place of ``import ember as torch``
the training part is plain PyTorch.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from importlib import resources

import numpy as np

import ember as torch
import ember.distributed as dist
import ember.nn as nn
from ember.nn.parallel import DistributedDataParallel as DDP
from ember.utils.data import DataLoader, DistributedSampler, TensorDataset


def load_digits():
    """(images float32 (N, 1, 8, 8) scaled to [0, 1], labels int64 (N,)), a fixed 80/20 split."""
    with resources.files("ember.examples").joinpath("data/digits.npz").open("rb") as f:
        data = np.load(f)
        images, labels = data["images"].astype(np.float32) / 16.0, data["target"].astype(np.int64)
    order = np.random.default_rng(0).permutation(len(labels))
    images, labels = images[order][:, None], labels[order]
    cut = int(0.8 * len(labels))
    return (torch.from_numpy(images[:cut]), torch.from_numpy(labels[:cut]),
            torch.from_numpy(images[cut:]), torch.from_numpy(labels[cut:]))


def cnn() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),   # 16x4x4
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),  # 32x2x2
        nn.Flatten(), nn.Linear(128, 10))


def train(epochs: int, batch_size: int) -> None:
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(rank)  # different initial weights per rank: DDP starts every rank from rank 0's
    x_train, y_train, x_test, y_test = load_digits()
    train_set = TensorDataset(x_train, y_train)
    sampler = DistributedSampler(train_set, shuffle=True, seed=0)
    loader = DataLoader(train_set, batch_size=batch_size, sampler=sampler)
    model = DDP(nn.SyncBatchNorm.convert_sync_batchnorm(cnn()))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    seen, start = 0, time.perf_counter()
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        model.train()
        total = 0.0
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(yb)
            seen += len(yb)
        print(f"rank {rank} epoch {epoch + 1}/{epochs} train loss {total / len(sampler):.4f}", flush=True)
    elapsed = time.perf_counter() - start
    print(f"rank {rank} throughput {seen / elapsed:.0f} samples/s ({seen} samples in {elapsed:.1f}s)", flush=True)
    model.eval()
    with torch.no_grad():
        mine = slice(rank, None, world)  # every rank scores a disjoint share of the test set
        correct = (model(x_test[mine]).argmax(1) == y_test[mine]).sum().reshape(1).to(torch.float64)
        counts = torch.tensor([float(len(y_test[mine]))], dtype=torch.float64)
        both = torch.cat([correct, counts])
        dist.all_reduce(both)
    print(f"rank {rank} final test accuracy {both[0].item() / both[1].item():.4f} "
          f"({int(both[0].item())}/{int(both[1].item())})", flush=True)
    dist.destroy_process_group()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args(argv)
    if "RANK" not in os.environ and "PMI_RANK" not in os.environ:  # not launched yet: become the launcher
        cmd = [sys.executable, "-m", "ember.distributed.run", "--standalone", "--nproc-per-node", str(args.nproc),
               "-m", "ember.examples.ddp_train", "--epochs", str(args.epochs), "--batch-size", str(args.batch_size)]
        return subprocess.call(cmd)
    train(args.epochs, args.batch_size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
