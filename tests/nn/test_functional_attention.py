"""scaled_dot_product_attention and multi_head_attention_forward against torch."""
import pytest
import torch

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck

from ._helpers import assert_close, compare_functional, randn64, to_ember


@pytest.mark.parametrize("opts", [{}, {"is_causal": True}, {"scale": 0.3}, {"mask": "bool"},
                                  {"mask": "float"}])
def test_sdpa(opts):
    q, k, v = randn64(2, 3, 4, 8), randn64(2, 3, 6, 8), randn64(2, 3, 6, 5)
    kw = dict(opts)
    m = kw.pop("mask", None)
    if m == "bool":
        mask = torch.rand(4, 6) > 0.3
        mask[:, 0] = True
        kw["attn_mask"] = mask
    elif m == "float":
        kw["attn_mask"] = torch.randn(2, 1, 4, 6, dtype=torch.float64)
    if opts.get("is_causal"):
        k, v = randn64(2, 3, 4, 8), randn64(2, 3, 4, 5)
    compare_functional("scaled_dot_product_attention", [q, k, v], **kw)


def test_sdpa_gqa_gradcheck_and_errors():
    compare_functional("scaled_dot_product_attention",
                       [randn64(2, 4, 3, 8), randn64(2, 2, 5, 8), randn64(2, 2, 5, 8)],
                       enable_gqa=True)
    q = ember.randn(1, 2, 3, dtype=ember.float64, requires_grad=True)
    assert gradcheck(lambda a: F.scaled_dot_product_attention(a, a, a, is_causal=True), (q,))
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=ember.ones(2, 2, dtype=ember.bool),
                                       is_causal=True)
    ember.manual_seed(0)
    out = F.scaled_dot_product_attention(ember.randn(2, 4, 8), ember.randn(2, 4, 8),
                                         ember.randn(2, 4, 8), dropout_p=0.5)
    assert out.shape == (2, 4, 8)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("masks", [False, True])
def test_multi_head_attention_forward(need_weights, masks):
    E, H, L, S, N = 8, 2, 4, 5, 3
    q, k, v = randn64(L, N, E), randn64(S, N, E), randn64(S, N, E)
    w, b = randn64(3 * E, E), randn64(3 * E)
    ow, ob = randn64(E, E), randn64(E)
    kw = {}
    if masks:
        kw["key_padding_mask"] = torch.tensor([[False] * 4 + [True]] * N)
        kw["attn_mask"] = torch.randn(L, S, dtype=torch.float64)
    args = [q, k, v, E, H, w, b, None, None, False, 0.0, ow, ob]
    tt = [a.detach().clone().requires_grad_() if isinstance(a, torch.Tensor) else a for a in args]
    et = [to_ember(a) if isinstance(a, torch.Tensor) else a for a in tt]
    ekw = {n: to_ember(a) for n, a in kw.items()}
    ot, wt = torch.nn.functional.multi_head_attention_forward(*tt, need_weights=need_weights, **kw)
    oe, we = F.multi_head_attention_forward(*et, need_weights=need_weights, **ekw)
    assert_close(oe, ot)
    if need_weights:
        assert_close(we, wt)
    else:
        assert we is None and wt is None
    g = torch.randn(ot.shape, dtype=ot.dtype)
    ot.backward(g)
    oe.backward(to_ember(g))
    for a, t in zip(et, tt):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            assert_close(a.grad, t.grad)
