"""A rank of `mpiexec -n 2 python _main_ddp.py TMPDIR`: every DDP and SyncBatchNorm check in one world.

Each rank derives the whole batch from a seed, so it can train the single-process reference itself.
Prints "rank R OK <check>" per check; any mismatch raises (non-zero exit).
"""
import copy
import os
import sys
import warnings

import numpy as np

import ember
import ember.distributed as dist
from ember import nn
from ember.distributed.algorithms.ddp_comm_hooks import default_hooks
from ember.nn.parallel import DistributedDataParallel as DDP

RANK = WORLD = 0


def ok(name):
    print(f"rank {RANK} OK {name}", flush=True)


def batch(n=8, seed=0, dtype=ember.float32):
    g = np.random.default_rng(seed)
    x = ember.from_numpy(g.standard_normal((n, 6))).to(dtype)
    y = ember.from_numpy(g.standard_normal((n, 2))).to(dtype)
    return x, y


def shard(t):
    k = t.shape[0] // WORLD
    return t[RANK * k:(RANK + 1) * k]


def mlp(dtype=ember.float32):
    ember.manual_seed(100 + RANK)  # different weights per rank: DDP must take rank 0's
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 2)).to(dtype)


def max_diff(a, b):
    return max(float((p - q).abs().max()) for p, q in zip(a.parameters(), b.parameters()))


def gather_flat(model):
    flat = ember.cat([p.detach().reshape(-1) for p in model.parameters()])
    out = [ember.zeros_like(flat) for _ in range(WORLD)]
    dist.all_gather(out, flat)
    return out


def check_training_equals_single_process(dtype, tol):
    model = mlp(dtype)
    ddp = DDP(model, bucket_cap_mb=0.0005)  # ~500 bytes: several buckets
    assert len(ddp._get_ddp_bucket_indices()) > 1
    ref = copy.deepcopy(model)  # rank 0's weights after the broadcast
    a, b = gather_flat(model)
    assert ember.equal(a, b), "parameters differ across ranks after construction"
    x, y = batch(dtype=dtype)
    for opt_cls, kw in ((ember.optim.SGD, dict(lr=0.1, momentum=0.9)), (ember.optim.Adam, dict(lr=0.01))):
        opt, ref_opt = opt_cls(ddp.parameters(), **kw), opt_cls(ref.parameters(), **kw)
        for step in range(5):
            xs, ys = batch(seed=step + 1, dtype=dtype)
            opt.zero_grad()
            nn.functional.mse_loss(ddp(shard(xs)), shard(ys)).backward()
            opt.step()
            ref_opt.zero_grad()
            nn.functional.mse_loss(ref(xs), ys).backward()
            ref_opt.step()
        d = max_diff(model, ref)
        assert d <= tol, f"{dtype} {opt_cls.__name__}: DDP differs from single process by {d}"
    assert sorted(ddp.state_dict()) == sorted("module." + k for k in model.state_dict())
    assert ddp.module is model
    ok(f"training {dtype} SGD+Adam equals single process (max diff {d:.1e})")
    return ddp


def check_buffers_and_shapes():
    model = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
    ddp = DDP(model)
    model[1].running_mean.fill_(float(RANK + 5))  # diverged buffers: the next forward takes rank 0's
    with ember.no_grad():
        ddp.eval()(ember.ones(2, 3))
    assert model[1].running_mean.tolist() == [5.0] * 3
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        quiet = DDP(nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)), broadcast_buffers=False)
    assert any(issubclass(w.category, FutureWarning) for w in caught)
    quiet.module[1].running_mean.fill_(float(RANK))
    with ember.no_grad():
        quiet.eval()(ember.ones(2, 3))
    assert quiet.module[1].running_mean.tolist() == [float(RANK)] * 3
    try:
        DDP(nn.Linear(3, 3 + RANK))
    except RuntimeError as e:
        assert "[1]: params[0] in this process with sizes [4, 3] appears not to match" in str(e), e
    else:
        raise AssertionError("a shape mismatch went unnoticed")
    try:
        DDP(nn.Sequential(*[nn.Linear(2, 2) for _ in range(RANK + 1)]))
    except RuntimeError as e:
        assert "DDP expects same model across all ranks" in str(e), e
    else:
        raise AssertionError("a parameter count mismatch went unnoticed")
    ok("buffers broadcast before forward; shape and count verification")


def micro_loss(model, x, y):
    return nn.functional.mse_loss(model(x), y, reduction="sum")


def check_no_sync():
    x, y = batch(16, seed=7)
    x, y = shard(x), shard(y)
    big = DDP(mlp())
    acc = DDP(copy.deepcopy(big.module))
    micro_loss(big, x, y).backward()
    with acc.no_sync():
        micro_loss(acc, x[:4], y[:4]).backward()
    grads_local = [p.grad.clone() for p in acc.parameters()]
    micro_loss(acc, x[4:], y[4:]).backward()
    for p, q, local in zip(big.parameters(), acc.parameters(), grads_local):
        assert float((p.grad - q.grad).abs().max()) < 1e-5
    a, b = [ember.zeros_like(grads_local[0]) for _ in range(2)]
    dist.all_gather([a, b], grads_local[0])
    assert not ember.equal(a, b), "no_sync() still synchronised"
    ok("no_sync over 2 micro-batches equals one large step")


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        ember.manual_seed(3)
        self.used, self.unused = nn.Linear(4, 2), nn.Linear(4, 2)

    def forward(self, x):
        return self.used(x)


def check_unused_parameters():
    x = ember.ones(2, 4) * (RANK + 1)
    ddp = DDP(TwoHeads())
    ddp(x).sum().backward()
    try:
        ddp(x)
    except RuntimeError as e:
        msg = str(e)
        assert "Expected to have finished reduction in the prior iteration" in msg, msg
        assert "find_unused_parameters=True" in msg and f"for rank {RANK}: 2 3" in msg, msg
    else:
        raise AssertionError("no error for an unused parameter")
    fixed = DDP(TwoHeads(), find_unused_parameters=True)
    for _ in range(2):
        fixed.zero_grad()
        fixed(x).sum().backward()
    m = fixed.module
    assert m.unused.weight.grad is None and m.unused.bias.grad is None
    assert m.used.bias.grad.tolist() == [2.0, 2.0]  # (1 + 1) summed over rows, averaged over ranks... per rank 2
    assert m.used.weight.grad.tolist() == [[3.0] * 4] * 2  # rows: 2*(1) on rank 0, 2*(2) on rank 1 -> mean 3
    static = DDP(TwoHeads(), static_graph=True)
    for _ in range(2):
        static(x).sum().backward()
    assert static.module.unused.weight.grad is None and static.module.used.bias.grad is not None
    with ember.no_grad():
        static(x)  # a forward without grad does not arm the reducer: no error at the next one
    static(x)

    class RankDependent(TwoHeads):  # the second head is used on rank 1 only: locally unused on rank 0
        def forward(self, x):
            return self.used(x) + (self.unused(x) if RANK == 1 else 0)

    some = DDP(RankDependent(), find_unused_parameters=True)
    some(x).sum().backward()
    assert some.module.unused.bias.grad.tolist() == [1.0, 1.0]  # rank 1: 2 rows -> 2, averaged over 2 ranks
    ok("unused parameter error and find_unused_parameters=True")


def check_bucket_view_and_hooks(plain):
    x, y = batch(8, seed=11)
    ref = DDP(copy.deepcopy(plain.module))
    view = DDP(copy.deepcopy(plain.module), gradient_as_bucket_view=True, bucket_cap_mb=0.0005)
    opt = ember.optim.SGD(view.parameters(), lr=0.1, momentum=0.9)
    ref_opt = ember.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    grads = None
    for _ in range(3):
        for m, o in ((view, opt), (ref, ref_opt)):
            o.zero_grad(set_to_none=False)
            nn.functional.mse_loss(m(shard(x)), shard(y)).backward()
            o.step()
        now = [p.grad for p in view.parameters()]
        assert grads is None or all(a is b for a, b in zip(grads, now)), ".grad was re-pointed"
        grads = now
    assert max_diff(view, ref) == 0.0
    bufs = [b.buffer for b in view.reducer.buckets]
    for p in view.parameters():
        assert any(0 <= p.grad.data_ptr() - b.data_ptr() < b.numel() * 4 for b in bufs), "grad is not a bucket view"
    ok("gradient_as_bucket_view: grads are bucket views, used in place, same result")

    calls = []

    def counting(state, bucket):
        calls.append(bucket.index())
        return default_hooks.allreduce_hook(state, bucket)

    for hook, tol in ((counting, 0.0), (default_hooks.fp16_compress_hook, 2e-3),
                      (default_hooks.bf16_compress_hook, 2e-2)):
        hooked, base = DDP(copy.deepcopy(plain.module)), DDP(copy.deepcopy(plain.module))
        hooked.register_comm_hook(None, hook)
        for m in (hooked, base):
            nn.functional.mse_loss(m(shard(x)), shard(y)).backward()
        for p, q in zip(hooked.parameters(), base.parameters()):
            err = float((p.grad - q.grad).abs().max())
            assert err <= tol * max(1.0, float(q.grad.abs().max())), (hook.__name__, err)
    assert calls == list(range(len(calls))) and calls
    try:
        hooked.register_comm_hook(None, default_hooks.allreduce_hook)
    except RuntimeError as e:
        assert "can only be called once" in str(e)
    else:
        raise AssertionError("second register_comm_hook accepted")
    ok("comm hooks: allreduce_hook, fp16_compress_hook, bf16_compress_hook")


def check_join_uneven_inputs():
    model = mlp()
    ddp = DDP(model, bucket_cap_mb=0.0005)
    ref = copy.deepcopy(model)
    steps = [3, 5]  # rank 0 runs out of data first
    opt, ref_opt = ember.optim.SGD(ddp.parameters(), lr=0.1), ember.optim.SGD(ref.parameters(), lr=0.1)
    with ddp.join():
        for k in range(steps[RANK]):
            x, y = batch(seed=20 + k)
            opt.zero_grad()
            nn.functional.mse_loss(ddp(shard(x)), shard(y)).backward()
            opt.step()
    for k in range(max(steps)):  # reference: every active rank's loss, averaged over the initial world
        x, y = batch(seed=20 + k)
        ref_opt.zero_grad()
        half = x.shape[0] // WORLD
        loss = sum(nn.functional.mse_loss(ref(x[r * half:(r + 1) * half]), y[r * half:(r + 1) * half])
                   for r in range(WORLD) if k < steps[r]) / WORLD
        loss.backward()
        ref_opt.step()
    d = max_diff(model, ref)
    assert d < 1e-6, f"join: differs from the reference by {d}"
    ok("join() with uneven inputs")


def check_compiled_module_inside_ddp():
    model = mlp()
    ddp, ref = DDP(ember.compile(model)), copy.deepcopy(model)
    x, y = batch(seed=30)
    nn.functional.mse_loss(ddp(shard(x)), shard(y)).backward()
    nn.functional.mse_loss(ref(x), y).backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        assert float((p.grad - q.grad).abs().max()) < 1e-6
    ok("compiled module inside DDP")


def check_checkpoint(ddp, tmp):
    path = os.path.join(tmp, "ckpt.pt")
    if RANK == 0:
        ember.save(ddp.state_dict(), path)
    dist.barrier()
    fresh = DDP(mlp(), init_sync=False)
    fresh.load_state_dict(ember.load(path, map_location="cpu"))
    assert max_diff(fresh, ddp) == 0.0
    ok("checkpoint saved on rank 0 loads on every rank")


def check_sampler():
    from ember.utils.data import DistributedSampler
    data = list(range(11))
    mine = DistributedSampler(data, shuffle=True, seed=1)
    assert mine.num_replicas == WORLD and mine.rank == RANK
    e0 = list(mine)
    mine.set_epoch(1)
    e1 = list(mine)
    everyone = [None] * WORLD
    dist.all_gather_object(everyone, (e0, e1))
    for epoch in (0, 1):
        shards = [s[epoch] for s in everyone]
        flat = sum(shards, [])
        assert set(flat) == set(data) and len(flat) == 12  # covering, one index padded
        assert len(set(shards[0]) & set(shards[1])) <= 1
    assert everyone[0][0] != everyone[0][1], "set_epoch did not reshuffle"
    ok("DistributedSampler shards disjoint and covering, reshuffled by set_epoch")


def main():
    global RANK, WORLD
    dist.init_process_group(backend="mpi")
    RANK, WORLD = dist.get_rank(), dist.get_world_size()
    ddp = check_training_equals_single_process(ember.float32, 1e-6)
    check_training_equals_single_process(ember.float64, 1e-12)
    check_buffers_and_shapes()
    check_no_sync()
    check_unused_parameters()
    check_bucket_view_and_hooks(ddp)
    check_join_uneven_inputs()
    check_compiled_module_inside_ddp()
    check_checkpoint(ddp, sys.argv[1])
    check_sampler()
    if len(sys.argv) < 3 or sys.argv[2] != "ddp-only":
        from tests.nn.parallel import _sync_bn_checks
        _sync_bn_checks.run(RANK, WORLD, ok)
    dist.destroy_process_group()
    ok("all")


if __name__ == "__main__":
    sys.exit(main())
