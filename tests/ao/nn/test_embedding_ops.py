"""Quantized Embedding / EmbeddingBag (float per-row qparams) against torch, identical weights."""
import numpy as np
import pytest
import torch
import torch.ao.nn.quantized as tnnq
import torch.ao.quantization as tq

import ember
import ember.ao.nn.quantized as ennq
import ember.ao.quantization as eq
from tests.ao.quantization._helpers import copy_weights, to_ember, to_torch

pytestmark = pytest.mark.filterwarnings("ignore")


def _pair(cls_name, **kw):
    torch.manual_seed(0)
    t = getattr(torch.nn, cls_name)(30, 8, **kw)
    e = getattr(ember.nn, cls_name)(30, 8, **kw)
    copy_weights(t, e)
    t.qconfig, e.qconfig = tq.float_qparams_weight_only_qconfig, eq.float_qparams_weight_only_qconfig
    return getattr(tnnq, cls_name).from_float(t), getattr(ennq, cls_name).from_float(e)


def test_quantized_embedding_matches_torch():
    t, e = _pair("Embedding")
    tw, ew = t.weight(), e.weight()
    assert repr(e) == repr(t) and repr(ew.qscheme()) == repr(tw.qscheme())
    np.testing.assert_array_equal(ew.int_repr().numpy(), tw.int_repr().numpy())
    np.testing.assert_array_equal(ew.q_per_channel_scales().numpy(), tw.q_per_channel_scales().numpy())
    np.testing.assert_array_equal(ew.q_per_channel_zero_points().numpy(),
                                  tw.q_per_channel_zero_points().numpy())
    idx = np.random.default_rng(0).integers(0, 30, (4, 5))
    np.testing.assert_allclose(e(ember.tensor(idx)).numpy(), t(torch.tensor(idx)).numpy(), rtol=1e-6, atol=1e-6)
    assert list(e.state_dict()) == list(t.state_dict())
    e2 = ennq.Embedding(30, 8)
    e2.load_state_dict(to_ember(t.state_dict()))
    np.testing.assert_allclose(e2(ember.tensor(idx)).numpy(), t(torch.tensor(idx)).numpy(), rtol=1e-6, atol=1e-6)
    t2 = tnnq.Embedding(30, 8)
    t2.load_state_dict(to_torch(e.state_dict()))
    np.testing.assert_array_equal(t2(torch.tensor(idx)).numpy(), t(torch.tensor(idx)).numpy())


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_quantized_embedding_bag_matches_torch(mode):
    t, e = _pair("EmbeddingBag", mode=mode)
    idx = np.random.default_rng(1).integers(0, 30, 12)
    offsets = np.array([0, 3, 7])
    ty = t(torch.tensor(idx), torch.tensor(offsets)).numpy()
    ey = e(ember.tensor(idx), ember.tensor(offsets)).numpy()
    np.testing.assert_allclose(ey, ty, rtol=1e-5, atol=1e-5)
