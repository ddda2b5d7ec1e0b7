"""torch.quantized_max_pool3d, F.max_pool3d on quantized tensors, torch.empty_quantized (issue 22)."""
import numpy as np
import torch

import ember


def test_quantized_max_pool3d_matches_torch():
    x = np.random.default_rng(0).standard_normal((2, 2, 5, 4, 6)).astype(np.float32)
    for dt in ("quint8", "qint8"):
        qe = ember.quantize_per_tensor(ember.tensor(x), 0.05, 3, getattr(ember, dt))
        qt = torch.quantize_per_tensor(torch.tensor(x), 0.05, 3, getattr(torch, dt))
        for args in (([2, 2, 2], [2, 1, 2], [1, 0, 1], [1, 1, 1], True),
                     ([3, 2, 2], [1, 2, 2], [0, 1, 0], [1, 1, 2], False)):
            re_, rt = ember.quantized_max_pool3d(qe, *args), torch.quantized_max_pool3d(qt, *args)
            np.testing.assert_array_equal(re_.int_repr().numpy(), rt.int_repr().numpy())
            assert (re_.q_scale(), re_.q_zero_point(), str(re_.dtype)) == \
                (rt.q_scale(), rt.q_zero_point(), str(rt.dtype))
        re_ = ember.nn.functional.max_pool3d(qe, 2)
        rt = torch.nn.functional.max_pool3d(qt, 2)
        np.testing.assert_array_equal(re_.int_repr().numpy(), rt.int_repr().numpy())


def test_empty_quantized_takes_the_quantizer():
    qe = ember.quantize_per_tensor(ember.ones(2), 0.1, 3, ember.quint8)
    qt = torch.quantize_per_tensor(torch.ones(2), 0.1, 3, torch.quint8)
    e, t = ember.empty_quantized([2, 3], qe), torch.empty_quantized([2, 3], qt)
    assert (tuple(e.shape), str(e.dtype), e.q_scale(), e.q_zero_point(), str(e.qscheme())) == \
        (tuple(t.shape), str(t.dtype), t.q_scale(), t.q_zero_point(), str(t.qscheme()))
    sc, zp = [0.1, 0.2, 0.3], [1, 2, 3]
    qe = ember.quantize_per_channel(ember.ones(3, 2), ember.tensor(sc, dtype=ember.float64),
                                    ember.tensor(zp), 0, ember.qint8)
    qt = torch.quantize_per_channel(torch.ones(3, 2), torch.tensor(sc, dtype=torch.float64),
                                    torch.tensor(zp), 0, torch.qint8)
    e, t = ember.empty_quantized([3, 5], qe), torch.empty_quantized([3, 5], qt)
    assert tuple(e.shape) == tuple(t.shape)
    assert e.q_per_channel_scales().tolist() == t.q_per_channel_scales().tolist()
    assert e.q_per_channel_axis() == t.q_per_channel_axis()
