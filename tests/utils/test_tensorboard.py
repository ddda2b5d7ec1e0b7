"""SummaryWriter writes TensorBoard event files; read back with tensorboardX's protobufs (the
TFRecord framing is read here: tensorboardX ships the writer only)."""
import glob
import struct


import pytest

import ember

tensorboardX = pytest.importorskip("tensorboardX")  # the optional extra; installed by the test extra
from tensorboardX.proto import event_pb2  # noqa: E402

from ember.utils.tensorboard import SummaryWriter  # noqa: E402


def _events(logdir):
    out = []
    for path in sorted(glob.glob(f"{logdir}/**/events.out.tfevents.*", recursive=True)):
        data = open(path, "rb").read()
        i = 0
        while i < len(data):
            (n,) = struct.unpack("<Q", data[i:i + 8])
            ev = event_pb2.Event()
            ev.ParseFromString(data[i + 12:i + 12 + n])
            out.append((path, ev))
            i += 12 + n + 4
    return out


def _values(logdir):
    return [(ev.step, v) for _, ev in _events(logdir) for v in ev.summary.value]


def test_scalars_histograms_images_text(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        for step in range(3):
            w.add_scalar("loss", ember.tensor(1.0 / (step + 1)), step)
        w.add_scalars("run", {"a": 1.5, "b": ember.tensor(2.5)}, 7)
        w.add_histogram("weights", ember.arange(100.0), 1)
        w.add_image("img", ember.rand(3, 8, 8), 2)
        w.add_images("imgs", ember.rand(2, 3, 4, 4), 2)
        w.add_text("note", "hello", 0)
    vals = _values(tmp_path)
    loss = [(s, v.simple_value) for s, v in vals if v.tag == "loss"]
    assert loss == [(0, 1.0), (1, 0.5), (2, pytest.approx(1 / 3))]
    hist = [v.histo for _, v in vals if v.tag == "weights"][0]
    assert hist.num == 100 and hist.min == 0 and hist.max == 99 and hist.sum == sum(range(100))
    img = [v.image for _, v in vals if v.tag == "img"][0]
    assert (img.height, img.width, img.colorspace) == (8, 8, 3)
    assert any(v.tag == "note/text_summary" for _, v in vals)
    sub = [(p, v.simple_value) for p, ev in _events(tmp_path) for v in ev.summary.value
           if v.tag == "run"]
    assert sorted(s for _, s in sub) == [1.5, 2.5]


def test_hparams_and_graph(tmp_path):
    with SummaryWriter(str(tmp_path)) as w:
        w.add_hparams({"lr": 0.1, "bs": 32}, {"hparam/acc": ember.tensor(0.9)}, run_name="r")
        net = ember.nn.Sequential(ember.nn.Linear(4, 3), ember.nn.ReLU())
        w.add_graph(net, ember.ones(1, 4))
    evs = _events(tmp_path)
    graphs = [ev.graph_def for _, ev in evs if ev.graph_def]
    assert graphs
    from tensorboardX.proto.graph_pb2 import GraphDef
    g = GraphDef()
    g.ParseFromString(graphs[0])
    ops = [n.op for n in g.node]
    assert "Linear" in ops and "ReLU" in ops and "placeholder" in ops
    assert any(v.tag == "hparam/acc" and v.simple_value == pytest.approx(0.9)
               for _, ev in evs for v in ev.summary.value)


def test_clear_error_without_tensorboardx(monkeypatch):
    import builtins
    real = builtins.__import__

    def fake(name, *a, **k):
        if name == "tensorboardX":
            raise ImportError("no")
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(ModuleNotFoundError, match="pip install tensorboardX"):
        SummaryWriter("unused")





def test_add_scalars_run_directories_like_torch(tmp_path):
    """add_scalars writes each tag to the run ``<main_tag>_<tag>`` ('/' in main_tag -> '_'), with the
    scalar named main_tag, as torch's SummaryWriter (issue 17: ember wrote ``grp/a``)."""
    import os
    import torch.utils.tensorboard as torch_tb  # the tensorboard package is in the test extra
    layouts = []
    for lib_writer, sub in ((torch_tb.SummaryWriter, "torch"), (SummaryWriter, "ember")):
        d = tmp_path / sub
        w = lib_writer(str(d))
        w.add_scalars("grp", {"a": 1.0, "b/c": 2.0}, 0)
        w.add_scalars("x/y", {"a": ember.tensor(1.5) if sub == "ember" else 1.5}, 1)
        w.add_scalars("grp", {"a": 3.0}, 2)
        w.close()
        runs = sorted(os.path.relpath(os.path.dirname(p), d) for p, _ in _events(d))
        values = sorted((os.path.relpath(os.path.dirname(p), d), ev.step, v.tag, v.simple_value)
                        for p, ev in _events(d) for v in ev.summary.value)
        layouts.append((sorted(set(runs)), values))
    assert layouts[1] == layouts[0]
