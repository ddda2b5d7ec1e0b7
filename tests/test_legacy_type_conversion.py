"""``x.type(torch.LongTensor)``: a legacy type class as the argument converts, as in torch (issue 17)."""
import numpy as np
import pytest
import torch

import ember

NAMES = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
         "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


@pytest.mark.parametrize("name", NAMES)
def test_type_with_legacy_class(name):
    t = torch.tensor([1.5, 0.0, -2.0]).type(getattr(torch, name))
    e = ember.tensor([1.5, 0.0, -2.0]).type(getattr(ember, name))
    assert str(e.dtype) == str(t.dtype) and e.type() == t.type()
    np.testing.assert_array_equal(e.float().numpy(), t.float().numpy())
    assert isinstance(e, getattr(ember, name))


def test_same_type_returns_self():
    x = ember.ones(2)
    assert x.type(ember.FloatTensor) is x
