"""Parameter and Buffer: construction, repr, ops return plain tensors, copy and pickle."""
import copy
import pickle

import pytest
import torch

import ember
from ember import nn


def test_parameter_basics_and_repr():
    p = nn.Parameter(ember.tensor([1.0, 2.0]))
    tp = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    assert repr(p) == repr(tp)
    assert p.requires_grad and p.is_leaf and isinstance(p, ember.Tensor)
    assert type(p * 2) is ember.Tensor and type(p.data) is ember.Tensor
    assert repr(nn.Parameter(ember.ones(1), requires_grad=False)) == \
        repr(torch.nn.Parameter(torch.ones(1), requires_grad=False))
    assert nn.Parameter().shape == (0,)
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        nn.Parameter(ember.tensor([1, 2]))


def test_parameter_shares_memory_and_copies():
    t = ember.zeros(3)
    p = nn.Parameter(t)
    assert p.data_ptr() == t.data_ptr()
    p.attr = "tag"
    for c in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(c) is nn.Parameter and c.requires_grad and c.attr == "tag"
        assert c.data_ptr() != p.data_ptr() and c.tolist() == p.tolist()


def test_buffer():
    b = nn.Buffer(ember.ones(2), persistent=False)
    assert isinstance(b, nn.Buffer) and not isinstance(ember.ones(2), nn.Buffer)
    assert type(b) is ember.Tensor and b.persistent is False
