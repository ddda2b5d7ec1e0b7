"""Every way ember makes a Tensor or a Node sets every slot (one constructor each, generated or not)."""
from __future__ import annotations

import numpy as np
import pytest

import ember
from ember._tensor_base import TensorBase, new_tensor
from ember.autograd.graph import AccumulateGrad, Node, PrimNode


def _unset_slots(obj, classes) -> list:
    missing = []
    for cls in classes:
        for name in cls.__slots__:
            if name in ("__weakref__", "__dict__"):
                continue
            try:
                getattr(obj, name)
            except AttributeError:
                missing.append(name)
    return missing


def _tensors():
    """A tensor from every construction path: wrap, meta, views, detach, subclasses, outputs."""
    x = ember.arange(6.0, requires_grad=True)
    m = ember.empty(2, 3, device="meta")
    y = x * 2
    yield "tensor()", ember.tensor([1.0, 2.0])
    yield "Tensor(2, 3)", ember.Tensor(2, 3)
    yield "from_numpy", ember.from_numpy(np.ones(3))
    yield "op output", x + 1
    yield "grad output", y
    yield "view output", x.view(2, 3)
    yield "multi-output", ember.ones(3, 4).max(1).values
    yield "meta output", m + 1
    yield "meta view", m.t()
    yield "detach", x.detach()
    yield "view detach", x.view(2, 3).detach()
    yield ".data", x.data
    yield "Parameter", ember.nn.Parameter(ember.ones(2))
    yield "new_tensor", new_tensor(ember.Tensor, np.ones(2), ember.float64)
    y.sum().backward()
    yield "leaf .grad", x.grad
    saved = (x.exp()).grad_fn.saved[0].unpack((x.exp()).grad_fn)
    yield "unpacked saved output", saved


@pytest.mark.parametrize("name,t", list(_tensors()), ids=[n for n, _ in _tensors()])
def test_every_tensor_constructor_sets_every_slot(name, t):
    assert isinstance(t, TensorBase)
    assert _unset_slots(t, [TensorBase]) == []


def _nodes():
    x = ember.ones(3, requires_grad=True)
    yield "PrimNode", (x * 2).grad_fn
    yield "multi-output PrimNode", ember.ones(3, 4, requires_grad=True).max(1).values.grad_fn
    b = x.clone()
    b[:2].mul_(2)
    yield "CopySlices", b.grad_fn
    yield "AccumulateGrad", (x * 2).grad_fn.next_functions[0][0]

    class Double(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    yield "Function", Double.apply(x).grad_fn


@pytest.mark.parametrize("name,node", list(_nodes()), ids=[n for n, _ in _nodes()])
def test_every_node_constructor_sets_every_slot(name, node):
    classes = [c for c in type(node).__mro__ if "__slots__" in vars(c)]
    assert Node in classes
    assert _unset_slots(node, classes) == []
    if isinstance(node, PrimNode):
        assert node.op is not None and node.saved is not None


def test_accumulate_grad_is_a_node():
    x = ember.ones(2, requires_grad=True)
    acc = (x * 1).grad_fn.next_functions[0][0]
    assert type(acc) is AccumulateGrad and acc.variable is x
