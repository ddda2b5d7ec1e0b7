"""``Tensor.copy_`` outside autograd writes straight into the destination (the copy primitive's
in-place writer): broadcasting, overlap, views, errors and version bumps as torch."""
import numpy as np
import pytest
import torch

import ember


def _both(fn):
    res = []
    for lib in (ember, torch):
        a = lib.arange(12.0).reshape(3, 4)
        res.append(fn(lib, a))
    return res


@pytest.mark.parametrize("case", [
    lambda lib, a: a.copy_(lib.tensor([1.0, 2.0, 3.0, 4.0])),               # broadcast
    lambda lib, a: a[:, 1:3].copy_(lib.ones(3, 2) * 7),                      # strided view
    lambda lib, a: a[:, :2].copy_(a[:, 2:]),                                 # same storage
    lambda lib, a: a.copy_(lib.ones(3, 4, dtype=lib.float64) / 3),           # cast: ordinary path
])
def test_copy_matches_torch(case):
    e, t = _both(lambda lib, a: (case(lib, a), a)[1].numpy().copy())
    np.testing.assert_array_equal(e, t)


def test_copy_bumps_version_and_raises_torch_errors():
    a = ember.zeros(3, 4)
    v = a._version
    a.copy_(ember.ones(4))
    assert a._version == v + 1 and a.sum().item() == 12
    with pytest.raises(RuntimeError, match="must match the existing size"):
        a.copy_(ember.ones(5))
    with pytest.raises(RuntimeError, match="more than one element"):
        ember.zeros(4).expand(3, 4).copy_(ember.ones(3, 4))
