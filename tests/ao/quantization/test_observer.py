"""Observers, FakeQuantize and qconfigs against torch.ao.quantization from identical inputs."""
import io

import numpy as np
import pytest
import torch
import torch.ao.quantization as tq

import ember
import ember.ao.quantization as eq


def _batches(seed=0, n=3, shape=(8, 5)):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(shape) * (i + 1) + i * 0.3).astype(np.float32) for i in range(n)]


def _conv(kwargs, to_torch):
    out = {}
    for k, v in kwargs.items():
        if isinstance(v, (ember.dtype, ember.qscheme)):
            v = getattr(torch, repr(v).split(".")[1])
        out[k] = v
    return out if to_torch else kwargs


CASES = [
    ("MinMaxObserver", {}),
    ("MinMaxObserver", {"dtype": ember.qint8, "qscheme": ember.per_tensor_symmetric}),
    ("MinMaxObserver", {"reduce_range": True}),
    ("MinMaxObserver", {"quant_min": 0, "quant_max": 15}),
    ("MovingAverageMinMaxObserver", {}),
    ("MovingAverageMinMaxObserver", {"averaging_constant": 0.5, "dtype": ember.qint8}),
    ("PerChannelMinMaxObserver", {}),
    ("PerChannelMinMaxObserver", {"ch_axis": 1, "dtype": ember.qint8, "qscheme": ember.per_channel_symmetric}),
    ("MovingAveragePerChannelMinMaxObserver", {"averaging_constant": 0.3}),
    ("HistogramObserver", {}),
    ("HistogramObserver", {"reduce_range": True}),
    ("HistogramObserver", {"dtype": ember.qint8, "qscheme": ember.per_tensor_symmetric}),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_observer_qparams_equal_torch(name, kwargs):
    t = getattr(tq, name)(**_conv(kwargs, True))
    e = getattr(eq, name)(**kwargs)
    batches = _batches(len(kwargs), 1 if name == "HistogramObserver" else 3)
    for b in batches:
        tout, eout = t(torch.from_numpy(b)), e(ember.from_numpy(b))
        np.testing.assert_array_equal(eout.numpy(), tout.numpy())
    ts, tz = t.calculate_qparams()
    es, ez = e.calculate_qparams()
    np.testing.assert_array_equal(es.numpy(), ts.numpy())
    np.testing.assert_array_equal(ez.numpy(), tz.numpy())
    assert ez.dtype.name == str(tz.dtype).split(".")[1]
    assert list(e.state_dict()) == list(t.state_dict())
    for k, v in t.state_dict().items():
        if k != "histogram":
            np.testing.assert_allclose(e.state_dict()[k].numpy(), v.numpy(), rtol=1e-6)


def test_histogram_observer_several_batches_close_to_torch():
    t, e = tq.HistogramObserver(), eq.HistogramObserver()
    for b in _batches(7, 3, (2000,)):
        t(torch.from_numpy(b))
        e(ember.from_numpy(b))
    (ts, tz), (es, ez) = t.calculate_qparams(), e.calculate_qparams()
    np.testing.assert_allclose(es.numpy(), ts.numpy(), rtol=0.02)
    assert abs(int(ez) - int(tz)) <= 2


def test_observer_state_dict_round_trips_through_torch():
    e = eq.PerChannelMinMaxObserver()
    e(ember.from_numpy(_batches()[0]))
    buf = io.BytesIO()
    ember.save(e.state_dict(), buf)
    buf.seek(0)
    t = tq.PerChannelMinMaxObserver()
    t(torch.zeros(8, 1))  # torch's own loader needs the per-channel shape to exist already
    t.load_state_dict(torch.load(buf, weights_only=True))
    np.testing.assert_array_equal(t.calculate_qparams()[0].numpy(), e.calculate_qparams()[0].numpy())
    e2 = eq.PerChannelMinMaxObserver()
    e2.load_state_dict(e.state_dict())
    np.testing.assert_array_equal(e2.calculate_qparams()[1].numpy(), e.calculate_qparams()[1].numpy())


def test_placeholder_observer_and_qconfig_errors():
    assert eq.PlaceholderObserver()(ember.ones(2)).tolist() == [1.0, 1.0]
    with pytest.raises(Exception, match="should not be called"):
        eq.PlaceholderObserver().calculate_qparams()
    with pytest.raises(ValueError, match="observer instance"):
        eq.QConfig(activation=eq.MinMaxObserver(), weight=eq.MinMaxObserver)
    with pytest.raises(NotImplementedError):
        eq.MinMaxObserver(qscheme=ember.per_tensor_symmetric, reduce_range=True)


@pytest.mark.parametrize("per_channel", [False, True])
def test_fake_quantize_module_equal_torch(per_channel):
    if per_channel:
        t, e = tq.default_per_channel_weight_fake_quant(), eq.default_per_channel_weight_fake_quant()
    else:
        t, e = tq.default_fake_quant(), eq.default_fake_quant()
    for b in _batches(3):
        tx, ex = torch.from_numpy(b).requires_grad_(), ember.from_numpy(b).requires_grad_()
        ty, ey = t(tx), e(ex)
        np.testing.assert_array_equal(ey.detach().numpy(), ty.detach().numpy())
        ty.sum().backward()
        ey.sum().backward()
        np.testing.assert_array_equal(ex.grad.numpy(), tx.grad.numpy())
    np.testing.assert_array_equal(e.scale.numpy(), t.scale.numpy())
    np.testing.assert_array_equal(e.zero_point.numpy(), t.zero_point.numpy())
    assert list(e.state_dict()) == list(t.state_dict())
    e.apply(eq.disable_fake_quant)
    x = ember.from_numpy(_batches()[0])
    assert e(x) is x


def test_default_qconfigs_build_torch_equivalent_observers():
    for backend in ("x86", "fbgemm", "qnnpack", "onednn"):
        tqc, eqc = tq.get_default_qconfig(backend), eq.get_default_qconfig(backend)
        for part in ("activation", "weight"):
            to, eo = getattr(tqc, part)(), getattr(eqc, part)()
            assert type(to).__name__ == type(eo).__name__
            assert (to.quant_min, to.quant_max, repr(to.dtype), repr(to.qscheme)) == \
                   (eo.quant_min, eo.quant_max, repr(eo.dtype), repr(eo.qscheme))
        tq_qat, eq_qat = tq.get_default_qat_qconfig(backend), eq.get_default_qat_qconfig(backend)
        for part in ("activation", "weight"):
            to, eo = getattr(tq_qat, part)(), getattr(eq_qat, part)()
            assert (to.quant_min, to.quant_max, repr(to.dtype), repr(to.qscheme)) == \
                   (eo.quant_min, eo.quant_max, repr(eo.dtype), repr(eo.qscheme))
    tm, em = tq.get_default_qconfig_mapping("x86"), eq.get_default_qconfig_mapping("x86")
    assert len(tm.object_type_qconfigs) == len(em.object_type_qconfigs)
    assert repr(em).startswith("QConfigMapping (\n global_qconfig\n  QConfig(")
