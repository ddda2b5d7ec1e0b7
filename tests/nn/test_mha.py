"""MultiheadAttention against torch with copied weights: every option, masks, weights."""
import numpy as np
import pytest
import torch

import ember
from ember import nn

from ._modcheck import check_module

E, H = 8, 2


def _qkv(batch_first=False, kdim=E, vdim=E, same=False, unbatched=False):
    L, S, N = 5, 6, 3
    if unbatched:
        q = torch.randn(L, E, requires_grad=True)
        return (q, q, q) if same else (q, torch.randn(S, kdim, requires_grad=True),
                                       torch.randn(S, vdim, requires_grad=True))
    shape = (lambda n, s, d: (n, s, d)) if batch_first else (lambda n, s, d: (s, n, d))
    q = torch.randn(shape(N, L, E), requires_grad=True)
    if same:
        return q, q, q
    return q, torch.randn(shape(N, S, kdim), requires_grad=True), \
        torch.randn(shape(N, S, vdim), requires_grad=True)


CASES = [
    (dict(), dict(same=True), dict()),
    (dict(batch_first=True), dict(batch_first=True, same=True), dict(need_weights=False)),
    (dict(kdim=4, vdim=3), dict(kdim=4, vdim=3), dict(average_attn_weights=False)),
    (dict(add_bias_kv=True, add_zero_attn=True), dict(), dict()),
    (dict(bias=False), dict(), dict(need_weights=False)),
    (dict(batch_first=True, kdim=4, vdim=4), dict(batch_first=True, kdim=4, vdim=4), dict()),
    (dict(), dict(unbatched=True), dict()),
]


@pytest.mark.parametrize("kw,inp,call", CASES)
def test_mha_matches_torch(kw, inp, call):
    torch.manual_seed(0)
    tm, em = torch.nn.MultiheadAttention(E, H, **kw), nn.MultiheadAttention(E, H, **kw)
    if kw.get("bias", True):
        with torch.no_grad():
            tm.in_proj_bias.uniform_(-0.3, 0.3)
            tm.out_proj.bias.uniform_(-0.3, 0.3)
    check_module(tm, em, list(_qkv(**inp)), kwargs=call, modes=("eval",), rtol=1e-4, atol=1e-5)


def test_mha_masks():
    torch.manual_seed(1)
    tm, em = torch.nn.MultiheadAttention(E, H), nn.MultiheadAttention(E, H)
    q, k, v = _qkv()
    kpm = torch.zeros(3, 6, dtype=torch.bool)
    kpm[1, 4:] = True
    kpm[2, 5] = True
    attn = torch.randn(5, 6)
    bool_attn = torch.rand(5, 6) > 0.8
    bool_attn[:, 0] = False
    for kwargs in (dict(key_padding_mask=kpm), dict(attn_mask=attn),
                   dict(attn_mask=bool_attn, key_padding_mask=kpm),
                   dict(attn_mask=torch.randn(3 * H, 5, 6), need_weights=False),
                   dict(key_padding_mask=kpm.float() * -5.0, average_attn_weights=False)):
        check_module(tm, em, [q, k, v], kwargs=kwargs, modes=("eval",), rtol=1e-4, atol=1e-5)


def test_mha_causal_and_errors():
    torch.manual_seed(2)
    tm, em = torch.nn.MultiheadAttention(E, H), nn.MultiheadAttention(E, H)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5)
    q = torch.randn(5, 2, E, requires_grad=True)
    check_module(tm, em, [q, q, q], kwargs=dict(attn_mask=mask, is_causal=True,
                                                need_weights=False), modes=("eval",),
                 rtol=1e-4, atol=1e-5)
    for lib in (torch, ember):
        with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
            lib.nn.MultiheadAttention(7, 2)
        with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0"):
            lib.nn.MultiheadAttention(0, 2)


def test_mha_state_dict_and_init():
    m = nn.MultiheadAttention(16, 4, kdim=8, add_bias_kv=True)
    t = torch.nn.MultiheadAttention(16, 4, kdim=8, add_bias_kv=True)
    assert list(m.state_dict()) == list(t.state_dict())
    assert type(m.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert m.in_proj_bias.abs().sum().item() == 0 and m.out_proj.bias.abs().sum().item() == 0
    w = m.q_proj_weight.detach().numpy()
    assert np.abs(w).max() <= np.sqrt(6 / 32)
