"""quantize_dynamic against torch: an MLP and an LSTM/GRU language model with identical weights."""
import warnings

import numpy as np
import pytest
import torch
import torch.ao.quantization as tq

import ember
import ember.ao.quantization as eq
from ember import nn as enn

from ._helpers import copy_weights, inputs, to_ember, to_torch

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning",
                                        "ignore:.*quantized tensor creation functions")


def _mlp(nn):
    return nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 5))


class _LM:
    @staticmethod
    def make(nn, cell):
        class LM(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(50, 16)
                self.rnn = getattr(nn, cell)(16, 24, num_layers=2)
                self.head = nn.Linear(24, 50)

            def forward(self, tokens):
                out = self.rnn(self.emb(tokens))[0]
                return self.head(out)
        return LM()


def test_quantize_dynamic_mlp_matches_torch():
    torch.manual_seed(0)
    tm = _mlp(torch.nn)
    em = _mlp(enn)
    copy_weights(tm, em)
    tq_m, eq_m = tq.quantize_dynamic(tm), eq.quantize_dynamic(em)
    assert list(eq_m.state_dict()) == list(tq_m.state_dict())
    for i in (0, 2, 4):
        tw, ew = tq_m[i].weight(), eq_m[i].weight()
        np.testing.assert_array_equal(ew.int_repr().numpy(), tw.int_repr().numpy())
        assert ew.q_scale() == tw.q_scale() and ew.q_zero_point() == tw.q_zero_point()
    tx, ex = inputs((16, 20), seed=1, scale=2.0)
    ty, ey = tq_m(tx).detach().numpy(), eq_m(ex).numpy()
    fy = tm(tx).detach().numpy()
    # identical integer arithmetic: agreement far tighter than the quantization error itself
    assert np.abs(ey - ty).max() <= 1e-5 * max(1.0, np.abs(ty).max())
    assert np.abs(ey - fy).max() < 0.05
    # a single dynamic linear: exact up to float32 rounding of the output
    ty1, ey1 = tq_m[0](tx).detach().numpy(), eq_m[0](ex).numpy()
    np.testing.assert_allclose(ey1, ty1, rtol=1e-5, atol=1e-6)


def test_quantize_dynamic_mlp_checkpoint_exchange():
    torch.manual_seed(1)
    tq_m = tq.quantize_dynamic(_mlp(torch.nn))
    eq_m = eq.quantize_dynamic(_mlp(enn))
    eq_m.load_state_dict(to_ember(tq_m.state_dict()))
    tx, ex = inputs((4, 20), seed=2)
    np.testing.assert_allclose(eq_m(ex).numpy(), tq_m(tx).detach().numpy(), rtol=1e-5, atol=1e-5)
    tq_m2 = tq.quantize_dynamic(_mlp(torch.nn))
    tq_m2.load_state_dict(to_torch(eq_m.state_dict()))
    np.testing.assert_allclose(tq_m2(tx).detach().numpy(), tq_m(tx).detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("cell", ["LSTM", "GRU"])
def test_quantize_dynamic_rnn_language_model_matches_torch(cell):
    torch.manual_seed(2)
    tm, em = _LM.make(torch.nn, cell), _LM.make(enn, cell)
    copy_weights(tm, em)
    spec = {torch.nn.LSTM, torch.nn.GRU, torch.nn.Linear}
    tq_m = tq.quantize_dynamic(tm, spec)
    eq_m = eq.quantize_dynamic(em, {enn.LSTM, enn.GRU, enn.Linear})
    assert type(eq_m.rnn).__name__ == cell and repr(eq_m.rnn) == repr(tq_m.rnn)
    tokens = np.random.default_rng(3).integers(0, 50, (12, 3))
    ty = tq_m(torch.from_numpy(tokens)).detach().numpy()
    ey = eq_m(ember.from_numpy(tokens)).numpy()
    fy = tm(torch.from_numpy(tokens)).detach().numpy()
    assert np.abs(ey - ty).max() < 1e-4
    assert np.abs(ey - fy).max() < 0.05
    # torch's pickled TorchScript cell params load into ember only with weights_only=False
    with pytest.raises(Exception):
        to_ember(tq_m.rnn.state_dict(), weights_only=True)
    fresh = eq.quantize_dynamic(_LM.make(enn, cell), {enn.LSTM, enn.GRU, enn.Linear})
    fresh.rnn.load_state_dict(to_ember(tq_m.rnn.state_dict(), weights_only=False))
    fresh.emb.load_state_dict(eq_m.emb.state_dict())
    fresh.head.load_state_dict(eq_m.head.state_dict())
    np.testing.assert_array_equal(fresh(ember.from_numpy(tokens)).numpy(), ey)


def test_quantize_dynamic_warns_deprecation_and_rejects_other_dtypes():
    with pytest.warns(DeprecationWarning, match="torch.ao.quantization is deprecated"):
        eq.quantize_dynamic(_mlp(enn))
    with pytest.raises(ValueError):
        eq.quantize_dynamic(_mlp(enn), dtype=ember.quint8)
