"""Transformer layers and stacks against torch with copied weights (train and eval)."""
import pytest
import torch

import ember
from ember import nn

from ._modcheck import check_module

D_MODEL, NHEAD, FF = 8, 2, 16


def _seq(n, s, batch_first):
    return torch.randn((n, s, D_MODEL) if batch_first else (s, n, D_MODEL), requires_grad=True)


ENC_CASES = [dict(), dict(batch_first=True), dict(norm_first=True, activation="gelu"),
             dict(bias=False, layer_norm_eps=1e-3)]


@pytest.mark.parametrize("kw", ENC_CASES)
def test_encoder_layer(kw):
    torch.manual_seed(0)
    kw = dict(kw, dropout=0.0)
    tm = torch.nn.TransformerEncoderLayer(D_MODEL, NHEAD, FF, **kw)
    em = nn.TransformerEncoderLayer(D_MODEL, NHEAD, FF, **kw)
    bf = kw.get("batch_first", False)
    x = _seq(3, 5, bf)
    check_module(tm, em, [x], rtol=1e-4, atol=1e-5)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5)
    kpm = torch.zeros(3, 5, dtype=torch.bool)
    kpm[1, 3:] = True
    check_module(tm, em, [x], kwargs=dict(src_mask=mask, is_causal=True), rtol=1e-4, atol=1e-5)
    check_module(tm, em, [x], kwargs=dict(src_key_padding_mask=kpm), rtol=1e-4, atol=1e-5,
                 modes=("train",))


@pytest.mark.parametrize("kw", ENC_CASES[:3])
def test_decoder_layer(kw):
    torch.manual_seed(1)
    kw = dict(kw, dropout=0.0)
    tm = torch.nn.TransformerDecoderLayer(D_MODEL, NHEAD, FF, **kw)
    em = nn.TransformerDecoderLayer(D_MODEL, NHEAD, FF, **kw)
    bf = kw.get("batch_first", False)
    tgt, mem = _seq(2, 4, bf), _seq(2, 6, bf)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4)
    mkpm = torch.zeros(2, 6, dtype=torch.bool)
    mkpm[0, 4:] = True
    check_module(tm, em, [tgt, mem], kwargs=dict(tgt_mask=mask, memory_key_padding_mask=mkpm),
                 rtol=1e-4, atol=1e-5)


def test_stacks_and_transformer():
    torch.manual_seed(2)
    tl = torch.nn.TransformerEncoderLayer(D_MODEL, NHEAD, FF, dropout=0.0)
    el = nn.TransformerEncoderLayer(D_MODEL, NHEAD, FF, dropout=0.0)
    tenc = torch.nn.TransformerEncoder(tl, 2, norm=torch.nn.LayerNorm(D_MODEL),
                                       enable_nested_tensor=False)
    eenc = nn.TransformerEncoder(el, 2, norm=nn.LayerNorm(D_MODEL), enable_nested_tensor=False)
    x = _seq(3, 5, False)
    check_module(tenc, eenc, [x], kwargs=dict(mask=torch.nn.Transformer.generate_square_subsequent_mask(5)),
                 rtol=1e-4, atol=1e-5)
    tdl = torch.nn.TransformerDecoderLayer(D_MODEL, NHEAD, FF, dropout=0.0, batch_first=True)
    edl = nn.TransformerDecoderLayer(D_MODEL, NHEAD, FF, dropout=0.0, batch_first=True)
    tdec, edec = torch.nn.TransformerDecoder(tdl, 2), nn.TransformerDecoder(edl, 2)
    check_module(tdec, edec, [_seq(2, 4, True), _seq(2, 6, True)], rtol=1e-4, atol=1e-5)
    tt = torch.nn.Transformer(D_MODEL, NHEAD, 2, 1, FF, dropout=0.0, norm_first=True)
    et = nn.Transformer(D_MODEL, NHEAD, 2, 1, FF, dropout=0.0, norm_first=True)
    check_module(tt, et, [_seq(2, 5, False), _seq(2, 4, False)],
                 kwargs=dict(tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(4)),
                 rtol=1e-4, atol=1e-5)


def test_mask_helper_and_errors():
    m = nn.Transformer.generate_square_subsequent_mask(3)
    assert m.tolist() == torch.nn.Transformer.generate_square_subsequent_mask(3).tolist()
    t = nn.Transformer(D_MODEL, NHEAD, 1, 1, FF)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        t(ember.zeros(4, 2, D_MODEL), ember.zeros(4, 3, D_MODEL))
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal"):
        t(ember.zeros(4, 2, 4), ember.zeros(4, 2, 4))
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(D_MODEL, NHEAD, activation="tanh")


def test_dropout_is_active_in_training_only():
    layer = nn.TransformerEncoderLayer(D_MODEL, NHEAD, FF, dropout=0.5)
    x = ember.randn(4, 2, D_MODEL)
    assert not bool((layer(x) == layer(x)).all())
    layer.eval()
    assert bool((layer(x) == layer(x)).all())
