"""CPU autocast casts torch's ``matmul`` as a whole (issue 17): ``bf16 @ fp32`` and matrix @ vector give
bfloat16 as in torch, while ``mv`` and ``dot`` called directly stay float32."""
import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(0)
M, V, B = RNG.standard_normal((2, 3)), RNG.standard_normal(3), RNG.standard_normal((3, 2))

CASES = {
    "bf16 @ fp32": lambda L, t: t(M).bfloat16() @ t(B),
    "fp32 @ bf16": lambda L, t: t(M) @ t(B).bfloat16(),
    "matrix @ vector": lambda L, t: t(M) @ t(V),
    "vector @ vector": lambda L, t: L.matmul(t(V), t(V)),
    "vector @ matrix": lambda L, t: t(V) @ t(B),
    "batched @ vector": lambda L, t: t(M).reshape(1, 2, 3) @ t(V),
    "mv": lambda L, t: L.mv(t(M), t(V)),
    "dot": lambda L, t: L.dot(t(V), t(V)),
    "mm": lambda L, t: L.mm(t(M), t(B)),
    "fp64 @ fp64": lambda L, t: t(M).double() @ t(B).double(),
}


@pytest.mark.parametrize("name", list(CASES))
def test_autocast_matmul_dtype(name):
    out = []
    for lib in (torch, ember):
        def t(a, lib=lib):
            return lib.tensor(a, dtype=lib.float32)
        with lib.autocast(device_type="cpu", dtype=lib.bfloat16):
            r = CASES[name](lib, t)
        out.append(r)
    tr, er = out
    assert str(er.dtype).split(".")[-1] == str(tr.dtype).split(".")[-1], name
    np.testing.assert_allclose(er.float().numpy(), tr.float().numpy(), rtol=2e-2, atol=2e-2)


def test_outside_autocast_mixed_dtypes_still_raise():
    with pytest.raises(RuntimeError, match="same dtype"):
        ember.ones(2, 3).bfloat16() @ ember.ones(3, 2)
