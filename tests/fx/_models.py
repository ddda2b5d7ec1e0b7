"""Small models written once against a torch-like namespace, so ember and torch build the same one."""


def build(lib, name):
    nn, F = lib.nn, lib.nn.functional

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(8, 16)
            self.fc2 = nn.Linear(16, 4)

        def forward(self, x):
            return self.fc2(F.relu(self.fc1(x)))

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 4, 5, padding=2)
            self.conv2 = nn.Conv2d(4, 8, 5)
            self.fc1 = nn.Linear(8 * 5 * 5, 32)
            self.fc2 = nn.Linear(32, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = lib.flatten(x, 1)
            return self.fc2(F.relu(self.fc1(x)))

    class ResBlock(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(4, 4, 3, padding=1)
            self.conv2 = nn.Conv2d(4, 4, 3, padding=1)

        def forward(self, x):
            out = self.conv2(lib.relu(self.conv1(x)))
            return F.relu(out + x)

    class Encoder(nn.Module):
        """One pre-norm transformer encoder layer: attention + MLP, both residual."""

        def __init__(self, d=16, heads=2):
            super().__init__()
            self.heads = heads
            self.ln1 = nn.LayerNorm(d)
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.ln2 = nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.qkv(self.ln1(x)).chunk(3, dim=-1)
            q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / (C // self.heads) ** 0.5)
            att = F.softmax(att, dim=-1)
            y = (att @ v).transpose(1, 2).reshape(B, T, C)
            x = x + self.proj(y)
            return x + self.mlp(self.ln2(x))

    return {"MLP": MLP, "LeNet": LeNet, "ResBlock": ResBlock, "Encoder": Encoder}[name]()


INPUT_SHAPES = {"MLP": (3, 8), "LeNet": (2, 1, 28, 28), "ResBlock": (2, 4, 6, 6),
                "Encoder": (2, 5, 16)}


def copy_params(src_torch, dst_ember, ember):
    """Give the ember model the torch model's weights (same state_dict keys)."""
    sd = {k: ember.tensor(v.detach().numpy()) for k, v in src_torch.state_dict().items()}
    dst_ember.load_state_dict(sd)
