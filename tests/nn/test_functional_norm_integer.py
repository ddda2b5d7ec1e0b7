"""local_response_norm on integer input against torch: the mean of squares is an integer average."""
import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F


@pytest.mark.parametrize("shape,size", [((2, 7, 3), 2), ((2, 7, 3, 4), 4), ((1, 5, 2, 3, 4), 3)])
def test_local_response_norm_int64(shape, size):
    x = torch.randint(-30, 30, shape, generator=torch.Generator().manual_seed(0))
    expected = torch.nn.functional.local_response_norm(x, size, alpha=0.01, beta=0.6, k=1.5)
    got = F.local_response_norm(ember.from_numpy(x.numpy()), size, alpha=0.01, beta=0.6, k=1.5)
    assert got.dtype is ember.float32
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1.3e-6, atol=1e-5)
