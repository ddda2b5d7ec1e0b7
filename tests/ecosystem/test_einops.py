"""einops (functions, pack/unpack, layers) on ember under the alias, compared with torch."""
from ._harness import assert_same, run_both

SCRIPT = """
import json, torch
from einops import rearrange, reduce, repeat, pack, unpack, einsum
from einops.layers.torch import Rearrange, Reduce, EinMix
x = torch.arange(24.).reshape(2, 3, 4)
out = {
    "rearrange": rearrange(x, "b c h -> b h c").tolist(),
    "merge": rearrange(x, "b c (h w) -> b (c h) w", w=2).tolist(),
    "reduce_mean": reduce(x, "b c h -> b", "mean").tolist(),
    "reduce_max": reduce(x, "b c (h h2) -> b c h", "max", h2=2).tolist(),
    "repeat": repeat(x[0, 0], "h -> h r", r=2).tolist(),
    "einsum": einsum(x, x, "b c h, b d h -> b c d").tolist(),
}
p, ps = pack([x, x[:, 0]], "b *")
out["pack"] = [list(p.shape), [list(s) for s in ps], [t.tolist() for t in unpack(p, ps, "b *")]]
torch.manual_seed(0)
m = torch.nn.Sequential(Rearrange("b c h -> b (c h)"), torch.nn.Linear(12, 3), Reduce("b k -> b", "max"))
with torch.no_grad():
    for prm in m.parameters():
        prm.copy_(torch.linspace(-1, 1, prm.numel()).reshape(prm.shape))
y = m(x)
y.sum().backward()
out["layers"] = [y.tolist(), m[1].weight.grad.tolist()]
out["einmix"] = [list(EinMix("b c h -> b c k", weight_shape="h k", h=4, k=5)(x).shape)]
print(json.dumps(out))
"""


def test_einops_matches_torch(tmp_path):
    theirs, ours = run_both(SCRIPT, tmp_path)
    assert_same(ours, theirs)
