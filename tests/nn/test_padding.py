"""Padding, distance, channel-shuffle, new activation, dropout and EmbeddingBag modules vs torch."""
import numpy as np
import pytest
import torch

import ember
from ember import nn

from ._modcheck import check_module

PAD_CASES = [
    ("ZeroPad1d", (2,), (2, 3, 4)), ("ZeroPad2d", ((1, 2, 0, 3),), (2, 3, 4)),
    ("ZeroPad3d", (1,), (1, 2, 2, 3, 2)), ("ConstantPad1d", ((1, 2), 3.5), (2, 4)),
    ("ConstantPad2d", (1, -1.0), (1, 2, 3, 3)), ("ConstantPad3d", ((1, 0, 0, 1, 2, 0), 2.0), (1, 2, 2, 2)),
    ("ReflectionPad1d", (2,), (2, 3, 4)), ("ReflectionPad2d", ((1, 2, 2, 1),), (1, 2, 4, 4)),
    ("ReflectionPad3d", (1,), (1, 1, 3, 3, 3)), ("ReplicationPad1d", ((3, 1),), (2, 3, 4)),
    ("ReplicationPad2d", (2,), (2, 3, 3)), ("ReplicationPad3d", ((1, 0, 2, 1, 0, 1),), (1, 1, 2, 3, 2)),
    ("CircularPad1d", (1,), (2, 3, 4)), ("CircularPad2d", ((1, 2, 0, 1),), (1, 2, 3, 3)),
    ("CircularPad3d", (1,), (1, 1, 2, 3, 2)),
]


@pytest.mark.parametrize("cls,args,shape", PAD_CASES)
def test_padding_modules(cls, args, shape):
    check_module(getattr(torch.nn, cls)(*args), getattr(nn, cls)(*args),
                 [torch.randn(shape, requires_grad=True)])


MISC = [
    (("ChannelShuffle", 2), [(2, 6, 3, 3)]),
    (("CosineSimilarity",), [(4, 5), (4, 5)]),
    (("CosineSimilarity", 0, 1e-6), [(4, 5), (4, 5)]),
    (("PairwiseDistance",), [(4, 5), (4, 5)]),
    (("PairwiseDistance", 1.0, 1e-6, True), [(4, 5), (4, 5)]),
    (("PReLU",), [(3, 4, 2)]),
    (("PReLU", 4, 0.1), [(3, 4, 2)]),
    (("Softshrink", 0.3), [(3, 4)]),
    (("Hardshrink",), [(3, 4)]),
    (("Softmax2d",), [(2, 3, 4, 4)]),
]


@pytest.mark.parametrize("spec,shapes", MISC)
def test_misc_modules(spec, shapes):
    torch.manual_seed(0)
    name, *args = spec
    check_module(getattr(torch.nn, name)(*args), getattr(nn, name)(*args),
                 [torch.randn(s, requires_grad=True) for s in shapes])


def test_rrelu_and_dropouts():
    for t, e in [(torch.nn.RReLU(0.1, 0.3), nn.RReLU(0.1, 0.3))]:
        assert repr(e) == repr(t)
        check_module(t, e, [torch.randn(3, 4, requires_grad=True)], modes=("eval",))
        x = -ember.rand(1000) - 0.1
        slope = (e.train()(x) / x).numpy()
        assert slope.min() >= 0.1 - 1e-6 and slope.max() <= 0.3 + 1e-6 and slope.std() > 0.01
    for name in ("Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"):
        tm, em = getattr(torch.nn, name)(0.3), getattr(nn, name)(0.3)
        assert repr(em) == repr(tm)
        x = torch.randn(2, 4, 3, 3, 3) if name == "Dropout3d" else torch.randn(2, 4, 3, 3)
        if name == "Dropout1d":
            x = torch.randn(2, 4, 3)
        check_module(tm, em, [x.requires_grad_()], modes=("eval",))
    y = nn.Dropout2d(0.5)(ember.ones(8, 16, 4, 4))
    per_channel = y.reshape(8, 16, 16)
    # whole channels are zeroed or scaled by 1 / (1 - p)
    assert set(np.unique(per_channel.numpy()).tolist()) <= {0.0, 2.0}
    assert bool((per_channel.amax(-1) == per_channel.amin(-1)).all())
    assert y.mean().item() == pytest.approx(1.0, abs=0.2)


def test_embedding_bag_matches_torch():
    torch.manual_seed(3)
    for kw in (dict(), dict(mode="sum", padding_idx=2), dict(mode="max")):
        tm, em = torch.nn.EmbeddingBag(10, 3, **kw), nn.EmbeddingBag(10, 3, **kw)
        check_module(tm, em, [torch.tensor([[1, 2, 4], [4, 3, 9]])], modes=("train",))
        check_module(tm, em, [torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 4])],
                     modes=("train",))
    w = torch.randn(4, 2)
    from ._helpers import to_ember
    e = nn.EmbeddingBag.from_pretrained(to_ember(w), mode="sum")
    t = torch.nn.EmbeddingBag.from_pretrained(w, mode="sum")
    assert repr(e) == repr(t) and e.weight.requires_grad is False
