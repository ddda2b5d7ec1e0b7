"""Tiny models for the compiler zoo (tests/_dynamo/test_zoo.py); sizes kept small for test time."""
import ember
import ember.nn as nn
import ember.nn.functional as F


class MLP(nn.Module):
    def __init__(s):
        super().__init__(); s.l1 = nn.Linear(4, 8); s.l2 = nn.Linear(8, 2)
    def forward(s, x):
        return s.l2(F.relu(s.l1(x)))

class CNN(nn.Module):
    def __init__(s):
        super().__init__(); s.c = nn.Conv2d(1, 2, 3, padding=1); s.bn = nn.BatchNorm2d(2); s.fc = nn.Linear(2*4*4, 3)
    def forward(s, x):
        x = F.max_pool2d(F.relu(s.bn(s.c(x))), 2)
        return s.fc(x.flatten(1))

class LSTMNet(nn.Module):
    def __init__(s):
        super().__init__(); s.lstm = nn.LSTM(3, 4, batch_first=True); s.head = nn.Linear(4, 2)
    def forward(s, x):
        out, (h, c) = s.lstm(x)
        return s.head(out[:, -1])

class Block(nn.Module):
    def __init__(s, d=8, h=2):
        super().__init__(); s.ln1 = nn.LayerNorm(d); s.attn = nn.MultiheadAttention(d, h, batch_first=True)
        s.ln2 = nn.LayerNorm(d); s.mlp = nn.Sequential(nn.Linear(d, 4*d), nn.GELU(), nn.Linear(4*d, d))
    def forward(s, x):
        y = s.ln1(x)
        x = x + s.attn(y, y, y, need_weights=False)[0]
        return x + s.mlp(s.ln2(x))

class CausalSelfAttention(nn.Module):
    def __init__(s, d, h):
        super().__init__(); s.qkv = nn.Linear(d, 3*d); s.proj = nn.Linear(d, d); s.h = h
    def forward(s, x):
        B, T, C = x.size()
        q, k, v = s.qkv(x).split(C, dim=2)
        q = q.view(B, T, s.h, C // s.h).transpose(1, 2)
        k = k.view(B, T, s.h, C // s.h).transpose(1, 2)
        v = v.view(B, T, s.h, C // s.h).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return s.proj(y)

class GPTBlock(nn.Module):
    def __init__(s, d, h):
        super().__init__(); s.ln_1 = nn.LayerNorm(d); s.attn = CausalSelfAttention(d, h); s.ln_2 = nn.LayerNorm(d)
        s.mlp = nn.ModuleDict(dict(c_fc=nn.Linear(d, 4*d), c_proj=nn.Linear(4*d, d), act=nn.GELU(approximate='tanh')))
    def forward(s, x):
        x = x + s.attn(s.ln_1(x))
        m = s.mlp
        return x + m.c_proj(m.act(m.c_fc(s.ln_2(x))))

class GPT(nn.Module):
    def __init__(s, V=16, T=8, d=8, h=2, L=2):
        super().__init__()
        s.transformer = nn.ModuleDict(dict(wte=nn.Embedding(V, d), wpe=nn.Embedding(T, d),
            h=nn.ModuleList([GPTBlock(d, h) for _ in range(L)]), ln_f=nn.LayerNorm(d)))
        s.lm_head = nn.Linear(d, V, bias=False)
        s.transformer.wte.weight = s.lm_head.weight
    def forward(s, idx, targets=None):
        b, t = idx.size()
        pos = ember.arange(0, t, dtype=ember.long)
        x = s.transformer.wte(idx) + s.transformer.wpe(pos)
        for block in s.transformer.h:
            x = block(x)
        x = s.transformer.ln_f(x)
        logits = s.lm_head(x)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss

