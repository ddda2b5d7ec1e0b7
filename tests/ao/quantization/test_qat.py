"""Quantization-aware training (eager and FX) against torch: same weights, data and optimiser."""
import numpy as np
import pytest
import torch
import torch.ao.quantization as tq
import torch.ao.quantization.quantize_fx as tqfx

import ember
import ember.ao.quantization as eq
import ember.ao.quantization.quantize_fx as eqfx

from ._helpers import copy_weights, inputs

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


def _net(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = getattr(lib.ao.quantization, "QuantStub")()
            self.conv = nn.Conv2d(1, 4, 3)
            self.bn = nn.BatchNorm2d(4)
            self.relu = nn.ReLU()
            self.fc = nn.Linear(4 * 6 * 6, 5)
            self.dequant = getattr(lib.ao.quantization, "DeQuantStub")()

        def forward(self, x):
            x = self.relu(self.bn(self.conv(self.quant(x))))
            return self.dequant(self.fc(lib.flatten(x, 1)))
    return Net()


def _train(lib, model, steps=4):
    opt = lib.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for i in range(steps):
        tx, ex = inputs((16, 1, 8, 8), seed=20 + i)
        x = tx if lib is torch else ex
        target = (x.mean(dim=(1, 2, 3)) > 0).long()
        loss = lib.nn.functional.cross_entropy(model(x), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.item()))
    return losses


def _pair():
    torch.manual_seed(0)
    tm, em = _net(torch), _net(ember)
    copy_weights(tm, em)
    return tm, em


def test_eager_qat_trains_and_converts_like_torch():
    tm, em = _pair()
    tm.qconfig, em.qconfig = tq.get_default_qat_qconfig("x86"), eq.get_default_qat_qconfig("x86")
    tm.eval()
    em.eval()
    tm = tq.fuse_modules_qat(tm.train(), [["conv", "bn", "relu"]])
    em = eq.fuse_modules_qat(em.train(), [["conv", "bn", "relu"]])
    tp, ep = tq.prepare_qat(tm), eq.prepare_qat(em)
    assert type(ep.conv).__name__ == type(tp.conv).__name__ == "ConvBnReLU2d"
    assert list(ep.state_dict()) == list(tp.state_dict())
    tl, el = _train(torch, tp), _train(ember, ep)
    np.testing.assert_allclose(el, tl, rtol=1e-4)
    tp.eval()
    ep.eval()
    tc, ec = tq.convert(tp), eq.convert(ep)
    assert type(ec.conv).__name__ == "ConvReLU2d" and list(ec.state_dict()) == list(tc.state_dict())
    tx, ex = inputs((8, 1, 8, 8), seed=99)
    ty, ey = tc(tx).numpy(), ec(ex).numpy()
    assert np.abs(ey - ty).max() <= tc.fc.scale * 1.01


def test_fx_qat_trains_and_converts_like_torch():
    tm, em = _pair()
    tm.quant = torch.nn.Identity()
    tm.dequant = torch.nn.Identity()
    em.quant = ember.nn.Identity()
    em.dequant = ember.nn.Identity()
    tx, ex = inputs((2, 1, 8, 8))
    tp = tqfx.prepare_qat_fx(tm.train(), tq.get_default_qat_qconfig_mapping("x86"), (tx,))
    ep = eqfx.prepare_qat_fx(em.train(), eq.get_default_qat_qconfig_mapping("x86"), (ex,))
    assert type(ep.conv).__name__ == type(tp.conv).__name__
    tl, el = _train(torch, tp), _train(ember, ep)
    np.testing.assert_allclose(el, tl, rtol=1e-4)
    tc, ec = tqfx.convert_fx(tp.eval()), eqfx.convert_fx(ep.eval())
    assert list(ec.state_dict()) == list(tc.state_dict())
    tx, ex = inputs((8, 1, 8, 8), seed=98)
    assert np.abs(ec(ex).numpy() - tc(tx).numpy()).max() <= tc.fc.scale * 1.01
