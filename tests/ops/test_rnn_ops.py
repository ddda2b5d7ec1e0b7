"""The fused recurrent-cell primitives (ember/_primitives/rnn_ops.py): values and first/second derivatives
equal the unfused formulas run by torch, gradcheck/gradgradcheck in float64, meta shapes and errors."""
import numpy as np
import pytest
import torch

import ember
from ember._dispatch import dispatch
from ember._primitives import rnn_ops as R

RNG = np.random.default_rng(0)


def _arr(*shape):
    return RNG.standard_normal(shape)


def _lstm_ref(gates, c):
    i, f, g, o = gates.chunk(4, -1)
    c = i.sigmoid() * g.tanh() + f.sigmoid() * c
    return o.sigmoid() * c.tanh(), c


def _gru_ref(xg, hg, h):
    xr, xz, xn = xg.chunk(3, -1)
    hr, hz, hn = hg.chunk(3, -1)
    r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return (1 - z) * n + z * h


def _lstm(gates, c):
    h, c, _ = dispatch(R.lstm_cell_pointwise, gates, c)
    return h, c


def _gru(xg, hg, h):
    return dispatch(R.gru_cell_pointwise, xg, hg, h)[0]


CASES = [  # (fused ember function, torch reference, input shapes)
    (_lstm, _lstm_ref, [(3, 8), (3, 2)]),
    (_gru, _gru_ref, [(3, 6), (3, 6), (3, 2)]),
]


def _both(arrays, dtype="float64"):
    e = [ember.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    t = [torch.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    return e, t


def _np(x):
    return x.detach().numpy()


@pytest.mark.parametrize("fused,ref,shapes", CASES, ids=["lstm", "gru"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_and_backward_match_torch(fused, ref, shapes, dtype):
    arrays = [_arr(*s) for s in shapes]
    e, t = _both(arrays, dtype)
    eo, to = fused(*e), ref(*t)
    eo = eo if isinstance(eo, tuple) else (eo,)
    to = to if isinstance(to, tuple) else (to,)
    tol = {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-12, "atol": 1e-12}
    for a, b in zip(eo, to):
        assert a.dtype == getattr(ember, dtype)
        np.testing.assert_allclose(_np(a), _np(b), **tol)
    ws = [_arr(*o.shape) for o in to]
    el = sum((o * ember.tensor(w.astype(dtype))).sum() for o, w in zip(eo, ws))
    tl = sum((o * torch.tensor(w.astype(dtype))).sum() for o, w in zip(to, ws))
    eg = ember.autograd.grad(el, e, create_graph=True)
    tg = torch.autograd.grad(tl, t, create_graph=True)
    for a, b in zip(eg, tg):
        np.testing.assert_allclose(_np(a), _np(b), **tol)
    # second order: differentiate a function of the first gradients
    egg = ember.autograd.grad(sum((g * g).sum() for g in eg), e)
    tgg = torch.autograd.grad(sum((g * g).sum() for g in tg), t)
    for a, b in zip(egg, tgg):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-4 if dtype == "float32" else 1e-10,
                                   atol=1e-5 if dtype == "float32" else 1e-10)


@pytest.mark.parametrize("fused,ref,shapes", CASES, ids=["lstm", "gru"])
def test_gradcheck_and_gradgradcheck(fused, ref, shapes):
    e, _ = _both([_arr(*s) for s in shapes])
    assert ember.autograd.gradcheck(fused, e)
    assert ember.autograd.gradgradcheck(fused, e)


def test_only_one_output_used_gets_zero_grad_for_the_other():
    gates, c = _arr(2, 8), _arr(2, 2)
    e, t = _both([gates, c])
    eg = ember.autograd.grad(_lstm(*e)[1].sum(), e)
    tg = torch.autograd.grad(_lstm_ref(*t)[1].sum(), t)
    for a, b in zip(eg, tg):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12, atol=1e-12)


def test_leading_dims_and_meta_shapes():
    gates = ember.randn(2, 3, 8)
    c = ember.randn(2, 3, 2)
    h, c2, _ = dispatch(R.lstm_cell_pointwise, gates, c)
    th, tc = _lstm_ref(torch.from_numpy(gates.numpy()), torch.from_numpy(c.numpy()))
    np.testing.assert_allclose(h.numpy(), th.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c2.numpy(), tc.numpy(), rtol=1e-5, atol=1e-6)
    m = dispatch(R.lstm_cell_pointwise, gates.to("meta"), c.to("meta"))
    assert [tuple(x.shape) for x in m] == [(2, 3, 2), (2, 3, 2), (2, 3, 10)]
    xg, hg, h0 = ember.randn(4, 9), ember.randn(4, 9), ember.randn(4, 3)
    m = dispatch(R.gru_cell_pointwise, xg.to("meta"), hg.to("meta"), h0.to("meta"))
    assert [tuple(x.shape) for x in m] == [(4, 3), (4, 9)]


def test_half_precision_computes_in_float32():
    gates, c = _arr(2, 8).astype(np.float32), _arr(2, 2).astype(np.float32)
    h, c2, _ = dispatch(R.lstm_cell_pointwise, ember.tensor(gates).bfloat16(),
                        ember.tensor(c).bfloat16())
    assert h.dtype == ember.bfloat16 and c2.dtype == ember.bfloat16
    th, _ = _lstm_ref(torch.tensor(gates).bfloat16(), torch.tensor(c).bfloat16())
    np.testing.assert_allclose(h.float().numpy(), th.float().numpy(), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("shapes,msg", [
    ([(2, 7), (2, 2)], "multiple of 4"),
    ([(2, 8), (3, 2)], "expected a state of shape"),
])
def test_bad_shapes_raise(shapes, msg):
    args = [ember.randn(*s) for s in shapes]
    for a in (args, [x.to("meta") for x in args]):
        with pytest.raises(RuntimeError, match=msg):
            dispatch(R.lstm_cell_pointwise, *a)


def test_split_steps_backward_is_one_concatenation():
    a = _arr(7, 3)
    e = ember.tensor(a, requires_grad=True)
    parts = dispatch(R.rnn_split_steps, e, sizes=(3, 2, 2))
    assert [tuple(p.shape) for p in parts] == [(3, 3), (2, 3), (2, 3)]
    np.testing.assert_array_equal(np.concatenate([_np(p) for p in parts]), a)
    (g,) = ember.autograd.grad((parts[0] * 2).sum() + parts[2].sum(), e)
    np.testing.assert_array_equal(g.numpy(), np.r_[np.full((3, 3), 2.0), np.zeros((2, 3)),
                                                   np.ones((2, 3))])
    assert ember.autograd.gradgradcheck(lambda x: dispatch(R.rnn_split_steps, x, sizes=(4, 3)),
                                        [e])
    with pytest.raises(RuntimeError, match="do not sum"):
        dispatch(R.rnn_split_steps, e, sizes=(3, 3))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_saturated_gates_match_torch_without_warnings(dtype):
    import warnings
    gates = np.array([[-200.0, 100.0, -95.0, 90.0, 30.0, -30.0, 200.0, -100.0]])
    c = np.array([[1.5, -2.0]])
    xg = np.array([[-200.0, 100.0, 95.0, -90.0, 30.0, -30.0]])
    e, t = _both([gates, c], dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eo = _lstm(*e)
        eg = _gru(ember.tensor(xg.astype(dtype)), ember.tensor(xg.astype(dtype) / 3), e[1])
    for a, b in zip(eo, _lstm_ref(*t)):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-6, atol=0)
    tg = _gru_ref(torch.tensor(xg.astype(dtype)), torch.tensor(xg.astype(dtype) / 3), t[1])
    np.testing.assert_allclose(_np(eg), _np(tg), rtol=1e-6, atol=0)


@pytest.mark.parametrize("cls", ["LSTMCell", "GRUCell"])
def test_cell_modules_double_backward_match_torch(cls):
    res = {}
    for lib in (ember, torch):
        lib.manual_seed(0)
        cell = getattr(lib.nn, cls)(3, 4).double()
        x = lib.tensor(_arr(2, 3) if lib is ember else res["x"], requires_grad=True)
        if lib is ember:
            res["x"] = x.detach().numpy().copy()
            res["params"] = [p.detach().numpy().copy() for p in cell.parameters()]
        else:
            with torch.no_grad():
                for p, v in zip(cell.parameters(), res["params"]):
                    p.copy_(torch.from_numpy(v))
        out = cell(x)
        out = out[0] + out[1] * 2 if cls == "LSTMCell" else out
        g, = lib.autograd.grad((out * out).sum(), x, create_graph=True)
        gw = lib.autograd.grad((g * g).sum(), list(cell.parameters()) + [x])
        res[lib.__name__] = [_np(v).copy() for v in (g, *gw)]
    for a, b in zip(res["ember"], res["torch"]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------------------ lstm_layer
def _lstm_module_pair(kw, dtype):
    """An ember and a torch ``LSTM(3, 4, **kw)`` with the same weights, in ``dtype``."""
    torch.manual_seed(0)
    tm = torch.nn.LSTM(3, 4, **kw).to(getattr(torch, dtype))
    em = ember.nn.LSTM(3, 4, **kw).to(getattr(ember, dtype))
    em.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return em, tm


@pytest.mark.parametrize("kw", [dict(num_layers=2, bidirectional=True, batch_first=True),
                                dict(bias=False), dict(bidirectional=True)],
                         ids=["2-layer-bidir", "no-bias", "bidir"])
def test_whole_layer_lstm_matches_torch_to_second_order(kw):
    # nn.LSTM runs one lstm_layer op per layer and direction; first and second derivatives of
    # every input, state and weight equal torch's
    em, tm = _lstm_module_pair(kw, "float64")
    d = 2 if kw.get("bidirectional") else 1
    n = kw.get("num_layers", 1) * d
    x = _arr(2, 5, 3) if kw.get("batch_first") else _arr(5, 2, 3)
    h0, c0 = _arr(n, 2, 4), _arr(n, 2, 4)
    res = {}
    for lib, m in ((ember, em), (torch, tm)):
        ins = [lib.tensor(a, requires_grad=True) for a in (x, h0, c0)]
        out, (h, c) = m(ins[0], (ins[1], ins[2]))
        loss = (out * out).sum() + (h * 3).sum() + (c * c).sum()
        params = list(m.parameters())
        g = lib.autograd.grad(loss, ins + params, create_graph=True)
        gg = lib.autograd.grad(sum((v * v).sum() for v in g), ins + params)
        res[lib.__name__] = [_np(v).copy() for v in (out, h, c, *g, *gg)]
    for a, b in zip(res["ember"], res["torch"]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


def test_whole_layer_lstm_float32_step_and_fallbacks():
    # float32 (the fused path) against torch; packed input and proj_size keep the per-step path
    em, tm = _lstm_module_pair(dict(num_layers=2), "float32")
    x = _arr(6, 3, 3).astype(np.float32)
    eo, (eh, ec) = em(ember.tensor(x))
    to, (th, tc) = tm(torch.tensor(x))
    for a, b in ((eo, to), (eh, th), (ec, tc)):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-5, atol=1e-6)
    assert eo.is_contiguous() and eh.is_contiguous()
    assert type(eo.grad_fn).__name__ == "LstmLayerBackward0"  # one node for the whole layer


def _layer_inputs(t=4, b=2, i=3, n=2, bias=True):
    arrays = [_arr(t, b, i), _arr(b, n), _arr(b, n), _arr(4 * n, i), _arr(4 * n, n)]
    if bias:
        arrays.append(_arr(4 * n))
    return [ember.tensor(a, requires_grad=True) for a in arrays]


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("t", [1, 3])
def test_lstm_layer_gradcheck_and_gradgradcheck(reverse, t):
    ins = _layer_inputs(t=t)

    def f(*a):
        return dispatch(R.lstm_layer, *a, reverse=reverse)[:3]
    assert ember.autograd.gradcheck(f, ins)
    assert ember.autograd.gradgradcheck(f, ins)


def test_lstm_layer_fused_backward_equals_its_composite():
    # the backward loop is one definition run on arrays (lstm_layer_backward's kernel) or on
    # Tensors (create_graph): both give the same first-order gradients
    ins = _layer_inputs(t=5, b=3, i=4, n=3)
    out, h, c = dispatch(R.lstm_layer, *ins)[:3]
    loss = (out * out).sum() + h.sum() + (c * 2).sum()
    fused = ember.autograd.grad(loss, ins, retain_graph=True)
    composite = ember.autograd.grad(loss, ins, create_graph=True)
    for a, b in zip(fused, composite):
        np.testing.assert_allclose(a.numpy(), _np(b), rtol=1e-12, atol=1e-13)


def test_lstm_layer_meta_shapes_and_errors():
    ins = _layer_inputs(t=4, b=2, i=3, n=2)
    meta = dispatch(R.lstm_layer, *[a.detach().to("meta") for a in ins])
    real = dispatch(R.lstm_layer, *[a.detach() for a in ins])
    assert [tuple(m.shape) for m in meta] == [tuple(r.shape) for r in real] == \
        [(4, 2, 2), (2, 2), (2, 2), (4, 8, 2), (4, 2, 2), (4, 10, 2)]
    bad = [a.detach() for a in ins]
    bad[1] = ember.zeros(3, 2, dtype=ember.float64)
    for args in (bad, [a.to("meta") for a in bad]):
        with pytest.raises(RuntimeError, match="expected h0 of shape"):
            dispatch(R.lstm_layer, *args)
    bad = [a.detach() for a in ins]
    bad[4] = bad[4].float()
    with pytest.raises(RuntimeError, match="dtype"):
        dispatch(R.lstm_layer, *bad)
