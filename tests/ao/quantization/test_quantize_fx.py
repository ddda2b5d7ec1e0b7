"""FX graph-mode post-training quantization of a small CNN against torch, identical weights."""
import numpy as np
import pytest
import torch
import torch.ao.quantization as tq
import torch.ao.quantization.quantize_fx as tqfx

import ember
import ember.ao.quantization as eq
import ember.ao.quantization.quantize_fx as eqfx

from ._helpers import copy_weights, inputs, to_ember, to_torch

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


def _cnn(lib):
    nn, F = lib.nn, lib.nn.functional

    class CNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 3, padding=1)
            self.bn1 = nn.BatchNorm2d(6)
            self.relu1 = nn.ReLU()
            self.pool = nn.MaxPool2d(2)
            self.conv2 = nn.Conv2d(6, 8, 3, padding=1)
            self.bn2 = nn.BatchNorm2d(8)
            self.avg = nn.AdaptiveAvgPool2d((2, 2))
            self.fc1 = nn.Linear(32, 16)
            self.relu2 = nn.ReLU()
            self.drop = nn.Dropout(0.2)
            self.fc2 = nn.Linear(16, 10)

        def forward(self, x):
            x = self.pool(self.relu1(self.bn1(self.conv1(x))))
            x = F.relu(self.bn2(self.conv2(x)))
            x = lib.flatten(self.avg(x), 1)
            x = self.drop(self.relu2(self.fc1(x)))
            return self.fc2(x)
    return CNN()


def _pair(seed=0):
    torch.manual_seed(seed)
    tm = _cnn(torch)
    with torch.no_grad():  # non-trivial batch-norm statistics, so folding matters
        for bn in (tm.bn1, tm.bn2):
            bn.running_mean.uniform_(-0.3, 0.3)
            bn.running_var.uniform_(0.5, 1.5)
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.2, 0.2)
    em = _cnn(ember)
    copy_weights(tm, em)
    return tm.eval(), em.eval()


def _calibrated(backend="x86"):
    tm, em = _pair()
    tx, ex = inputs((8, 1, 12, 12), seed=1)
    tp = tqfx.prepare_fx(tm, tq.get_default_qconfig_mapping(backend), (tx,))
    ep = eqfx.prepare_fx(em, eq.get_default_qconfig_mapping(backend), (ex,))
    for seed in range(2):
        tb, eb = inputs((16, 1, 12, 12), seed=10 + seed)
        tp(tb)
        ep(eb)
    return tm, em, tp, ep


def test_prepare_fx_inserts_observers_like_torch():
    _, _, tp, ep = _calibrated()
    t_obs = [n for n, m in tp.named_modules() if n.startswith("activation_post_process")]
    e_obs = [n for n, m in ep.named_modules() if n.startswith("activation_post_process")]
    assert e_obs == t_obs
    for name in t_obs:
        assert type(ep.get_submodule(name)).__name__ == type(tp.get_submodule(name)).__name__
    code = lambda gm: [line.split(" = ")[0].strip() for line in gm.code.splitlines() if " = " in line]
    assert code(ep) == code(tp)


@pytest.mark.parametrize("backend", ["x86", "qnnpack"])
def test_convert_fx_cnn_matches_torch(backend):
    tm, em, tp, ep = _calibrated(backend)
    tq_m, eq_m = tqfx.convert_fx(tp), eqfx.convert_fx(ep)
    assert list(eq_m.state_dict()) == list(tq_m.state_dict())
    strip = lambda code: [line.replace("torch.", "ember.").strip() for line in code.splitlines()
                          if line.strip() and not line.startswith("#")]
    assert strip(eq_m.code) == strip(tq_m.code).__class__(
        line.replace("ember.flatten(avg, 1)", "ember.flatten(avg, 1, -1)") for line in strip(tq_m.code))
    tx, ex = inputs((32, 1, 12, 12), seed=5)
    ty, ey = tq_m(tx).numpy(), eq_m(ex).numpy()
    step = tq_m.fc2.scale
    assert np.abs(ey - ty).max() <= step * 1.01
    assert np.mean(ey == ty) > 0.9
    assert np.abs(ey - tm(tx).detach().numpy()).max() < 0.25


def test_quantized_cnn_state_dict_exchanges_with_torch():
    tm, em, tp, ep = _calibrated()
    tq_m, eq_m = tqfx.convert_fx(tp), eqfx.convert_fx(ep)
    tx, ex = inputs((8, 1, 12, 12), seed=6)
    # torch's checkpoint into ember's converted model: the same outputs as torch's model
    eq_m.load_state_dict(to_ember(tq_m.state_dict()))
    np.testing.assert_allclose(eq_m(ex).numpy(), tq_m(tx).numpy(), atol=tq_m.fc2.scale * 1.01)
    # and ember's into torch's
    _, _, tp2, ep2 = _calibrated()
    eq2 = eqfx.convert_fx(ep2)
    tq2 = tqfx.convert_fx(tp2)
    tq2.load_state_dict(to_torch(eq2.state_dict()))
    np.testing.assert_allclose(tq2(tx).numpy(), eq2(ex).numpy(), atol=eq2.fc2.scale * 1.01)


def test_convert_to_reference_fx_matches_torch_structure_and_values():
    _, _, tp, ep = _calibrated()
    tr, er = tqfx.convert_to_reference_fx(tp), eqfx.convert_to_reference_fx(ep)
    names = lambda gm: [line.split(" = ")[0].strip() for line in gm.code.splitlines() if " = " in line]
    assert names(er) == names(tr)
    assert repr(er.fc2) == repr(tr.fc2) == \
        "QuantizedLinear(Reference)(in_features=16, out_features=10, bias=True)"
    tx, ex = inputs((8, 1, 12, 12), seed=7)
    assert np.abs(er(ex).numpy() - tr(tx).numpy()).max() <= tr.fc2_scale_0.item() * 1.01


def test_fx_binary_and_share_ops():
    nn = ember.nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(2, 4, 3, padding=1)
            self.c2 = nn.Conv2d(4, 4, 3, padding=1)

        def forward(self, x):
            a = self.c1(x)
            b = self.c2(a)
            return ember.cat([a + b, a * b], 1).mean()
    m = M().eval()
    x = ember.randn(2, 2, 6, 6)
    p = eqfx.prepare_fx(m, eq.get_default_qconfig_mapping(), (x,))
    p(x)
    q = eqfx.convert_fx(p)
    assert "ember._quantized.kernels.add(c1, c2, _scale_0, _zero_point_0)" in q.code
    assert "cat = ember.cat([add_1, mul_1], 1)" in q.code
    assert abs(q(x).item() - m(x).item()) < 0.05


def test_prepare_fx_requires_eval_and_warns():
    with pytest.raises(AssertionError):
        eqfx.prepare_fx(_cnn(ember).train(), eq.get_default_qconfig_mapping(), (ember.randn(1, 1, 8, 8),))
    with pytest.warns(DeprecationWarning):
        eqfx.prepare_fx(_cnn(ember).eval(), eq.get_default_qconfig_mapping(), (ember.randn(1, 1, 8, 8),))
