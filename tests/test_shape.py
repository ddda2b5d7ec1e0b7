"""Shape and stride arithmetic (``ember._shape``) against torch, with Hypothesis-generated shapes."""
import math

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ember
from ember import _shape as S

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

dims = st.lists(st.integers(0, 4), min_size=0, max_size=4)
nonzero_dims = st.lists(st.integers(1, 4), min_size=1, max_size=4)


def _factorisations(n, rng, count=6):
    """Some shapes with ``n`` elements (for view targets)."""
    out = [(n,), (1, n), (n, 1)]
    for _ in range(count):
        shape, rest = [], n
        while rest > 1 and len(shape) < 4:
            divs = [d for d in range(1, rest + 1) if rest % d == 0]
            d = int(rng.choice(divs))
            shape.append(d)
            rest //= d
        shape.append(rest)
        if rng.random() < 0.3:
            shape.insert(int(rng.integers(0, len(shape) + 1)), 1)
        out.append(tuple(shape))
    return out


@SETTINGS
@given(shape=nonzero_dims, data=st.data())
def test_view_strides_matches_torch_view(shape, data):
    """For a permuted / sliced tensor, view succeeds exactly when torch's does, with torch's strides."""
    perm = data.draw(st.permutations(range(len(shape))))
    step = data.draw(st.sampled_from([1, 1, 2]))
    base = torch.empty([s * (step if i == len(shape) - 1 else 1) for i, s in enumerate(shape)])
    src = base[..., ::step].permute(list(perm)) if shape else base
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
    for target in _factorisations(src.numel(), rng):
        got = S.view_strides(tuple(src.shape), src.stride(), target)
        try:
            expected = src.view(target).stride()
        except RuntimeError:
            expected = None
        assert got == expected, (tuple(src.shape), src.stride(), target)


@SETTINGS
@given(shape=dims, data=st.data())
def test_view_strides_with_zero_sizes_and_ones(shape, data):
    base = torch.empty(shape)
    perm = data.draw(st.permutations(range(len(shape))))
    src = base.permute(list(perm))
    n = src.numel()
    targets = [(n,), (1, n), (n, 1, 1)] + ([(0, 5), (5, 0, 2)] if n == 0 else [])
    for target in targets:
        got = S.view_strides(tuple(src.shape), src.stride(), target)
        try:
            expected = src.view(target).stride()
        except RuntimeError:
            expected = None
        assert got == expected, (tuple(src.shape), src.stride(), target)


@SETTINGS
@given(shape=dims, data=st.data())
def test_ember_view_agrees_with_torch(shape, data):
    """The public path: ``x.permute(...).view(target)`` raises where torch raises, else same strides."""
    perm = data.draw(st.permutations(range(len(shape))))
    e = ember.empty(shape).permute(list(perm))
    t = torch.empty(shape).permute(list(perm))
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
    for target in _factorisations(t.numel(), rng, 3) if t.numel() else [(0,)]:
        try:
            expected = t.view(target).stride()
        except RuntimeError as err:
            with pytest.raises(RuntimeError) as got:
                e.view(target)
            assert str(got.value) == str(err)
            continue
        # strides of size-1 dims never address memory; NumPy's reshape (the contiguous fast path)
        # picks different ones than torch, so only the others are compared here
        got = e.view(target).stride()
        assert [s for s, n in zip(got, target) if n != 1] == \
            [s for s, n in zip(expected, target) if n != 1]


@SETTINGS
@given(shape=dims)
def test_contiguous_strides(shape):
    assert S.contiguous_strides(shape) == torch.empty(shape).stride()


@SETTINGS
@given(shape=dims, data=st.data())
def test_is_contiguous(shape, data):
    perm = data.draw(st.permutations(range(len(shape))))
    t = torch.empty(shape).permute(list(perm))
    assert S.is_contiguous(tuple(t.shape), t.stride()) == t.is_contiguous()


shape_lists = st.lists(st.lists(st.integers(0, 3), max_size=4), min_size=1, max_size=4)


@SETTINGS
@given(shapes=shape_lists)
def test_broadcast_shapes(shapes):
    try:
        expected = tuple(torch.broadcast_shapes(*shapes))
    except RuntimeError:
        with pytest.raises(RuntimeError):
            S.broadcast_shapes(*shapes)
        return
    assert S.broadcast_shapes(*shapes) == expected
    if hasattr(ember, "broadcast_shapes"):
        assert tuple(ember.broadcast_shapes(*shapes)) == expected


def test_broadcast_shapes_message():
    # the message of a broadcasting op (ember's broadcast_shapes serves ops, not torch.broadcast_shapes)
    with pytest.raises(RuntimeError) as t:
        torch.ones(2, 3) + torch.ones(4, 3)
    with pytest.raises(RuntimeError) as e:
        S.broadcast_shapes((2, 3), (4, 3))
    assert str(e.value) == str(t.value)


@SETTINGS
@given(shape=st.lists(st.integers(-1, 4), max_size=4), n=st.integers(0, 24))
def test_infer_size(shape, n):
    try:
        expected = tuple(torch.empty(n).view(shape).shape)
    except RuntimeError as err:
        with pytest.raises(RuntimeError) as got:
            S.infer_size(shape, n)
        assert str(got.value) == str(err)
        return
    assert S.infer_size(shape, n) == expected


@pytest.mark.parametrize("dim,ndim", [(0, 1), (-1, 3), (2, 3), (3, 3), (-4, 3), (0, 0), (-1, 0),
                                      (1, 0)])
def test_normalize_dim(dim, ndim):
    t = torch.empty([2] * ndim)
    try:
        t.sum(dim)  # torch wraps dims of a 0-dim tensor like a 1-dim one here
        expected = dim % max(ndim, 1)
    except IndexError as err:
        with pytest.raises(IndexError) as got:
            S.normalize_dim(dim, ndim)
        assert str(got.value) == str(err)
        return
    assert S.normalize_dim(dim, ndim) == expected


def test_size_type():
    s = ember.Size([2, 3])
    t = torch.Size([2, 3])
    assert repr(s) == repr(t) and s == t and s.numel() == t.numel() == math.prod(s)
    assert isinstance(s[:1], ember.Size) and repr(s[:1]) == repr(t[:1])
    assert isinstance(s + (4,), ember.Size)
    assert ember.zeros(2, 3).shape == (2, 3)
