"""torch.* forms of nn ops with aten signatures (int reduction, convolution, grid_sampler, the
recurrent layers/cells, in-place activations, embedding_bag's four outputs): ember vs torch."""
import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(0)


def A(*shape, lo=None):
    a = RNG.standard_normal(shape)
    return np.abs(a) + 0.1 if lo == "pos" else a


def _pair(a, grad=False, dtype="float64"):
    return (ember.tensor(a, dtype=getattr(ember, dtype), requires_grad=grad),
            torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=grad))


def _close(e, t, **kw):
    if isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for x, y in zip(e, t):
            _close(x, y, **kw)
        return
    assert str(e.dtype) == str(t.dtype), (e.dtype, t.dtype)
    torch.testing.assert_close(torch.from_numpy(np.array(e.detach().numpy())), t.detach(), **kw)


def _check(name, make_args, grad_idx=(0,)):
    """Compare ember.<name> and torch.<name> outputs and input gradients."""
    arrays, rest = make_args()
    ep, tp = zip(*[_pair(a, grad=i in grad_idx) if isinstance(a, np.ndarray) else (a, a)
                   for i, a in enumerate(arrays)])
    eo, to = getattr(ember, name)(*ep, *rest), getattr(torch, name)(*tp, *rest)
    _close(eo, to)
    e0, t0 = (eo[0], to[0]) if isinstance(to, tuple) else (eo, to)
    if t0.requires_grad:
        w = RNG.standard_normal(tuple(t0.shape))
        (t0 * torch.tensor(w)).sum().backward()
        (e0 * ember.tensor(w)).sum().backward()
        for i in grad_idx:
            _close(ep[i].grad, tp[i].grad)


def _sign(*shape):
    return np.where(RNG.random(shape) > 0.5, 1.0, -1.0)


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_losses_with_int_reduction(reduction):
    _check("binary_cross_entropy_with_logits",
           lambda: ([A(4, 3), RNG.random((4, 3)), A(3, lo="pos"), A(3, lo="pos")], [reduction]))
    _check("cosine_embedding_loss", lambda: ([A(4, 5), A(4, 5), _sign(4)], [0.2, reduction]), (0, 1))
    _check("hinge_embedding_loss", lambda: ([A(6), _sign(6)], [0.7, reduction]))
    _check("kl_div", lambda: ([A(4, 3), RNG.random((4, 3))], [reduction]))
    _check("margin_ranking_loss", lambda: ([A(6), A(6), _sign(6)], [0.1, reduction]), (0, 1))
    _check("poisson_nll_loss", lambda: ([A(5), A(5, lo="pos")], [True, True, 1e-8, reduction]))
    _check("triplet_margin_loss", lambda: ([A(4, 3), A(4, 3), A(4, 3)],
                                           [1.0, 2.0, 1e-6, True, reduction]), (0, 1, 2))
    lp = torch.randn(6, 2, 4, dtype=torch.float64).log_softmax(2).numpy()
    tg = np.array([[1, 2], [3, 3]])
    _check("ctc_loss", lambda: ([lp, tg], [[6, 5], [2, 1], 0, reduction, False]))


def test_kl_div_log_target_keyword():
    e, t = _pair(A(3, 2))
    el, tl = _pair(A(3, 2))
    _close(ember.kl_div(e, el, 2, log_target=True), torch.kl_div(t, tl, 2, log_target=True))


@pytest.mark.parametrize("transposed", [False, True])
def test_convolution(transposed):
    for nd in (1, 2, 3):
        x = A(2, 4, *([5] * nd))
        w = A(4, 3, *([2] * nd)) if transposed else A(6, 2, *([2] * nd))
        b = A(6 if transposed else 6)
        stride, pad, dil, opad = [2] * nd, [1] * nd, [1] * nd, [1] * nd if transposed else [0] * nd
        _check("convolution", lambda: ([x, w, b], [stride, pad, dil, transposed, opad, 2]), (0, 1, 2))


def test_conv_tbc_and_constant_pad_nd():
    _check("conv_tbc", lambda: ([A(7, 2, 3), A(3, 3, 4), A(4)], [1]), (0, 1, 2))
    _check("constant_pad_nd", lambda: ([A(2, 3, 4)], [[1, 2, -1, 1], 0.5]))


@pytest.mark.parametrize("interp,padding", [(0, 0), (1, 1), (0, 2), (2, 0)])
def test_grid_sampler(interp, padding):
    grid = RNG.uniform(-1.2, 1.2, (2, 3, 4, 2))
    _check("grid_sampler", lambda: ([A(2, 3, 5, 6), grid], [interp, padding, False]))
    _check("grid_sampler_2d", lambda: ([A(2, 3, 5, 6), grid], [interp, padding, True]))
    if interp != 2:
        grid3 = RNG.uniform(-1, 1, (1, 2, 3, 2, 3))
        _check("grid_sampler_3d", lambda: ([A(1, 2, 4, 3, 5), grid3], [interp, padding, False]))


def test_affine_grid_generator_and_adaptive_max_pool1d():
    _check("affine_grid_generator", lambda: ([A(2, 2, 3)], [[2, 3, 4, 5], False]))
    _check("adaptive_max_pool1d", lambda: ([A(2, 3, 10)], [[4]]))


def test_inplace_activations():
    for name, args in (("celu_", (0.7,)), ("selu_", ()), ("threshold_", (0.1, -2.0)),
                       ("rrelu_", (0.1, 0.3, False))):
        a = A(3, 4)
        e, t = ember.tensor(a), torch.tensor(a)
        re_, rt = getattr(ember, name)(e, *args), getattr(torch, name)(t, *args)
        assert re_ is e
        _close(e, t)


def test_dropouts():
    for name in ("dropout_", "alpha_dropout_", "feature_alpha_dropout_", "feature_dropout_",
                 "feature_dropout"):
        a = A(4, 6, 3)
        e = ember.tensor(a)
        r = getattr(ember, name)(e, 0.5, False)  # eval: identity, like torch
        _close(r, getattr(torch, name)(torch.tensor(a), 0.5, False))
        r = getattr(ember, name)(ember.ones(8, 50, 4), 0.5, True)
        v = r.numpy()
        if name.startswith("feature"):  # whole channels share their fate
            assert (v == v[:, :, :1]).all()
        assert 0.3 < (v == v.max()).mean() < 0.7 if "alpha" not in name else True
        if name.endswith("_"):
            e2 = ember.ones(3, 4, 2)
            assert getattr(ember, name)(e2, 0.5, True) is e2


def test_embedding_renorm_():
    a = A(6, 3) * 3
    e, t = ember.tensor(a), torch.tensor(a)
    idx = [0, 2, 2, 5]
    assert ember.embedding_renorm_(e, ember.tensor(idx), 1.5, 2.0) is e
    torch.embedding_renorm_(t, torch.tensor(idx), 1.5, 2.0)
    _close(e, t)


def test_norms():
    _check("frobenius_norm", lambda: ([A(3, 4, 5)], [[0, 2], True]))
    _check("frobenius_norm", lambda: ([A(3, 4)], [[1]]))
    _check("nuclear_norm", lambda: ([A(4, 3)], []))
    _check("nuclear_norm", lambda: ([A(4, 3)], [True]))
    _check("nuclear_norm", lambda: ([A(2, 4, 3)], [[0, 2], False]))
    for dim in (0, 1, 2, -1):
        _check("norm_except_dim", lambda: ([A(2, 3, 4)], [2, dim]))
    _check("norm_except_dim", lambda: ([A(2, 3, 4)], [3, 1]))


@pytest.mark.parametrize("name", ["rnn_tanh_cell", "rnn_relu_cell", "gru_cell", "lstm_cell"])
def test_cells(name):
    g = {"gru_cell": 3, "lstm_cell": 4}.get(name, 1)
    H = 5
    for bias in (True, False):
        arrays = [A(3, 4), A(3, H), A(g * H, 4), A(g * H, H)] + ([A(g * H), A(g * H)] if bias else [])
        ep, tp = zip(*[_pair(a, grad=True) for a in arrays])
        if name == "lstm_cell":
            c = A(3, H)
            ce, ct = _pair(c, grad=True)
            eo = ember.lstm_cell(ep[0], (ep[1], ce), *ep[2:])
            to = torch.lstm_cell(tp[0], (tp[1], ct), *tp[2:])
        else:
            eo, to = getattr(ember, name)(*ep), getattr(torch, name)(*tp)
        _close(eo, to)
        (sum(o.sum() for o in to) if isinstance(to, tuple) else to.sum()).backward()
        (sum(o.sum() for o in eo) if isinstance(eo, tuple) else eo.sum()).backward()
        for x, y in zip(ep, tp):
            _close(x.grad, y.grad)


@pytest.mark.parametrize("name", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
def test_recurrent_layers_match_torch_modules(name):
    cls = {"lstm": "LSTM", "gru": "GRU"}.get(name, "RNN")
    kw = {"nonlinearity": name[4:]} if cls == "RNN" else {}
    for bidir, batch_first, bias in ((False, False, True), (True, True, False)):
        torch.manual_seed(0)
        mod = getattr(torch.nn, cls)(4, 5, num_layers=2, bias=bias, batch_first=batch_first,
                                     bidirectional=bidir, dtype=torch.float64, **kw)
        params = [p.detach().numpy() for p in mod._flat_weights]
        x = A(3, 6, 4)
        D_ = 2 if bidir else 1
        h0 = A(2 * D_, 3 if batch_first else 6, 5)
        tp = [torch.tensor(p) for p in params]
        ep = [ember.tensor(p) for p in params]
        if name == "lstm":
            c0 = A(*h0.shape)
            to = torch.lstm(torch.tensor(x), [torch.tensor(h0), torch.tensor(c0)], tp, bias, 2, 0.0,
                            False, bidir, batch_first)
            eo = ember.lstm(ember.tensor(x), [ember.tensor(h0), ember.tensor(c0)], ep, bias, 2, 0.0,
                            False, bidir, batch_first)
        else:
            to = getattr(torch, name)(torch.tensor(x), torch.tensor(h0), tp, bias, 2, 0.0, False,
                                      bidir, batch_first)
            eo = getattr(ember, name)(ember.tensor(x), ember.tensor(h0), ep, bias, 2, 0.0, False,
                                      bidir, batch_first)
        _close(eo, to)


def test_lstm_with_projection():
    torch.manual_seed(1)
    mod = torch.nn.LSTM(4, 6, proj_size=3, dtype=torch.float64)
    params = [p.detach().numpy() for p in mod._flat_weights]
    x, h0, c0 = A(5, 2, 4), A(1, 2, 3), A(1, 2, 6)
    to = torch.lstm(torch.tensor(x), [torch.tensor(h0), torch.tensor(c0)],
                    [torch.tensor(p) for p in params], True, 1, 0.0, False, False, False)
    eo = ember.lstm(ember.tensor(x), [ember.tensor(h0), ember.tensor(c0)],
                    [ember.tensor(p) for p in params], True, 1, 0.0, False, False, False)
    _close(eo, to)


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_embedding_bag_four_outputs(mode):
    w = A(10, 3)
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9])
    off = np.array([0, 4, 4])
    for padding_idx in (None, 2):
        we, wt = _pair(w, grad=True)
        eo = ember.embedding_bag(we, ember.tensor(idx), ember.tensor(off), False, mode, False, None,
                                 False, padding_idx)
        to = torch.embedding_bag(wt, torch.tensor(idx), torch.tensor(off), False, mode, False, None,
                                 False, padding_idx)
        _close(eo, to)
        eo[0].sum().backward()
        to[0].sum().backward()
        _close(we.grad, wt.grad)
    w_plain = ember.tensor(w, dtype=ember.float32), torch.tensor(w, dtype=torch.float32)
    # float32: torch's fast sum path leaves offset2bag empty
    eo = ember.embedding_bag(w_plain[0], ember.tensor(idx), ember.tensor(off), False, mode)
    to = torch.embedding_bag(w_plain[1], torch.tensor(idx), torch.tensor(off), False, mode)
    _close(eo, to)
