"""``testing.assert_allclose`` (deprecated in torch, still present; issue 17): same pass/fail, messages
and warning as torch's, with its own defaults."""
import warnings

import pytest
import torch

import ember

CASES = [
    ("equal", lambda L: (L.ones(2), L.ones(2)), {}),
    ("f32 within", lambda L: (L.ones(1), L.ones(1) * (1 + 9e-5)), {}),
    ("f32 outside", lambda L: (L.ones(1), L.ones(1) * (1 + 2e-4)), {}),
    ("f64 outside", lambda L: (L.ones(1, dtype=L.float64), L.ones(1, dtype=L.float64) * (1 + 2e-5)), {}),
    ("f16", lambda L: (L.tensor([1, 0], dtype=L.float16), L.tensor([1, 1], dtype=L.float16)), {}),
    ("int exact", lambda L: (L.tensor([1, 0]), L.tensor([1, 1])), {}),
    ("int vs float", lambda L: (L.tensor([1, 2]), L.tensor([1.0, 2.5])), {}),
    ("dtypes may differ", lambda L: (L.ones(2), L.ones(2, dtype=L.float64)), {}),
    ("nan equal by default", lambda L: (L.tensor([float("nan")]), L.tensor([float("nan")])), {}),
    ("nan unequal", lambda L: (L.tensor([float("nan")]), L.tensor([float("nan")])), {"equal_nan": False}),
    ("list expected", lambda L: (L.ones(2), [1.0, 1.0]), {}),
    ("python scalars", lambda L: (1.0, 1.0 + 1e-6), {}),
    ("shape", lambda L: (L.ones(2), L.ones(3)), {}),
    ("custom msg", lambda L: (L.ones(2), L.tensor([1.0, 2.0])), {"msg": "custom"}),
    ("explicit tol", lambda L: (L.ones(2), L.tensor([1.0, 1.5])), {"rtol": 0.6, "atol": 0}),
    ("rtol only", lambda L: (L.ones(2), L.ones(2)), {"rtol": 1e-3}),
]


def _outcome(lib, make, kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            lib.testing.assert_allclose(*make(lib), **kw)
            res = None
        except (AssertionError, ValueError) as e:
            res = (type(e), str(e).replace("torch.Size", "Size").replace("ember.Size", "Size"))
    return res, [(x.category, str(x.message)) for x in w]


@pytest.mark.parametrize("name,make,kw", CASES, ids=[c[0] for c in CASES])
def test_assert_allclose_matches_torch(name, make, kw):
    assert _outcome(ember, make, kw) == _outcome(torch, make, kw)
