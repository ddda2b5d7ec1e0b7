"""Models for the AOT autograd tests and bench/aot_gpt.py, written once against a torch-like
namespace (``lib`` is ember or torch), so both libraries build the same model."""
import types


def build(lib):
    """A namespace of the model classes written with ``lib``."""
    nn, F = lib.nn, lib.nn.functional
    ember = lib

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(8, 16), nn.Linear(16, 4)

        def forward(self, x):
            return self.fc2(F.relu(self.fc1(x)))

    class CNNBN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.fc = nn.Linear(4 * 4 * 4, 5)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
            return self.fc(ember.flatten(x, 1))

    class LSTMNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(6, 8, batch_first=True)
            self.head = nn.Linear(8, 3)

        def forward(self, x):
            out, _ = self.lstm(x)
            return self.head(out[:, -1])

    class Block(nn.Module):
        """A pre-norm GPT block: causal self-attention and an MLP, both residual, with dropout."""

        def __init__(self, n_embd, n_head, block_size, dropout=0.0):
            super().__init__()
            self.n_head = n_head
            self.ln_1, self.ln_2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)
            self.c_attn = nn.Linear(n_embd, 3 * n_embd)
            self.c_proj = nn.Linear(n_embd, n_embd)
            self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
                                     nn.Linear(4 * n_embd, n_embd), nn.Dropout(dropout))
            self.drop = nn.Dropout(dropout)
            self.register_buffer("mask", ember.tril(ember.ones(block_size, block_size))
                                 .view(1, 1, block_size, block_size))

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.c_attn(self.ln_1(x)).split(C, dim=2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # shape: (B, nh, T, hs)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / (C // self.n_head) ** 0.5)
            att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
            att = self.drop(F.softmax(att, dim=-1))
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
            x = x + self.c_proj(y)
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self, vocab=64, n_layer=4, n_head=4, n_embd=128, block_size=64, dropout=0.0):
            super().__init__()
            self.wte = nn.Embedding(vocab, n_embd)
            self.wpe = nn.Embedding(block_size, n_embd)
            self.drop = nn.Dropout(dropout)
            self.h = nn.ModuleList([Block(n_embd, n_head, block_size, dropout) for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd)
            self.lm_head = nn.Linear(n_embd, vocab, bias=False)
            self.wte.weight = self.lm_head.weight  # weight tying, as nanoGPT

        def forward(self, idx, targets):
            B, T = idx.shape
            pos = ember.arange(0, T, dtype=ember.long)
            x = self.drop(self.wte(idx) + self.wpe(pos))
            for block in self.h:
                x = block(x)
            logits = self.lm_head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))

    return types.SimpleNamespace(MLP=MLP, CNNBN=CNNBN, LSTMNet=LSTMNet, Block=Block, GPT=GPT)
