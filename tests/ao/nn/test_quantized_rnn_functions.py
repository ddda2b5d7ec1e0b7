"""torch.quantized_lstm / quantized_gru and the quantized RNN cells against torch."""
import numpy as np
import pytest
import torch
import torch.ao.nn.quantized.dynamic as tnnqd

import ember
import ember.ao.nn.quantized.dynamic as ennqd

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


def _e(t):
    return ember.from_numpy(t.detach().numpy().copy())


@pytest.mark.parametrize("cell", ["lstm", "rnn_tanh", "rnn_relu", "gru"])
def test_cells_match_torch(cell):
    torch.manual_seed(0)
    gates = {"lstm": 4, "gru": 3}.get(cell, 1)
    B, I, H = 3, 6, 5
    x, h, c = torch.randn(B, I) * 2, torch.randn(B, H), torch.randn(B, H)
    w_ih, w_hh, b_ih, b_hh = (torch.randn(gates * H, I), torch.randn(gates * H, H),
                              torch.randn(gates * H), torch.randn(gates * H))
    q_ih, col_ih, s_ih, z_ih = torch.fbgemm_linear_quantize_weight(w_ih)
    q_hh, col_hh, s_hh, z_hh = torch.fbgemm_linear_quantize_weight(w_hh)
    p_ih, p_hh = torch.fbgemm_pack_quantized_matrix(q_ih), torch.fbgemm_pack_quantized_matrix(q_hh)
    hx_t, hx_e = ([h, c], [_e(h), _e(c)]) if cell == "lstm" else (h, _e(h))
    fn = f"quantized_{cell}_cell"
    expected = getattr(torch, fn)(x, hx_t, q_ih, q_hh, b_ih, b_hh, p_ih, p_hh, col_ih, col_hh,
                                  s_ih, s_hh, z_ih, z_hh)
    got = getattr(ember, fn)(_e(x), hx_e, _e(q_ih), _e(q_hh), _e(b_ih), _e(b_hh), None, None, None,
                             None, s_ih, s_hh, z_ih, z_hh)
    for g, t in zip(got, expected) if cell == "lstm" else [(got, expected)]:
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_functional_rnn_matches_torch(kind):
    torch.manual_seed(1)
    m = getattr(torch.nn, kind)(4, 5, num_layers=2, bidirectional=True)
    m.qconfig = torch.ao.quantization.default_dynamic_qconfig
    tq = getattr(tnnqd, kind).from_float(m)
    em = getattr(ember.nn, kind)(4, 5, num_layers=2, bidirectional=True)
    em.load_state_dict({k: _e(v) for k, v in m.state_dict().items()})
    em.qconfig = ember.ao.quantization.default_dynamic_qconfig
    eq = getattr(ennqd, kind).from_float(em)
    x, h = torch.randn(3, 2, 4), torch.randn(4, 2, 5)
    t_params = [p.param for p in tq._all_weight_values]
    e_params = [p.param for p in eq._all_weight_values]
    if kind == "LSTM":
        t_out = torch.quantized_lstm(x, [h, h], t_params, True, 2, 0.0, False, True, False,
                                     dtype=torch.qint8, use_dynamic=True)
        e_out = ember.quantized_lstm(_e(x), [_e(h), _e(h)], e_params, True, 2, 0.0, False, True,
                                     False, dtype=ember.qint8, use_dynamic=True)
    else:
        t_out = torch.quantized_gru(x, h, t_params, True, 2, 0.0, False, True, False)
        e_out = ember.quantized_gru(_e(x), _e(h), e_params, True, 2, 0.0, False, True, False)
    assert len(e_out) == len(t_out)
    for g, t in zip(e_out, t_out):
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-4, atol=1e-5)
    # torch's legacy form (a list of plain tensors) is refused with the same error class
    with pytest.raises(RuntimeError, match="no longer supported"):
        torch.quantized_gru(x, h, [torch.zeros(15, 4)], True, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="no longer supported"):
        ember.quantized_gru(_e(x), _e(h), [ember.zeros(15, 4)], True, 1, 0.0, False, False, False)
