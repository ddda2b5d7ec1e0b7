"""DataParallel on a CPU-only machine: compared with torch's (a pass-through wrapper)."""
import numpy as np
import pytest
import torch

import ember
from ember import nn


def test_data_parallel_matches_torch_on_cpu():
    ember.manual_seed(0)
    mine = nn.DataParallel(nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)), device_ids=[0, 1], dim=0)
    theirs = torch.nn.DataParallel(torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(),
                                                       torch.nn.Linear(4, 2)), device_ids=[0, 1], dim=0)
    theirs.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in mine.state_dict().items()})
    assert list(mine.state_dict()) == list(theirs.state_dict()) == ["module.0.weight", "module.0.bias",
                                                                    "module.2.weight", "module.2.bias"]
    assert mine.device_ids == theirs.device_ids == []
    assert hasattr(mine, "output_device") == hasattr(theirs, "output_device")
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    out, ref = mine(ember.from_numpy(x)), theirs(torch.from_numpy(x))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6, atol=1e-6)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(mine.module[0].weight.grad.numpy(), theirs.module[0].weight.grad.numpy(), rtol=1e-6)
    assert repr(mine) == repr(theirs)
    with pytest.raises(RuntimeError, match="device type could not be determined"):
        nn.parallel.data_parallel(mine.module, ember.ones(1, 3))
    with pytest.raises(RuntimeError, match="device type could not be determined"):
        torch.nn.parallel.data_parallel(theirs.module, torch.ones(1, 3))
