"""The small-batch int8 kernel of dynamic quantized Linear/RNN against the float-BLAS path and torch."""
import numpy as np
import pytest
import torch
import torch.ao.quantization as tq

import ember
import ember.ao.quantization as eq
from ember._quantized import kernels as K

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


def _blas_path(p, a, reduce_range, bias, relu):
    ai, sx, amax = K.dynamic_quantize_array(a, reduce_range)
    return K._epilogue(p.matmul(ai, amax), np.float64(sx) * p.scale, bias, relu).astype(np.float32)


@pytest.mark.parametrize("n,k,m", [(1, 64, 48), (3, 7, 5), (4, 130, 33), (1, 1, 1)])
@pytest.mark.parametrize("zero_point", [0, 3])
@pytest.mark.parametrize("per_channel", [False, True])
def test_int8_kernel_equals_blas_path_bitwise(n, k, m, zero_point, per_channel):
    rng = np.random.default_rng(n * 100 + k)
    wf = ember.tensor(rng.standard_normal((m, k)).astype(np.float32))
    if per_channel:
        scales = ember.tensor(rng.uniform(0.01, 0.03, m))
        w = ember.quantize_per_channel(wf, scales, ember.full((m,), zero_point, dtype=ember.int64),
                                       0, ember.qint8)
    else:
        w = ember.quantize_per_tensor(wf, 0.02, zero_point, ember.qint8)
    a = (rng.standard_normal((n, k)) * 3).astype(np.float32)
    bias = rng.standard_normal(m)
    p = K.packed_weight(w)
    assert n <= K.SMALL_BATCH
    for reduce_range in (True, False):
        for b, relu in ((bias, False), (None, True)):
            np.testing.assert_array_equal(p.dynamic_linear(a, reduce_range, b, relu),
                                          _blas_path(p, a, reduce_range, b, relu))


def test_int8_kernel_constant_and_empty_inputs():
    w = ember.quantize_per_tensor(ember.ones(3, 4), 0.1, 0, ember.qint8)
    p = K.packed_weight(w)
    for a in (np.zeros((1, 4), np.float32), np.full((2, 4), -5.0, np.float32)):
        np.testing.assert_array_equal(p.dynamic_linear(a, True, None), _blas_path(p, a, True, None, False))
    assert p.dynamic_linear(np.zeros((0, 4), np.float32), True, None).shape == (0, 3)


@pytest.mark.parametrize("batch", [1, 2, 4])
def test_dynamic_linear_small_batch_matches_torch(batch):
    torch.manual_seed(5)
    tm = torch.nn.Sequential(torch.nn.Linear(40, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
    em = ember.nn.Sequential(ember.nn.Linear(40, 64), ember.nn.ReLU(), ember.nn.Linear(64, 8))
    em.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    tq_m, eq_m = tq.quantize_dynamic(tm), eq.quantize_dynamic(em)
    x = np.random.default_rng(batch).standard_normal((batch, 40)).astype(np.float32) * 2
    ty = tq_m(torch.from_numpy(x)).detach().numpy()
    ey = eq_m(ember.from_numpy(x)).numpy()
    np.testing.assert_allclose(ey, ty, rtol=1e-5, atol=1e-5)


def _pool_cases():
    rng = np.random.default_rng(7)
    for _ in range(40):
        nd = int(rng.integers(1, 3))
        k = tuple(int(v) for v in rng.integers(1, 4, nd))
        s = tuple(int(v) for v in rng.integers(1, 4, nd))
        p = tuple(int(rng.integers(0, ki // 2 + 1)) for ki in k)
        d = tuple(int(v) for v in rng.integers(1, 3, nd))
        batched = bool(rng.integers(0, 2))
        yield nd, k, s, p, d, bool(rng.integers(0, 2)), batched


@pytest.mark.parametrize("case", list(_pool_cases()))
def test_integer_max_pool_matches_torch(case):
    nd, k, s, p, d, ceil_mode, batched = case
    shape = ((2,) if batched else ()) + (3,) + (9,) * nd
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    fn = "max_pool2d" if nd == 2 else "max_pool1d"
    try:
        ty = getattr(torch.nn.functional, fn)(
            torch.quantize_per_tensor(torch.from_numpy(x), 0.05, 7, torch.quint8), k, s, p, d, ceil_mode)
    except RuntimeError as err:
        with pytest.raises(RuntimeError):
            getattr(ember.nn.functional, fn)(
                ember.quantize_per_tensor(ember.from_numpy(x), 0.05, 7, ember.quint8), k, s, p, d, ceil_mode)
        return
    ey = getattr(ember.nn.functional, fn)(
        ember.quantize_per_tensor(ember.from_numpy(x), 0.05, 7, ember.quint8), k, s, p, d, ceil_mode)
    np.testing.assert_array_equal(ey.int_repr().numpy(), ty.int_repr().numpy())
    assert (ey.q_scale(), ey.q_zero_point()) == (ty.q_scale(), ty.q_zero_point())
