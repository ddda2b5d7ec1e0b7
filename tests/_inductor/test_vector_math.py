"""The SIMD float32 exp/erf/tanh/sigmoid helpers of generated kernels (``codegen.vector_math``):
fused into one kernel by default, accurate to a few float32 ulps against float64 references,
IEEE results on NaN / +-inf / overflow / underflow; an output written over a dead input."""
import math

import numpy as np
import torch

import ember
from ember._functorch.aot_autograd import aot_function
from ember._inductor import metrics
from ember._inductor.compile_fx import compile_fx_inner
from ember._inductor.codegen.vector_math import VECTOR_MATH, helper_closure


def _four(x):
    return x.exp(), ember.erf(x), x.tanh(), x.sigmoid()


def test_exp_erf_tanh_sigmoid_fuse_into_one_kernel_and_match_float64():
    rng = np.random.default_rng(0)
    vals = np.concatenate([rng.standard_normal(6000) * 3, rng.uniform(-110, 100, 2000),
                           np.logspace(-30, 1.5, 96), -np.logspace(-30, 1.5, 96),
                           [np.nan, np.inf, -np.inf, 0.0, 88.7, 88.73, -87.5, -103.5, -104.5]])
    x = vals.astype(np.float32)
    metrics.reset()
    with ember.no_grad():
        outs = aot_function(_four, compile_fx_inner)(ember.tensor(x))
    assert (metrics.generated_kernel_count, metrics.ufunc_call_count) == (1, 0)
    x64 = torch.tensor(x.astype(np.float64))
    refs = [x64.exp(), torch.erf(x64), x64.tanh(), x64.sigmoid()]
    for name, got, ref in zip(["exp", "erf", "tanh", "sigmoid"], outs, refs):
        got, ref = got.numpy(), ref.numpy()
        with np.errstate(over="ignore"):
            want32 = ref.astype(np.float32)  # the float32 rounding of the exact value
        assert np.array_equal(np.isnan(got), np.isnan(want32)), name
        assert np.array_equal(np.isinf(got), np.isinf(want32)), name
        fin = np.isfinite(want32) & (np.abs(ref) > 1.2e-38)
        rel = np.abs(got[fin] - ref[fin]) / np.abs(ref[fin])
        assert rel.max() < 6e-7, (name, float(rel.max()), x[fin][rel.argmax()])
        tiny = np.isfinite(ref) & (np.abs(ref) <= 1.2e-38)
        assert np.abs(got[tiny] - ref[tiny]).max(initial=0) < 1e-44, name


def test_helper_closure_orders_dependencies():
    assert helper_closure(["sigmoid_float32", "tanh_float32"], VECTOR_MATH) == \
        ["_bits", "exp_float32", "sigmoid_float32", "tanh_float32"]
    assert math.isclose(float(ember.tensor([1.0]).exp()), math.e, rel_tol=1e-6)


def test_output_written_over_dead_input_matches_eager():
    # the matmul's fresh result is dead after the bias/relu kernel reads it: the kernel stores
    # into it through the input's own name (an aliased second name would stop LLVM vectorising)
    x, w, b = ember.randn(64, 32), ember.randn(32, 48), ember.randn(48)
    srcs = []

    def keep(gm, ex):
        fn = compile_fx_inner(gm, ex)
        srcs.extend(s for _, s in fn.kernel_sources)
        return fn

    def f(x, w, b):
        return ((x @ w) + b).relu() * 2
    with ember.no_grad():
        got = aot_function(f, keep)(x, w, b)
    torch.testing.assert_close(got.numpy(), f(x, w, b).numpy(), rtol=2e-6, atol=2e-6)
    assert len(srcs) == 1 and "in0[r, c] = " in srcs[0] and "out0" not in srcs[0]
