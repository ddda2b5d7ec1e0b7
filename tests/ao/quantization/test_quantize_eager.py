"""Eager-mode post-training static quantization (QuantStub, fuse_modules, prepare, convert) vs torch."""
import numpy as np
import pytest
import torch
import torch.ao.quantization as tq

import ember
import ember.ao.quantization as eq

from ._helpers import copy_weights, inputs, to_ember, to_torch

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


def _net(lib):
    nn, aq = lib.nn, lib.ao.quantization

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = aq.QuantStub()
            self.conv = nn.Conv2d(2, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.relu = nn.ReLU()
            self.skip = lib.ao.nn.quantized.FloatFunctional()
            self.fc = nn.Linear(4 * 4 * 4, 6)
            self.relu2 = nn.ReLU()
            self.dequant = aq.DeQuantStub()

        def forward(self, x):
            x = self.relu(self.bn(self.conv(self.quant(x))))
            x = self.skip.add(x, x)
            x = lib.flatten(lib.nn.functional.max_pool2d(x, 2), 1)
            return self.dequant(self.relu2(self.fc(x)))
    return Net()


def test_eager_static_quantization_matches_torch():
    torch.manual_seed(0)
    tm, em = _net(torch).eval(), _net(ember).eval()
    copy_weights(tm, em)
    for m, lib in ((tm, tq), (em, eq)):
        m.qconfig = lib.get_default_qconfig("x86")
    tm = tq.fuse_modules(tm, [["conv", "bn", "relu"], ["fc", "relu2"]])
    em = eq.fuse_modules(em, [["conv", "bn", "relu"], ["fc", "relu2"]])
    tp, ep = tq.prepare(tm), eq.prepare(em)
    for seed in range(2):
        tx, ex = inputs((8, 2, 8, 8), seed=seed)
        tp(tx)
        ep(ex)
    tc, ec = tq.convert(tp), eq.convert(ep)
    assert [type(m).__name__ for m in ec.children()] == [type(m).__name__ for m in tc.children()]
    assert repr(ec.conv) == repr(tc.conv) and repr(ec.fc) == repr(tc.fc)
    assert list(ec.state_dict()) == list(tc.state_dict())
    tx, ex = inputs((8, 2, 8, 8), seed=9)
    assert np.abs(ec(ex).numpy() - tc(tx).numpy()).max() <= tc.fc.scale * 1.01
    # checkpoints both ways under weights_only=True
    ec.load_state_dict(to_ember(tc.state_dict()))
    assert np.abs(ec(ex).numpy() - tc(tx).numpy()).max() <= tc.fc.scale * 1.01
    tc.load_state_dict(to_torch(ec.state_dict()))
