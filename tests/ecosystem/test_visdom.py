"""visdom's client calls that take tensors (offline, logging to a file) on ember, compared with torch."""
from ._harness import assert_same, run_both

SCRIPT = """
import json, os, tempfile, torch, visdom
d = tempfile.mkdtemp(); log = os.path.join(d, "vis.log")
vis = visdom.Visdom(offline=True, log_to_filename=log)
vis.line(Y=torch.tensor([1., 2., 3.]), X=torch.tensor([0, 1, 2]), win="loss", opts={"title": "loss"})
vis.line(Y=torch.stack([torch.arange(4.), torch.arange(4.) ** 2], 1), win="two")
vis.text("hello", win="txt")
vis.heatmap(torch.eye(3) * 2, win="hm")
vis.images(torch.linspace(0, 1, 2 * 3 * 4 * 4).reshape(2, 3, 4, 4), win="imgs", nrow=2)
msgs = [json.loads(l) for l in open(log).read().splitlines()]
out = []
for endpoint, msg in msgs:
    data = msg["data"][0]
    keep = {k: data[k] for k in ("x", "y", "z", "type") if k in data}
    if "content" in data:
        c = data["content"]
        keep["content"] = c if isinstance(c, str) else sorted(c)
    out.append([endpoint, msg["win"], keep])
print(json.dumps(out))
"""


def test_client_messages_match_torch(tmp_path):
    theirs, ours = run_both(SCRIPT, tmp_path)
    assert_same(ours, theirs)
