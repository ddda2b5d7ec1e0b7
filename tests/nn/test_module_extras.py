"""Module extras: full backward (pre-)hooks, global backward hooks, load_state_dict(assign=),
to_empty, pickling/deepcopy of the new layers, torch-mirroring module paths."""
import copy
import pickle

import numpy as np
import pytest
import torch

import ember
from ember import nn


def _run_hooks(lib, scale_input_grad, input_requires_grad=True):
    torch.manual_seed(0)
    ember.manual_seed(0)
    m = lib.nn.Linear(3, 2)
    with lib.no_grad():
        m.weight.copy_(lib.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]))
        m.bias.zero_()
    log = []

    def pre(mod, grad_output):
        log.append(("pre", [g.tolist() for g in grad_output]))
        return (grad_output[0] * 10,)

    def full(mod, grad_input, grad_output):
        log.append(("full", [None if g is None else g.tolist() for g in grad_input],
                    [g.tolist() for g in grad_output]))
        if scale_input_grad and grad_input[0] is not None:
            return (grad_input[0] * 3,)
        return None

    m.register_full_backward_pre_hook(pre)
    m.register_full_backward_hook(full)
    x = lib.tensor([[1.0, -1.0, 2.0]], requires_grad=input_requires_grad)
    m(x).sum().backward()
    return log, (x.grad.tolist() if input_requires_grad else None), m.weight.grad.tolist()


@pytest.mark.parametrize("scale", [False, True])
@pytest.mark.parametrize("input_rg", [True, False])
def test_full_backward_hooks_match_torch(scale, input_rg):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _run_hooks(ember, scale, input_rg) == _run_hooks(torch, scale, input_rg)


def _global_calls(lib):
    calls = []
    h1 = lib.nn.modules.module.register_module_full_backward_hook(
        lambda m, gi, go: calls.append(type(m).__name__))
    h2 = lib.nn.modules.module.register_module_full_backward_pre_hook(
        lambda m, go: calls.append("pre " + type(m).__name__))
    net = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Tanh())
    net(lib.ones(1, 2, requires_grad=True)).sum().backward()
    h1.remove()
    h2.remove()
    n = len(calls)
    net(lib.ones(1, 2, requires_grad=True)).sum().backward()
    assert len(calls) == n
    return calls


def test_global_backward_hooks_and_removal():
    assert _global_calls(ember) == _global_calls(torch)
    assert nn.register_module_full_backward_hook is \
        nn.modules.module.register_module_full_backward_hook


def test_backward_hook_on_multi_output_module():
    grads = []
    lstm = nn.LSTM(3, 4)
    lstm.register_full_backward_hook(lambda m, gi, go: grads.append((len(gi), len(go))))
    out, (h, c) = lstm(ember.randn(5, 2, 3, requires_grad=True))
    out.sum().backward()
    assert grads == [(1, 2)]


def test_load_state_dict_assign_and_to_empty():
    src = nn.Linear(3, 2)
    dst = nn.Linear(3, 2)
    sd = src.state_dict()
    dst.load_state_dict(sd, assign=True)
    assert isinstance(dst.weight, nn.Parameter) and dst.weight.requires_grad
    assert dst.weight.data_ptr() == sd["weight"].data_ptr()
    m = nn.Linear(3, 2, device="meta").to_empty(device="cpu")
    assert m.weight.device.type == "cpu" and tuple(m.weight.shape) == (2, 3)


@pytest.mark.parametrize("make", [lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True),
                                  lambda: nn.MultiheadAttention(8, 2, kdim=4),
                                  lambda: nn.TransformerEncoderLayer(8, 2, 16),
                                  lambda: nn.BatchNorm2d(3), lambda: nn.GRUCell(2, 3),
                                  lambda: nn.ReflectionPad2d(1), lambda: nn.PReLU(3)])
def test_pickle_and_deepcopy_roundtrip(make):
    m = make()
    for clone in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
        assert repr(clone) == repr(m)
        for (n, a), b in zip(m.state_dict().items(), clone.state_dict().values()):
            np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=n)


def test_module_paths_mirror_torch():
    import ember.nn.modules.activation as act
    import ember.nn.modules.rnn as rnn
    import ember.nn.modules.transformer as tr
    assert nn.LSTM is rnn.LSTM and nn.MultiheadAttention is act.MultiheadAttention
    assert nn.TransformerEncoderLayer is tr.TransformerEncoderLayer
    for name in ("BatchNorm2d", "InstanceNorm1d", "GroupNorm", "LSTM", "GRUCell", "ZeroPad2d",
                 "ChannelShuffle", "CosineSimilarity", "MultiheadAttention", "Transformer",
                 "CTCLoss", "EmbeddingBag", "Dropout2d"):
        assert getattr(nn, name).__module__ == getattr(torch.nn, name).__module__.replace(
            "torch", "ember"), name
    from ember.nn.modules.linear import NonDynamicallyQuantizableLinear
    assert type(nn.MultiheadAttention(4, 1).out_proj) is NonDynamicallyQuantizableLinear
