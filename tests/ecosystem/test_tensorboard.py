"""torch.utils.tensorboard.SummaryWriter on ember writes event files that tensorboard's own reader
(EventAccumulator) reads back as it reads torch's."""
from ._harness import assert_same, run_both

SCRIPT = """
import json, os, tempfile, torch
from torch.utils.tensorboard import SummaryWriter
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
d = tempfile.mkdtemp()
w = SummaryWriter(d)
for i in range(5):
    w.add_scalar("loss", 1.0 / (i + 1), i)
    w.add_scalar("lr", torch.tensor(0.1 * i), i)
w.add_histogram("weights", torch.linspace(-1, 1, 101), 0, bins=10)
w.add_image("img", torch.linspace(0, 1, 3 * 8 * 8).reshape(3, 8, 8), 0)
w.add_text("note", "hello", 0)
w.close()
ea = EventAccumulator(d, size_guidance={"images": 0, "histograms": 0}); ea.Reload()
tags = ea.Tags()
hist = ea.Histograms("weights")[0].histogram_value
img = ea.Images("img")[0]
print(json.dumps({
    "scalars": sorted(tags["scalars"]), "histograms": tags["histograms"], "images": tags["images"],
    "loss": [[e.step, e.value] for e in ea.Scalars("loss")], "lr": [e.value for e in ea.Scalars("lr")],
    "hist": [hist.min, hist.max, hist.num, hist.sum], "img": [img.width, img.height],
}))
"""


def test_event_files_read_back_as_torchs(tmp_path):
    theirs, ours = run_both(SCRIPT, tmp_path)
    assert_same(ours, theirs)
