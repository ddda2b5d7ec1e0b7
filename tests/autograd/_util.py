"""Run one snippet with both libraries and compare: ``fn(lib)`` is written once for ember and torch."""
from __future__ import annotations

import numpy as np
import torch

import ember

LIBS = (ember, torch)


def to_np(x):
    """Nested results (tensors, tuples, lists, scalars, None) as NumPy / plain values."""
    if isinstance(x, (ember.Tensor, torch.Tensor)):
        return np.array(x.detach().numpy(), copy=True)
    if isinstance(x, (tuple, list)):
        return type(x)(to_np(v) for v in x)
    if isinstance(x, dict):
        return {k: to_np(v) for k, v in x.items()}
    return x


def assert_same(a, b, *, rtol=1e-6, atol=1e-6, path="result"):
    """``a`` (from ember) equals ``b`` (from torch): values, shapes and dtypes of arrays."""
    if isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray), f"{path}: ember gave {type(a).__name__}, torch an array"
        assert a.shape == b.shape, f"{path}: shape {a.shape} != {b.shape}"
        assert a.dtype == b.dtype, f"{path}: dtype {a.dtype} != {b.dtype}"
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=path)
    elif isinstance(b, (tuple, list)):
        assert isinstance(a, (tuple, list)) and len(a) == len(b), f"{path}: {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, rtol=rtol, atol=atol, path=f"{path}[{i}]")
    elif isinstance(b, dict):
        assert a.keys() == b.keys(), f"{path}: keys {a.keys()} != {b.keys()}"
        for k in b:
            assert_same(a[k], b[k], rtol=rtol, atol=atol, path=f"{path}[{k!r}]")
    else:
        assert a == b, f"{path}: ember {a!r} != torch {b!r}"


def both(fn, **tol):
    """Run ``fn(lib)`` for ember and torch; assert the results agree; return ember's raw result."""
    mine = fn(ember)
    ref = fn(torch)
    assert_same(to_np(mine), to_np(ref), **tol)
    return mine


def error_of(fn, lib):
    """``(exception type name, message)`` raised by ``fn(lib)``, or None."""
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001 - the test compares the exact class and message
        return type(e).__name__, str(e)
    return None


def same_error(fn):
    """``fn`` raises the same exception class and message in both libraries."""
    mine, ref = error_of(fn, ember), error_of(fn, torch)
    assert ref is not None, "torch did not raise"
    assert mine == ref, f"ember: {mine}\ntorch: {ref}"


def tensor(lib, data, **kw):
    return lib.tensor(data, **kw)


def names(fn_node, depth=50):
    """Breadth-first node names of a graph from ``fn_node`` (torch's AccumulateGrad naming)."""
    out, frontier, seen = [], [fn_node], set()
    while frontier and depth:
        depth -= 1
        nxt = []
        for n in frontier:
            if n is None or id(n) in seen:
                continue
            seen.add(id(n))
            out.append(type(n).__name__)
            nxt.extend(c for c, _ in n.next_functions)
        frontier = nxt
    return out
