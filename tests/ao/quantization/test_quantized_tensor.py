"""Quantized tensors against torch: integers, qparams, rounding, fake-quant gradients, save/load."""
import io

import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore:.*quantized tensor creation functions")
QDT = [(ember.qint8, torch.qint8), (ember.quint8, torch.quint8), (ember.qint32, torch.qint32)]


def _data(n=20000, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n) * 3).astype(np.float32)
    if n >= 3000:
        x[:1000] = (np.arange(1000) - 500) * 0.05   # exact halves of 0.1
        x[1000:3000] = (np.arange(2000) - 1000) * 0.0273
    return x


@pytest.mark.parametrize("scale,zp", [(0.1, 3), (0.05, 0), (0.0273, -5), (1 / 3, 7), (0.02, 1)])
def test_quantize_per_tensor_integers_equal_torch(scale, zp):
    x = _data()
    for edt, tdt in QDT:
        z = abs(zp) if edt is ember.quint8 else zp
        t = torch.quantize_per_tensor(torch.from_numpy(x), scale, z, tdt)
        e = ember.quantize_per_tensor(ember.from_numpy(x), scale, z, edt)
        np.testing.assert_array_equal(e.int_repr().numpy(), t.int_repr().numpy())
        np.testing.assert_array_equal(e.dequantize().numpy(), t.dequantize().numpy())
        assert (e.q_scale(), e.q_zero_point(), repr(e.qscheme())) == \
               (t.q_scale(), t.q_zero_point(), repr(t.qscheme()))
        assert e.is_quantized and e.dtype.is_signed == (edt is not ember.quint8)


def test_quantize_per_channel_equal_torch():
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((4, 6, 5)) * 2).astype(np.float32)
    halves = np.stack([(np.arange(2000) - 1000) * 0.05, (np.arange(2000) - 1000) * 0.0273,
                       (np.arange(2000) - 1000) * 0.01]).astype(np.float32)
    s, z = np.array([0.1, 0.0273, 0.02]), np.array([3, 5, 1])
    for edt, tdt in QDT:
        t = torch.quantize_per_channel(torch.from_numpy(halves), torch.from_numpy(s), torch.from_numpy(z), 0, tdt)
        e = ember.quantize_per_channel(ember.from_numpy(halves), ember.from_numpy(s), ember.from_numpy(z), 0, edt)
        np.testing.assert_array_equal(e.int_repr().numpy(), t.int_repr().numpy())
    for axis in (0, 1, 2):
        n = x.shape[axis]
        s = rng.uniform(0.01, 0.2, n)
        z = rng.integers(0, 20, n)
        for edt, tdt in QDT[:2]:
            t = torch.quantize_per_channel(torch.from_numpy(x), torch.from_numpy(s), torch.from_numpy(z),
                                           axis, tdt)
            e = ember.quantize_per_channel(ember.from_numpy(x), ember.from_numpy(s), ember.from_numpy(z),
                                           axis, edt)
            np.testing.assert_array_equal(e.int_repr().numpy(), t.int_repr().numpy())
            np.testing.assert_array_equal(e.dequantize().numpy(), t.dequantize().numpy())
            np.testing.assert_array_equal(e.q_per_channel_scales().numpy(), t.q_per_channel_scales().numpy())
            np.testing.assert_array_equal(e.q_per_channel_zero_points().numpy(),
                                          t.q_per_channel_zero_points().numpy())
            assert e.q_per_channel_axis() == t.q_per_channel_axis()


def test_quantize_per_tensor_dynamic_equal_torch():
    for seed in range(5):
        x = _data(500, seed) * (seed + 1) + seed
        for reduce_range in (False, True):
            for edt, tdt in QDT[:2]:
                t = torch.quantize_per_tensor_dynamic(torch.from_numpy(x), tdt, reduce_range)
                e = ember.quantize_per_tensor_dynamic(ember.from_numpy(x), edt, reduce_range)
                assert (e.q_scale(), e.q_zero_point()) == (t.q_scale(), t.q_zero_point())
                np.testing.assert_array_equal(e.int_repr().numpy(), t.int_repr().numpy())


def test_repr_matches_torch():
    x = [-1.0, 0.25, 0.5, 1.5, 2.5, 300.0]
    assert repr(ember.quantize_per_tensor(ember.tensor(x), 0.5, 3, ember.qint8)) == \
        repr(torch.quantize_per_tensor(torch.tensor(x), 0.5, 3, torch.qint8))
    s, z = [0.1, 0.2], [0, 1]
    assert repr(ember.quantize_per_channel(ember.ones(2, 3), ember.tensor(s, dtype=ember.float64),
                                           ember.tensor(z), 0, ember.qint8)) == \
        repr(torch.quantize_per_channel(torch.ones(2, 3), torch.tensor(s, dtype=torch.float64),
                                        torch.tensor(z), 0, torch.qint8))


def test_errors_and_metadata_like_torch():
    e = ember.quantize_per_tensor(ember.ones(2, 3), 0.1, 0, ember.quint8)
    t = torch.quantize_per_tensor(torch.ones(2, 3), 0.1, 0, torch.quint8)
    for op in (lambda q: q + q, lambda q: q.sum(), lambda q: q.exp(), lambda q: q.abs()):
        with pytest.raises(NotImplementedError) as te:
            op(t)
        with pytest.raises(NotImplementedError, match="QuantizedCPU") as ee:
            op(e)
        assert str(ee.value).split("'")[1].split(".")[0] == str(te.value).split("'")[1].split(".")[0]
    with pytest.raises(NotImplementedError, match="QuantizedCPU"):
        e.matmul(e.t())
    with pytest.raises(NotImplementedError, match="'CPU' backend"):
        ember.ones(2).int_repr()
    x = ember.ones(2)
    assert x.dequantize() is x and not x.is_quantized
    with pytest.raises(TypeError):
        e.numpy()
    assert e.shape == t.shape and e.stride() == t.stride() and e.element_size() == 1


def test_geometry_ops_keep_the_quantizer():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
    t = torch.quantize_per_tensor(torch.from_numpy(x), 0.1, 2, torch.quint8)
    e = ember.quantize_per_tensor(ember.from_numpy(x), 0.1, 2, ember.quint8)
    for op in (lambda q: q.view(6, 4), lambda q: q.reshape(4, 6), lambda q: q.permute(2, 0, 1),
               lambda q: q[1, :, 1:3], lambda q: q.transpose(0, 1), lambda q: q.flatten(1),
               lambda q: q.unsqueeze(0), lambda q: q.clone(), lambda q: q.contiguous(),
               lambda q: torch.flatten(q) if isinstance(q, torch.Tensor) else ember.flatten(q)):
        tr, er = op(t), op(e)
        assert er.is_quantized and er.dtype is ember.quint8 and er.q_scale() == tr.q_scale()
        np.testing.assert_array_equal(er.int_repr().numpy(), tr.int_repr().numpy())
    v = e.view(24)
    assert v.untyped_storage().data_ptr() == e.untyped_storage().data_ptr()


@pytest.mark.parametrize("name", ["relu", "max_pool2d", "adaptive_avg_pool2d", "hardtanh", "cat",
                                  "leaky_relu", "avg_pool2d"])
def test_quantized_kernels_match_torch(name):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    t = torch.quantize_per_tensor(torch.from_numpy(x), 0.03, 120, torch.quint8)
    e = ember.quantize_per_tensor(ember.from_numpy(x), 0.03, 120, ember.quint8)
    TF, EF = torch.nn.functional, ember.nn.functional
    calls = {"relu": lambda F, q: F.relu(q), "max_pool2d": lambda F, q: F.max_pool2d(q, 2),
             "adaptive_avg_pool2d": lambda F, q: F.adaptive_avg_pool2d(q, (3, 3)),
             "hardtanh": lambda F, q: F.hardtanh(q, -0.5, 0.7), "leaky_relu": lambda F, q: F.leaky_relu(q, 0.1),
             "avg_pool2d": lambda F, q: F.avg_pool2d(q, 2),
             "cat": lambda F, q: (torch if F is TF else ember).cat([q, q], 1)}
    tr, er = calls[name](TF, t), calls[name](EF, e)
    assert er.is_quantized and (er.q_scale(), er.q_zero_point()) == (tr.q_scale(), tr.q_zero_point())
    diff = np.abs(er.int_repr().numpy().astype(int) - tr.int_repr().numpy().astype(int))
    assert diff.max() <= (0 if name in ("relu", "max_pool2d", "hardtanh", "cat") else 1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fake_quantize_per_tensor_values_and_straight_through_grad(dtype):
    x = _data(5000).astype(dtype)
    for scale, zp, lo, hi in [(0.1, 3, -128, 127), (0.0273, 7, 0, 255), (0.05, 0, 0, 15)]:
        tx = torch.from_numpy(x).requires_grad_()
        ex = ember.from_numpy(x).requires_grad_()
        ty = torch.fake_quantize_per_tensor_affine(tx, scale, zp, lo, hi)
        ey = ember.fake_quantize_per_tensor_affine(ex, scale, zp, lo, hi)
        np.testing.assert_array_equal(ey.detach().numpy(), ty.detach().numpy())
        g = np.random.default_rng(0).standard_normal(x.shape).astype(dtype)
        ty.backward(torch.from_numpy(g))
        ey.backward(ember.from_numpy(g))
        np.testing.assert_array_equal(ex.grad.numpy(), tx.grad.numpy())


def test_fake_quantize_per_channel_values_and_grad():
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((3, 4, 5)) * 4).astype(np.float32)
    s = rng.uniform(0.01, 0.1, 4).astype(np.float32)
    z = rng.integers(-3, 3, 4).astype(np.int32)
    tx, ex = torch.from_numpy(x).requires_grad_(), ember.from_numpy(x).requires_grad_()
    ty = torch.fake_quantize_per_channel_affine(tx, torch.from_numpy(s), torch.from_numpy(z), 1, -128, 127)
    ey = ember.fake_quantize_per_channel_affine(ex, ember.from_numpy(s), ember.from_numpy(z), 1, -128, 127)
    np.testing.assert_array_equal(ey.detach().numpy(), ty.detach().numpy())
    ty.sum().backward()
    ey.sum().backward()
    np.testing.assert_array_equal(ex.grad.numpy(), tx.grad.numpy())


def test_save_load_exchanges_with_torch_under_weights_only():
    x = _data(60).reshape(6, 10)
    e = {"a": ember.quantize_per_tensor(ember.from_numpy(x), 0.05, 3, ember.qint8),
         "c": ember.quantize_per_channel(ember.from_numpy(x), ember.linspace(0.01, 0.1, 6, dtype=ember.float64),
                                         ember.arange(6), 0, ember.quint8)}
    buf = io.BytesIO()
    ember.save(e, buf)
    buf.seek(0)
    t = torch.load(buf, weights_only=True)
    for k in e:
        np.testing.assert_array_equal(t[k].int_repr().numpy(), e[k].int_repr().numpy())
        assert t[k].qscheme() == {"a": torch.per_tensor_affine, "c": torch.per_channel_affine}[k]
    assert t["a"].q_scale() == 0.05 and t["a"].q_zero_point() == 3
    buf = io.BytesIO()
    torch.save(t, buf)
    buf.seek(0)
    back = ember.load(buf, weights_only=True)
    for k in e:
        np.testing.assert_array_equal(back[k].int_repr().numpy(), e[k].int_repr().numpy())
        np.testing.assert_array_equal(back[k].dequantize().numpy(), e[k].dequantize().numpy())


def test_backends_quantized_engine():
    assert ember.backends.quantized.engine == torch.backends.quantized.engine == "x86"
    assert set(ember.backends.quantized.supported_engines) == set(torch.backends.quantized.supported_engines)
