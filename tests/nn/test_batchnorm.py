"""BatchNorm/InstanceNorm/GroupNorm/LocalResponseNorm modules against torch with copied state."""
import numpy as np
import pytest
import torch

import ember
from ember import nn

from ._helpers import to_ember
from ._modcheck import check_module

BN_CASES = [
    ("BatchNorm1d", (4,), {}, (6, 4)),
    ("BatchNorm1d", (4,), dict(momentum=None), (6, 4, 5)),
    ("BatchNorm2d", (3,), dict(eps=1e-3, momentum=0.3), (4, 3, 5, 5)),
    ("BatchNorm2d", (3,), dict(affine=False), (4, 3, 2, 3)),
    ("BatchNorm2d", (3,), dict(track_running_stats=False), (4, 3, 2, 3)),
    ("BatchNorm3d", (2,), dict(momentum=None, affine=False), (2, 2, 3, 2, 2)),
    ("InstanceNorm1d", (4,), {}, (3, 4, 6)),
    ("InstanceNorm1d", (4,), dict(affine=True), (4, 6)),
    ("InstanceNorm2d", (3,), dict(affine=True, track_running_stats=True), (2, 3, 4, 4)),
    ("InstanceNorm3d", (2,), dict(track_running_stats=True, momentum=0.5), (2, 2, 3, 3, 2)),
    ("GroupNorm", (2, 6), {}, (3, 6, 4)),
    ("GroupNorm", (3, 6), dict(affine=False, eps=1e-3), (2, 6, 2, 2)),
    ("GroupNorm", (3, 6), dict(bias=False), (2, 6, 2, 2)),
    ("BatchNorm2d", (3,), dict(bias=False), (4, 3, 2, 3)),
    ("LocalResponseNorm", (3,), dict(alpha=0.1, beta=0.5, k=2.0), (2, 5, 3, 3)),
    ("LocalResponseNorm", (2,), {}, (2, 4, 6)),
]


@pytest.mark.parametrize("cls,args,kw,shape", BN_CASES)
def test_norm_module_matches_torch(cls, args, kw, shape):
    torch.manual_seed(0)
    tm, em = getattr(torch.nn, cls)(*args, **kw), getattr(nn, cls)(*args, **kw)
    if getattr(tm, "weight", None) is not None:  # non-trivial affine parameters
        with torch.no_grad():
            tm.weight.uniform_(0.5, 1.5)
            if tm.bias is not None:
                tm.bias.uniform_(-0.5, 0.5)
    x = torch.randn(shape, requires_grad=True)
    check_module(tm, em, [x], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("momentum", [0.1, None])
def test_running_stats_over_several_steps(momentum):
    torch.manual_seed(1)
    tm, em = torch.nn.BatchNorm2d(3, momentum=momentum), nn.BatchNorm2d(3, momentum=momentum)
    for _ in range(4):
        x = torch.randn(5, 3, 2, 2) * 3 + 1
        tm(x)
        em(to_ember(x))
    for name in ("running_mean", "running_var"):
        np.testing.assert_allclose(getattr(em, name).numpy(), getattr(tm, name).numpy(), rtol=1e-5,
                                   atol=1e-6)
    assert int(em.num_batches_tracked) == 4 and em.num_batches_tracked.dtype is ember.int64
    x = torch.randn(5, 3, 2, 2)
    np.testing.assert_allclose(em.eval()(to_ember(x)).detach().numpy(), tm.eval()(x).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_reprs_and_state_dict_layout():
    for t, e in [(torch.nn.BatchNorm1d(5, affine=False, track_running_stats=False),
                  nn.BatchNorm1d(5, affine=False, track_running_stats=False)),
                 (torch.nn.InstanceNorm2d(3), nn.InstanceNorm2d(3)),
                 (torch.nn.GroupNorm(1, 4), nn.GroupNorm(1, 4)),
                 (torch.nn.LocalResponseNorm(2), nn.LocalResponseNorm(2))]:
        assert repr(e) == repr(t)
        assert list(e.state_dict()) == list(t.state_dict())


def test_defaults_and_errors():
    bn = nn.BatchNorm1d(3)
    assert bn.weight.tolist() == [1.0] * 3 and bn.bias.tolist() == [0.0] * 3
    assert bn.running_var.tolist() == [1.0] * 3
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        bn(ember.zeros(2, 3, 4, 4))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        bn(ember.zeros(1, 3))
    with pytest.raises(ValueError, match=r"num_channels \(6\) must be divisible by num_groups \(4\)"):
        nn.GroupNorm(4, 6)
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.BatchNorm2d(3)(ember.zeros(2, 3, 4))
    import numpy as np
    import torch
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    mine, theirs = nn.SyncBatchNorm(3), torch.nn.SyncBatchNorm(3)  # no process group: plain batch norm, as torch
    np.testing.assert_allclose(mine(ember.from_numpy(x)).detach().numpy(), theirs(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mine.running_var.numpy(), theirs.running_var.numpy(), rtol=1e-6)
    sync = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm2d(3))).eval()
    assert type(sync[0]).__name__ == "SyncBatchNorm"
    assert sync(ember.ones(2, 3, 2, 2)).shape == (2, 3, 2, 2)


def test_old_checkpoint_without_num_batches_tracked_loads():
    bn = nn.BatchNorm1d(2)
    sd = bn.state_dict()
    del sd["num_batches_tracked"]
    sd._metadata = {"": {"version": 1}}
    bn.load_state_dict(sd)
    assert int(bn.num_batches_tracked) == 0
