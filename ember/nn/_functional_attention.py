"""Attention of ``ember.nn.functional`` (layer L4): scaled_dot_product_attention and
multi_head_attention_forward, composites over matmul and the softmax primitive.

Example:
    >>> import ember
    >>> import ember.nn.functional as F
    >>> q = ember.ones(1, 2, 4)
    >>> F.scaled_dot_product_attention(q, q, q).shape
    torch.Size([1, 2, 4])
"""
from __future__ import annotations

import math

from .. import _dtype as D
from .._dispatch import dispatch
from .._tensor_methods.pointwise import where
from .._primitives import nn_ops as NN
from ._functional_pad_fold_shuffle import pad
from ._functional_linear import linear
from ._functional_misc import dropout
from ..overrides import public

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _repeat_heads(t, heads: int):
    """``t.repeat_interleave(heads // Hk, dim=-3)`` through a broadcast view."""
    hk = t.shape[-3]
    if heads % hk:
        raise RuntimeError(f"number of heads in key/value must divide number of heads in query "
                           f"({heads} vs {hk})")
    lead, (s, e) = tuple(t.shape[:-3]), tuple(t.shape[-2:])
    # shape: (*, Hk, rep, S, E) -> (*, H, S, E)
    return t.unsqueeze(-3).expand(lead + (hk, heads // hk, s, e)).reshape(lead + (heads, s, e))


@public
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale=None, enable_gqa: bool = False):
    """``softmax(q @ k^T * scale + mask) @ v``; q ``(*, L, E)``, k ``(*, S, E)``, v ``(*, S, Ev)``.

    A boolean ``attn_mask`` marks positions that take part; a float mask is added to the scores.
    ``enable_gqa`` lets key/value have fewer heads (dim -3) than query, repeated to match.
    """
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("scaled_dot_product_attention: expected query, key and value to have at "
                           "least 2 dimensions")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                           "is_causal=True")
    L, S = query.shape[-2], key.shape[-2]
    scale_factor = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa and query.dim() >= 3 and key.shape[-3] != query.shape[-3]:
        key, value = _repeat_heads(key, query.shape[-3]), _repeat_heads(value, query.shape[-3])
    scores = query.matmul(key.transpose(-2, -1))
    scores = scores * scale_factor
    if is_causal:
        ones = query.new_ones((L, S), dtype=D.bool)
        scores = scores.masked_fill(~ones.tril(), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype is D.bool:
            scores = scores.masked_fill(~attn_mask, float("-inf"))
        else:
            scores = scores + attn_mask
    attn = dispatch(NN.softmax, scores, dim=scores.dim() - 1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, training=True)
    return attn.matmul(value)


def _in_projection(q, k, v, w, b, e, same):
    """Project query, key and value with the packed ``(3E, E)`` weight."""
    if same:
        proj = linear(q, w, b)
        return proj.chunk(3, -1)
    wq, wk, wv = w.chunk(3)
    bq, bk, bv = b.chunk(3) if b is not None else (None, None, None)
    return linear(q, wq, bq), linear(k, wk, bk), linear(v, wv, bv)


@public
def multi_head_attention_forward(query, key, value, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn: bool,
                                 dropout_p: float, out_proj_weight, out_proj_bias,
                                 training: bool = True, key_padding_mask=None,
                                 need_weights: bool = True, attn_mask=None,
                                 use_separate_proj_weight: bool = False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True,
                                 is_causal: bool = False):
    """torch's functional multi-head attention: inputs ``(L, N, E)`` (or unbatched ``(L, E)``).

    Returns ``(output (L, N, E), weights (N, L, S) or None)``.
    """
    from .._tensor_methods.shape_copy import cat
    batched = query.dim() == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got "
                             f"{embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to create "
                           "this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # sdpa applies the causal mask itself
    else:
        is_causal = False
    if not use_separate_proj_weight:
        q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, embed_dim,
                                 query is key and key is value)
    else:
        bq, bk, bv = in_proj_bias.chunk(3) if in_proj_bias is not None else (None, None, None)
        q, k, v = linear(query, q_proj_weight, bq), linear(key, k_proj_weight, bk), \
            linear(value, v_proj_weight, bv)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            attn_mask = attn_mask.unsqueeze(0)
        if attn_mask.dtype is D.bool:  # True means "masked" here (the opposite of sdpa's convention)
            attn_mask = where(attn_mask, float("-inf"), 0.0).to(q.dtype)
    if bias_k is not None and bias_v is not None:
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    # shape: (N * H, L, Dh)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = (static_k if static_k is not None else
         k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1))
    v = (static_v if static_v is not None else
         v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1))
    if add_zero_attn:
        k = cat([k, k.new_zeros((bsz * num_heads, 1, head_dim))], 1)
        v = cat([v, v.new_zeros((bsz * num_heads, 1, head_dim))], 1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        kpm = key_padding_mask
        if kpm.dtype is D.bool:
            kpm = where(kpm, float("-inf"), 0.0).to(q.dtype)
        # shape: (N * H, 1, S)
        kpm = kpm.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len).reshape(
            bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    if need_weights:
        scores = q.matmul(k.transpose(-2, -1)) * (1.0 / math.sqrt(head_dim))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = dispatch(NN.softmax, scores, dim=2)
        if dropout_p > 0.0:
            weights = dropout(weights, dropout_p)
        out = weights.matmul(v)  # shape: (N * H, L, Dh)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        attn_mask = (attn_mask.reshape(bsz, num_heads, -1, src_len) if attn_mask.shape[0] != 1
                     else attn_mask.unsqueeze(0))
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    if not batched:
        out = out.squeeze(1)
    return out, None
