"""ember.testing.assert_close against torch.testing.assert_close: same verdicts, types and messages."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import ember
from ember.testing import assert_close

CASES = [
    lambda L: (L.tensor([1.0, 2.0, 3.0]), L.tensor([1.0, 2.5, 3.0]), {}),
    lambda L: (L.tensor([1.0, 2.0, 3.0]), L.tensor([1.0, 2.0 + 1e-6, 3.0]), {}),
    lambda L: (L.tensor([1, 2, 3]), L.tensor([1, 4, 3]), {}),
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0], dtype=L.float64), {}),
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0], dtype=L.float64), dict(check_dtype=False)),
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0, 3.0]), {}),
    lambda L: (L.tensor(1.0), L.tensor(2.0), {}),
    lambda L: (L.tensor([math.nan]), L.tensor([math.nan]), {}),
    lambda L: (L.tensor([math.nan, 1.0]), L.tensor([math.nan, 1.0]), dict(equal_nan=True)),
    lambda L: (L.tensor([math.inf]), L.tensor([math.inf]), {}),
    lambda L: (L.tensor([math.inf]), L.tensor([-math.inf]), {}),
    lambda L: (1.0, 1.5, {}),
    lambda L: (1, 2, {}),
    lambda L: (1.0, 1.0 + 1e-9, {}),
    lambda L: (True, False, {}),
    lambda L: (None, None, {}),
    lambda L: (None, 1, {}),
    lambda L: ([1.0, L.tensor(2.0)], [1.0, L.tensor(3.0)], {}),
    lambda L: ({"a": L.tensor([1.0, 2.0])}, {"a": L.tensor([1.0, 3.0])}, {}),
    lambda L: ({"a": 1}, {"b": 1}, {}),
    lambda L: ([1, 2], [1, 2, 3], {}),
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, 3.0]), dict(msg="custom")),
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, 3.0]), dict(msg=lambda m: f"H\n{m}\nF")),
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, 3.0]), dict(rtol=0.1)),
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, 2.1]), dict(rtol=0.1, atol=0.0)),
    lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, 2.1]), dict(rtol=0.0, atol=0.0)),
    lambda L: (L.tensor([[1.0, 2.0], [3.0, 4.0]]), L.tensor([[1.0, 3.0], [3.0, 5.0]]), {}),
    lambda L: (L.tensor([True, False]), L.tensor([False, False]), {}),
    lambda L: (L.tensor([0.0, 1.0]), L.tensor([1e-6, 1.0]), {}),
    lambda L: (L.tensor([1.0, 2.0], dtype=L.float64), L.tensor([1.0, 2.0 + 1e-6], dtype=L.float64), {}),
    lambda L: (L.tensor([1.0, 2.0], dtype=L.float16), L.tensor([1.0, 2.001], dtype=L.float16), {}),
    lambda L: (L.tensor([1.0, 2.0], dtype=L.bfloat16), L.tensor([1.0, 2.02], dtype=L.bfloat16), {}),
    lambda L: (L.tensor([1, 2]), L.tensor([1.0, 2.0]), dict(check_dtype=False)),
    lambda L: (L.zeros(2, 3).t(), L.zeros(3, 2), dict(check_stride=True)),
    lambda L: (L.zeros(3, device="meta"), L.zeros(3, device="meta"), {}),
    lambda L: (L.zeros(3, device="meta"), L.zeros(3), {}),
    lambda L: (np.array([1.0, 2.0]), np.array([1.0, 2.5]), {}),
    lambda L: (L.tensor([1, 0]), L.tensor([0, 0]), {}),
    lambda L: (L.tensor([1.0, 2.0], requires_grad=True), L.tensor([1.0, 2.0]), {}),
]


def _outcome(lib, case):
    actual, expected, kw = case(lib)
    fn = torch.testing.assert_close if lib is torch else assert_close
    try:
        fn(actual, expected, **kw)
    except Exception as e:  # noqa: BLE001 - comparing the exception itself
        return type(e).__name__, str(e).replace("torch.device(type='meta')", "meta")
    return None


@pytest.mark.parametrize("i", range(len(CASES)))
def test_assert_close_matches_torch(i):
    assert _outcome(ember, CASES[i]) == _outcome(torch, CASES[i])


def test_unsupported_pair_raises_type_error():
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
        assert_close(ember.tensor([1.0]), [1.0])


def test_default_tolerances_per_dtype():
    from ember.testing._comparison import default_tolerances
    from torch.testing._comparison import default_tolerances as td
    for name in ("float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int64", "bool"):
        assert default_tolerances(getattr(ember, name)) == td(getattr(torch, name)), name
