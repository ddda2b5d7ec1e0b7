"""Op database entries for the random family. ember's streams differ from torch's by design (see
docs/design.md), so each entry checks a deterministic consequence of the op's definition: a Bernoulli
with p in {0, 1}, a normal with std 0, ``random_(0, 1)``, a sorted permutation, a support (exponential
samples are >= 0)... Distributions themselves are tested in tests/test_random.py and
tests/distributions/."""
from __future__ import annotations

import numpy as np

from ._core import FLOAT, OpInfo, Sample, arr

NO_GRAD = dict(grad=False, skip_checks=("noalias",), notes="in-place samplers write into their input")


def _x(dt, shape=(3, 4)):
    return [Sample((arr(shape, dt),), name=str(shape)), Sample((arr((), dt),), name="0-d")]


def _p01(dt):
    return [Sample((np.round(arr((3, 4), dt, 0, 1)),), name="p in {0,1}")]


def _onehot(dt):
    p = np.zeros((3, 4), dt)
    p[np.arange(3), [2, 0, 3]] = 1
    return [Sample((p,), name="one-hot rows")]


OPS = [
    OpInfo("bernoulli", lambda lib, p: lib.bernoulli(p), _p01, grad=False),
    OpInfo("bernoulli_float", lambda lib, x: lib.bernoulli(x, 1.0), _x, grad=False),
    OpInfo("bernoulli_tensor_p_", lambda lib, x: x.clone().bernoulli_(x * 0 + 1), _x, grad=False),
    OpInfo("bernoulli_scalar_", lambda lib, x: x.bernoulli_(0.0), _x, **NO_GRAD),
    OpInfo("binomial", lambda lib, p: lib.binomial(p * 0 + 5, p), _p01, grad=False),
    OpInfo("poisson", lambda lib, x: lib.poisson(x * 0), _x, grad=False),
    OpInfo("cauchy_", lambda lib, x: x.cauchy_(1.0, 2.0).isnan(), _x, **NO_GRAD),
    OpInfo("exponential_", lambda lib, x: x.exponential_(2.0) >= 0, _x, **NO_GRAD),
    OpInfo("geometric_", lambda lib, x: x.geometric_(1.0), _x, **NO_GRAD),
    OpInfo("log_normal_", lambda lib, x: x.log_normal_(0.0, 0.5) > 0, _x, **NO_GRAD),
    OpInfo("uniform_", lambda lib, x: x.uniform_(2.0, 2.0), _x, **NO_GRAD),
    OpInfo("normal_", lambda lib, x: x.normal_(3.0, 0.0), _x, **NO_GRAD),
    OpInfo("normal_tensor_float", lambda lib, m: lib.normal(m, 0.0), _x, grad=False),
    OpInfo("normal_float_tensor", lambda lib, s: lib.normal(2.0, s * 0), _x, grad=False),
    OpInfo("normal_tensor_tensor", lambda lib, m: lib.normal(m, m * 0), _x, grad=False),
    OpInfo("random_", lambda lib, x: x.random_() >= 0, _x, **NO_GRAD),
    OpInfo("random_to_", lambda lib, x: x.random_(1), _x, **NO_GRAD),
    OpInfo("random_from_to_", lambda lib, x: x.random_(-2, -1), _x, **NO_GRAD),
    OpInfo("randperm_sorted", lambda lib, n: lib.randperm(n).sort().values,
           lambda dt: [Sample((7,), name="7"), Sample((0,), name="0")], dtypes=("float32",), grad=False,
           meta=False),
    OpInfo("multinomial", lambda lib, p: lib.multinomial(p, 3, replacement=True), _onehot, grad=False),
    OpInfo("_standard_gamma_support", lambda lib, a: lib._standard_gamma(a) > 0,
           lambda dt: [Sample((arr((3, 4), dt, 0.5, 3),))], grad=False),
    # the reparameterised gamma's derivative is a deterministic function of (sample, alpha)
    OpInfo("_standard_gamma_grad", lambda lib, x, a: lib._standard_gamma_grad(x, a),
           lambda dt: [Sample((arr((3, 4), dt, 0.2, 4), arr((3, 4), dt, 0.5, 3)))], grad=False,
           atol=1e-4, rtol=1e-3),
]
