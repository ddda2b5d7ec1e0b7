"""SyncBatchNorm checks run inside the 2-rank world of ``_main_ddp.py`` (the oracle is torch's BatchNorm
on the concatenated batch of both ranks, computed on every rank from the same seed)."""
import numpy as np
import torch

import ember
from ember import nn
from ember.nn.parallel import DistributedDataParallel as DDP


def _close(name, got, want, tol=1e-5):
    got = got.detach().numpy() if hasattr(got, "detach") else np.asarray(got)
    want = want.detach().numpy()
    assert np.allclose(got, want, rtol=tol, atol=tol), f"{name}: max diff {np.abs(got - want).max()}"


def run(rank, world, ok):
    g = np.random.default_rng(5)
    sizes = [3, 5]  # uneven local batches: statistics still of the concatenated batch
    full = (g.standard_normal((sum(sizes), 4, 3, 3)) * 2 + 1).astype(np.float32)
    upstream = g.standard_normal(full.shape).astype(np.float32)
    lo = sum(sizes[:rank])
    part = slice(lo, lo + sizes[rank])

    ref = torch.nn.BatchNorm2d(4, momentum=0.3)
    with torch.no_grad():
        ref.weight.copy_(torch.linspace(0.5, 2, 4))
        ref.bias.copy_(torch.linspace(-1, 1, 4))
    xt = torch.from_numpy(full).requires_grad_()
    (ref(xt) * torch.from_numpy(upstream)).sum().backward()

    model = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm2d(4, momentum=0.3)))
    bn = model[0]
    assert type(bn) is nn.SyncBatchNorm
    with ember.no_grad():
        bn.weight.copy_(ember.linspace(0.5, 2, 4))
        bn.bias.copy_(ember.linspace(-1, 1, 4))
    x = ember.from_numpy(full[part].copy()).requires_grad_()
    out = model(x)
    _close("output", out, _ref_out(ref, full)[part])
    (out * ember.from_numpy(upstream[part].copy())).sum().backward()
    _close("running_mean", bn.running_mean, ref.running_mean)
    _close("running_var", bn.running_var, ref.running_var)
    assert int(bn.num_batches_tracked) == 1
    _close("input grad", x.grad, xt.grad[part])
    w, b = bn.weight.grad.clone(), bn.bias.grad.clone()
    ember.distributed.all_reduce(w)
    ember.distributed.all_reduce(b)
    _close("weight grad (summed over ranks)", w, ref.weight.grad, 1e-4)
    _close("bias grad (summed over ranks)", b, ref.bias.grad, 1e-4)

    # inside DDP: gradients averaged, so they equal the full batch's under a loss averaged over ranks
    ember.manual_seed(0)
    net = DDP(nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.Conv2d(4, 2, 1), nn.BatchNorm2d(2))))
    net(ember.from_numpy(full[part].copy())).pow(2).sum().backward()
    twin = torch.nn.Sequential(torch.nn.Conv2d(4, 2, 1), torch.nn.BatchNorm2d(2))
    twin.load_state_dict({k[len("module."):]: torch.from_numpy(v.numpy().copy()) for k, v in net.state_dict().items()})
    (twin(torch.from_numpy(full)).pow(2).sum() / world).backward()  # DDP averages the ranks' sums
    for (name, p), q in zip(net.module.named_parameters(), twin.parameters()):
        _close(f"DDP+SyncBatchNorm grad {name}", p.grad, q.grad, 1e-4)
    bn.eval()
    _close("eval uses running stats", bn(ember.from_numpy(full[:2].copy())), _eval_ref(ref, full[:2]))
    ok("SyncBatchNorm statistics, running stats and gradients equal BatchNorm on the concatenated batch")


def _ref_out(ref, full):
    ref.eval()  # recompute the training output of the first call from the batch statistics
    x = torch.from_numpy(full)
    mean = x.mean((0, 2, 3), keepdim=True)
    var = x.var((0, 2, 3), unbiased=False, keepdim=True)
    ref.train()
    return ((x - mean) / torch.sqrt(var + ref.eps) * ref.weight.detach().view(1, -1, 1, 1)
            + ref.bias.detach().view(1, -1, 1, 1))


def _eval_ref(ref, x):
    ref.eval()
    return ref(torch.from_numpy(x)).detach()
