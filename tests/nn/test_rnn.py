"""RNN/LSTM/GRU and their cells against torch with copied weights; packed sequences."""
import math

import numpy as np
import pytest
import torch
from torch.nn.utils import rnn as trnn

import ember
from ember import nn
from ember.nn.utils import rnn as ernn

from ._helpers import to_ember
from ._modcheck import check_module

CASES = [
    ("RNN", dict(num_layers=2)),
    ("RNN", dict(nonlinearity="relu", bias=False, batch_first=True)),
    ("LSTM", dict()),
    ("LSTM", dict(num_layers=2, bidirectional=True, proj_size=3, batch_first=True)),
    ("LSTM", dict(num_layers=2, dropout=0.0, bias=False)),
    ("GRU", dict(num_layers=2, bidirectional=True)),
    ("GRU", dict(batch_first=True)),
]


def _hx(cls, kw, batch, hidden=6, unbatched=False):
    d = 2 if kw.get("bidirectional") else 1
    n = kw.get("num_layers", 1) * d
    hout = kw.get("proj_size", 0) or hidden
    shape = (n, hout) if unbatched else (n, batch, hout)
    h = torch.randn(shape, requires_grad=True)
    if cls == "LSTM":
        return (h, torch.randn(shape[:-1] + (hidden,), requires_grad=True))
    return h


@pytest.mark.parametrize("cls,kw", CASES)
def test_rnn_matches_torch(cls, kw):
    torch.manual_seed(0)
    tm, em = getattr(torch.nn, cls)(5, 6, **kw), getattr(nn, cls)(5, 6, **kw)
    shape = (3, 4, 5) if kw.get("batch_first") else (4, 3, 5)
    x = torch.randn(shape, requires_grad=True)
    check_module(tm, em, [x], rtol=1e-4, atol=1e-5)
    check_module(tm, em, [x, _hx(cls, kw, 3)], rtol=1e-4, atol=1e-5)
    # unbatched input (L, H_in) with an unbatched state
    check_module(tm, em, [torch.randn(4, 5, requires_grad=True), _hx(cls, kw, 3, unbatched=True)],
                 rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls,kw", CASES)
def test_rnn_packed_matches_torch(cls, kw):
    torch.manual_seed(1)
    tm, em = getattr(torch.nn, cls)(5, 6, **kw), getattr(nn, cls)(5, 6, **kw)
    bf = kw.get("batch_first", False)
    lengths = [3, 7, 2, 5]
    x = torch.randn((4, 7, 5) if bf else (7, 4, 5), requires_grad=True)
    tp = trnn.pack_padded_sequence(x, lengths, batch_first=bf, enforce_sorted=False)
    ex = to_ember(x)
    ep = ernn.pack_padded_sequence(ex, lengths, batch_first=bf, enforce_sorted=False)
    np.testing.assert_allclose(ep.data.detach().numpy(), tp.data.detach().numpy())
    assert ep.batch_sizes.tolist() == tp.batch_sizes.tolist()
    assert ep.sorted_indices.tolist() == tp.sorted_indices.tolist()
    em.load_state_dict({k: to_ember(v, requires_grad=False) for k, v in tm.state_dict().items()})
    to, th = tm(tp)
    eo, eh = em(ep)
    np.testing.assert_allclose(eo.data.detach().numpy(), to.data.detach().numpy(), rtol=1e-4,
                               atol=1e-5)
    th, eh = (th[0], eh[0]) if cls == "LSTM" else (th, eh)
    np.testing.assert_allclose(eh.detach().numpy(), th.detach().numpy(), rtol=1e-4, atol=1e-5)
    tpad, tl = trnn.pad_packed_sequence(to, batch_first=bf)
    epad, el = ernn.pad_packed_sequence(eo, batch_first=bf)
    assert el.tolist() == tl.tolist()
    (tpad.sum() + th.square().sum()).backward()
    (epad.sum() + eh.square().sum()).backward()
    np.testing.assert_allclose(ex.grad.numpy(), x.grad.numpy(), rtol=1e-4, atol=1e-5)
    for (n, tparam), eparam in zip(tm.named_parameters(), em.parameters()):
        np.testing.assert_allclose(eparam.grad.numpy(), tparam.grad.numpy(), rtol=1e-4, atol=1e-4,
                                   err_msg=n)


@pytest.mark.parametrize("cls,kw", [("RNNCell", {}), ("RNNCell", dict(nonlinearity="relu")),
                                    ("LSTMCell", {}), ("GRUCell", dict(bias=False))])
def test_cells_match_torch(cls, kw):
    torch.manual_seed(2)
    tm, em = getattr(torch.nn, cls)(5, 6, **kw), getattr(nn, cls)(5, 6, **kw)
    x = torch.randn(3, 5, requires_grad=True)
    check_module(tm, em, [x])
    h = torch.randn(3, 6, requires_grad=True)
    hx = (h, torch.randn(3, 6, requires_grad=True)) if cls == "LSTMCell" else h
    check_module(tm, em, [x, hx])
    check_module(tm, em, [torch.randn(5, requires_grad=True)])


def test_dropout_between_layers_is_train_only():
    m = nn.LSTM(4, 8, num_layers=3, dropout=0.5)
    assert repr(m) == "LSTM(4, 8, num_layers=3, dropout=0.5)"
    x = ember.randn(5, 2, 4)
    ember.manual_seed(0)
    a = m(x)[0]
    ember.manual_seed(1)
    b = m(x)[0]
    assert not bool((a == b).all())
    m.eval()
    assert bool((m(x)[0] == m(x)[0]).all())


def test_default_init_statistics():
    m = nn.GRU(10, 64, num_layers=2)
    bound = 1 / math.sqrt(64)
    w = np.concatenate([p.detach().numpy().ravel() for p in m.parameters()])
    assert np.abs(w).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound * 5


def test_errors_match_torch():
    for lib in (torch, ember):
        with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
            lib.nn.LSTM(3, 4, proj_size=4)
        with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
            lib.nn.GRU(3, 4, proj_size=2)
        with pytest.raises(ValueError, match="dropout should be a number in range"):
            lib.nn.RNN(3, 4, dropout=1.5)
        with pytest.raises(ValueError, match="Unknown nonlinearity 'sigmoid'"):
            lib.nn.RNN(3, 4, nonlinearity="sigmoid")
        with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. "
                                               "Expected 3, got 5"):
            lib.nn.GRU(3, 4)(lib.zeros(2, 2, 5))
        with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 2, 4\), got \[1, 3, 4\]"):
            lib.nn.RNN(3, 4)(lib.zeros(5, 2, 3), lib.zeros(1, 3, 4))
        with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size"):
            lib.nn.LSTM(3, 4)(lib.zeros(5, 2, 3), (lib.zeros(1, 3, 4), lib.zeros(1, 2, 4)))


def test_pad_and_pack_helpers_match_torch():
    seqs = [torch.randn(n, 2) for n in (2, 5, 3)]
    eseqs = [to_ember(s) for s in seqs]
    for bf in (False, True):
        for side in ("right", "left"):
            t = trnn.pad_sequence(seqs, batch_first=bf, padding_value=-1.0, padding_side=side)
            e = ernn.pad_sequence(eseqs, batch_first=bf, padding_value=-1.0, padding_side=side)
            np.testing.assert_array_equal(e.numpy(), t.numpy())
    tp = trnn.pack_sequence(seqs, enforce_sorted=False)
    ep = ernn.pack_sequence(eseqs, enforce_sorted=False)
    np.testing.assert_array_equal(ep.data.numpy(), tp.data.numpy())
    assert ep.unsorted_indices.tolist() == tp.unsorted_indices.tolist()
    t, tl = trnn.pad_packed_sequence(tp, total_length=7, padding_value=9.0)
    e, el = ernn.pad_packed_sequence(ep, total_length=7, padding_value=9.0)
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    assert el.tolist() == tl.tolist()
    for a, b in zip(ernn.unpack_sequence(ep), trnn.unpack_sequence(tp)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        ernn.pack_sequence(eseqs)
    with pytest.raises(ValueError, match="Expected total_length to be at least"):
        ernn.pad_packed_sequence(ep, total_length=3)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_empty_sequence_raises_like_torch(cls):
    for lib in (torch, ember):
        m = getattr(lib.nn, cls)(3, 4, batch_first=True)
        with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0"):
            m(lib.zeros(2, 0, 3))
