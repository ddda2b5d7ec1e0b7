"""Containers against torch: indexing, slicing, mutation, naming and repr."""
from collections import OrderedDict

import pytest
import torch

import ember
from ember import nn


def _layers(lib):
    return [lib.nn.Linear(2, 3), lib.nn.ReLU(), lib.nn.Linear(3, 1), lib.nn.Tanh()]


def test_sequential_ops_match_torch():
    e, t = nn.Sequential(*_layers(ember)), torch.nn.Sequential(*_layers(torch))
    assert repr(e) == repr(t) and len(e) == 4
    assert repr(e[1:3]) == repr(t[1:3]) and isinstance(e[1:3], nn.Sequential)
    assert e[-1] is list(e)[-1]
    with pytest.raises(IndexError, match="index 4 is out of range"):
        e[4]
    e.insert(1, nn.Identity())
    t.insert(1, torch.nn.Identity())
    e.append(nn.Sigmoid())
    t.append(torch.nn.Sigmoid())
    e.extend([nn.ReLU()])
    t.extend([torch.nn.ReLU()])
    del e[0]
    del t[0]
    e[0] = nn.ReLU6()
    t[0] = torch.nn.ReLU6()
    assert repr(e) == repr(t)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert repr(e + e) == repr(t + t)
    assert repr(e * 2) == repr(t * 2)
    e += nn.Sequential(nn.ReLU())
    t += torch.nn.Sequential(torch.nn.ReLU())
    assert repr(e) == repr(t)
    assert repr(e.pop(1)) == repr(t.pop(1)) and repr(e) == repr(t)
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential"):
        e + 3


def test_sequential_ordered_dict_and_forward():
    seq = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert list(seq.state_dict()) == ["fc.weight", "fc.bias"]
    x = ember.ones(3, 2)
    assert seq(x).tolist() == seq.act(seq.fc(x)).tolist()


def test_module_list():
    e = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    t = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)])
    e.append(nn.ReLU()).extend([nn.Tanh(), nn.Tanh()])
    t.append(torch.nn.ReLU()).extend([torch.nn.Tanh(), torch.nn.Tanh()])
    e.insert(0, nn.Identity())
    t.insert(0, torch.nn.Identity())
    assert repr(e) == repr(t) and len(e) == 7
    assert repr(e[2:4]) == repr(t[2:4])
    del e[1:3]
    del t[1:3]
    assert repr(e) == repr(t)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert repr(e + nn.ModuleList([nn.ReLU()])) == repr(t + torch.nn.ModuleList([torch.nn.ReLU()]))
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable"):
        e.extend(3)
    assert repr(nn.ModuleList()) == repr(torch.nn.ModuleList())


def test_module_dict():
    e = nn.ModuleDict({"a": nn.Linear(1, 1), "b": nn.ReLU()})
    t = torch.nn.ModuleDict({"a": torch.nn.Linear(1, 1), "b": torch.nn.ReLU()})
    e.update([("c", nn.Tanh())])
    t.update([("c", torch.nn.Tanh())])
    assert repr(e) == repr(t) and list(e.keys()) == list(t.keys()) and "a" in e
    assert repr(e.pop("b")) == repr(t.pop("b")) and len(e) == 2
    e["d"] = nn.Identity()
    assert list(e) == ["a", "c", "d"]
    with pytest.raises(ValueError, match="has length 1; 2 is required"):
        e.update([("x",)])


def test_parameter_list_and_dict():
    e = nn.ParameterList([nn.Parameter(ember.zeros(2, 3)), ember.ones(1)])
    t = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(2, 3)), torch.ones(1)])
    assert isinstance(e[1], nn.Parameter)
    assert repr(e) == repr(t)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    e.append(ember.zeros(4, dtype=ember.float64))
    t.append(torch.zeros(4, dtype=torch.float64))
    assert repr(e) == repr(t) and len(e[1:]) == 2
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        e()
    d = nn.ParameterDict({"b": ember.zeros(1), "a": nn.Parameter(ember.ones(2))})
    td = torch.nn.ParameterDict({"b": torch.zeros(1), "a": torch.nn.Parameter(torch.ones(2))})
    assert repr(d) == repr(td) and list(d) == list(td)
    assert [n for n, _ in d.named_parameters()] == [n for n, _ in td.named_parameters()]
    d["c"] = ember.ones(3)
    assert isinstance(d["c"], nn.Parameter) and "c" in d and d.get("zz") is None
    assert list((d | nn.ParameterDict({"z": ember.ones(1)})).keys()) == ["a", "b", "c", "z"]  # plain dicts are sorted, as in torch
    assert d.pop("c").shape == (3,) and len(d) == 2
