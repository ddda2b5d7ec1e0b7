"""Fused recurrent-cell primitives (layer L1): the pointwise part of an LSTM/GRU step in one kernel.

Written as ember ops, one LSTM step is ~10 dispatches forward, and its backward slices four gate
gradients into four zero-filled ``(B, 4H)`` buffers summed by three full-size adds. Here a step's
activations are computed once (NumPy, temporaries written with ``out=``) and kept in a workspace
output; the backward kernel writes every gate gradient into one buffer. The backward primitives have
hand-derived derivatives written in ember ops (recomputing the activations from the saved inputs), so
double backward works. ``rnn_split_steps`` cuts the projected input sequence into per-step pieces
whose backward is one concatenation (``unbind``/``split`` would zero-fill a full-sequence buffer per
step). Gate orders are torch's: LSTM ``i, f, g, o``; GRU ``r, z, n``.
"""
from __future__ import annotations

import numpy as np

from ._registry import ARRAY_K, TENSOR_K, TensorMeta, primitive

__all__ = ["gru_cell_pointwise", "gru_cell_pointwise_backward", "lstm_cell_pointwise",
           "lstm_cell_pointwise_backward", "lstm_layer", "lstm_layer_backward", "rnn_cat",
           "rnn_split_steps"]


def _check(name, gate_shape, chunks, state_shape, state_dtype, gate_dtype):
    """torch-style RuntimeError when the gate pre-activations and the state do not fit together."""
    if len(gate_shape) < 1 or gate_shape[-1] % chunks:
        raise RuntimeError(f"{name}: expected the last dim of the gates to be a multiple of {chunks}, "
                           f"got shape {list(gate_shape)}")
    want = tuple(gate_shape[:-1]) + (gate_shape[-1] // chunks,)
    if tuple(state_shape) != want:
        raise RuntimeError(f"{name}: expected a state of shape {list(want)}, got "
                           f"{list(state_shape)}")
    if state_dtype != gate_dtype:
        raise RuntimeError(f"{name}: expected the state to have dtype {gate_dtype}, got "
                           f"{state_dtype}")


def _cols(a, k, n):
    """The ``k``-th block of ``n`` columns along the last dim (a view)."""
    return a[..., k * n:(k + 1) * n]


def _sigmoid(x, out):
    """``1 / (1 + exp(-x))`` written into ``out``: NumPy's SIMD exp makes this ~4x faster than
    scipy's ``expit`` on float32, at the same relative accuracy. Callers silence overflow warnings:
    exp overflowing to inf correctly gives 0."""
    np.negative(x, out=out)
    np.exp(out, out=out)
    out += 1
    np.divide(1, out, out=out)


def _cat_last(parts):
    """Concatenate Tensors along their last dim (used in derivatives)."""
    dim = parts[0].dim() - 1
    return parts[0]._op(rnn_cat, list(parts[1:]), dim=dim, sizes=tuple(p.shape[dim] for p in parts))


# ------------------------------------------------------------------------------ LSTM
def _lstm_cell(gates, c_prev, h, c, act):
    """The LSTM cell's gate maths, the one definition the cell and layer kernels share: from
    pre-activations ``gates`` ``(*, 4H)`` and ``c_prev`` ``(*, H)`` it writes ``h``, ``c`` and the
    workspace ``act`` ``(*, 5H)`` = ``sigmoid(i), sigmoid(f), tanh(g), sigmoid(o), tanh(c)``."""
    n = gates.shape[-1] // 4
    with np.errstate(over="ignore"):
        _sigmoid(gates[..., :2 * n], act[..., :2 * n])
        _sigmoid(_cols(gates, 3, n), _cols(act, 3, n))
    np.tanh(_cols(gates, 2, n), out=_cols(act, 2, n))
    i, f, g, o, tc = (_cols(act, k, n) for k in range(5))
    np.multiply(f, c_prev, out=c)
    c += np.multiply(i, g, out=h)  # h is free until the last line: the product's buffer
    np.tanh(c, out=tc)
    np.multiply(o, tc, out=h)


@primitive("lstm_cell_pointwise", num_outputs=3, differentiable_outputs=(0, 1))
def lstm_cell_pointwise(gates, c_prev):
    """``(h, c, workspace)`` of one LSTM step from pre-activations ``gates`` ``(*, 4H)`` and
    ``c_prev`` ``(*, H)``; ``workspace`` ``(*, 5H)`` holds ``sigmoid(i), sigmoid(f), tanh(g),
    sigmoid(o), tanh(c)`` for the backward."""
    _check("lstm_cell_pointwise", gates.shape, 4, c_prev.shape, c_prev.dtype, gates.dtype)
    n = gates.shape[-1] // 4
    lead = gates.shape[:-1]
    h, c = np.empty(lead + (n,), gates.dtype), np.empty(lead + (n,), gates.dtype)
    act = np.empty(lead + (5 * n,), gates.dtype)
    _lstm_cell(gates, c_prev, h, c, act)
    return h, c, act


@lstm_cell_pointwise.meta
def _(gates, c_prev):
    _check("lstm_cell_pointwise", gates.shape, 4, c_prev.shape, c_prev.dtype, gates.dtype)
    lead = tuple(gates.shape[:-1])
    n = gates.shape[-1] // 4
    return (TensorMeta(lead + (n,), gates.dtype), TensorMeta(lead + (n,), gates.dtype),
            TensorMeta(lead + (5 * n,), gates.dtype))


@lstm_cell_pointwise.derivative
def _(grads, gates, c_prev, out2):
    return grads[0]._op(lstm_cell_pointwise_backward, grads[1], gates, c_prev, out2)


@primitive("lstm_cell_pointwise_backward", num_outputs=2)
def lstm_cell_pointwise_backward(grad_h, grad_c, gates, c_prev, workspace):
    """``(grad_gates (*, 4H), grad_c_prev (*, H))`` of ``lstm_cell_pointwise``; reads the
    activations from ``workspace`` (``gates`` is an input only so the derivative can see it)."""
    n = gates.shape[-1] // 4
    i, f, g, o, tc = (_cols(workspace, k, n) for k in range(5))
    dt = np.result_type(grad_h, grad_c, gates)
    shape = np.broadcast_shapes(gates.shape, grad_h.shape[:-1] + (4 * n,))
    # column-major when the workspace is (the layer op's gate-major steps), so every loop is linear
    out = np.empty(shape[::-1], dt).T if workspace.ndim == 2 and workspace.flags.f_contiguous \
        and not workspace.flags.c_contiguous else np.empty(shape, dt)
    gi, gf, gg, go = (_cols(out, k, n) for k in range(4))
    # dc = grad_c + grad_h * o * (1 - tanh(c)^2): the cell gradient every gate reads
    t = np.multiply(tc, tc)
    np.subtract(1, t, out=t)
    dc = np.multiply(grad_h, o)
    dc *= t
    dc += grad_c
    np.subtract(1, o, out=go)  # grad_o = grad_h * tanh(c) * o * (1 - o)
    go *= o
    go *= tc
    go *= grad_h
    np.subtract(1, i, out=gi)  # grad_i = dc * g * i * (1 - i)
    gi *= i
    gi *= g
    gi *= dc
    np.subtract(1, f, out=gf)  # grad_f = dc * c_prev * f * (1 - f)
    gf *= f
    gf *= c_prev
    gf *= dc
    np.multiply(g, g, out=gg)  # grad_g = dc * i * (1 - g^2)
    np.subtract(1, gg, out=gg)
    gg *= i
    gg *= dc
    dc *= f
    return out, dc


@lstm_cell_pointwise_backward.meta
def _(grad_h, grad_c, gates, c_prev, workspace):
    return TensorMeta(tuple(gates.shape), gates.dtype), TensorMeta(tuple(c_prev.shape), gates.dtype)


@lstm_cell_pointwise_backward.derivative
def _(ggs, grad_h, grad_c, gates, c_prev):
    # hand-derived: A* are the cotangents of the four gate gradients, Acp that of grad_c_prev
    A, Acp = ggs
    n = gates.shape[-1] // 4
    ai, af, ag, ao = (gates.narrow(-1, k * n, n) for k in range(4))
    Ai, Af, Ag, Ao = (A.narrow(-1, k * n, n) for k in range(4))
    i, f, g, o = ai.sigmoid(), af.sigmoid(), ag.tanh(), ao.sigmoid()
    tc = (f * c_prev + i * g).tanh()
    si, sf, so = i * (1 - i), f * (1 - f), o * (1 - o)
    sg, st = 1 - g * g, 1 - tc * tc
    dc = grad_c + grad_h * o * st
    a_dc = Ai * g * si + Af * c_prev * sf + Ag * i * sg + Acp * f
    d_grad_h = a_dc * o * st + Ao * tc * so
    a_c = (a_dc * grad_h * o * tc * -2 + Ao * grad_h * so) * st
    a_o = a_dc * grad_h * st + Ao * grad_h * tc * (1 - 2 * o)
    a_i = Ai * dc * g * (1 - 2 * i) + Ag * dc * sg + a_c * g
    a_f = Af * dc * c_prev * (1 - 2 * f) + Acp * dc + a_c * c_prev
    a_g = Ai * dc * si + Ag * dc * i * g * -2 + a_c * i
    d_c_prev = Af * dc * sf + a_c * f
    d_gates = _cat_last([a_i * si, a_f * sf, a_g * sg, a_o * so])
    return d_grad_h, a_dc, d_gates, d_c_prev, None


# ------------------------------------------------------------------------------ LSTM layer
def _layer_check(x, h0, c0, w_ih, w_hh, bias):
    """torch-style RuntimeError unless the shapes and dtypes of one LSTM layer fit together."""
    if len(x.shape) != 3 or len(w_ih.shape) != 2 or len(w_hh.shape) != 2:
        raise RuntimeError(f"lstm_layer: expected a (T, B, I) input and 2-d weights, got "
                           f"{list(x.shape)}, {list(w_ih.shape)}, {list(w_hh.shape)}")
    t, b, i = x.shape
    g, n = w_hh.shape
    want = {"weight_ih": ((g, i), w_ih.shape), "weight_hh": ((4 * n, n), w_hh.shape),
            "h0": ((b, n), h0.shape), "c0": ((b, n), c0.shape)}
    if bias is not None:
        want["bias"] = ((g,), bias.shape)
    for name, (shape, got) in want.items():
        if tuple(got) != shape:
            raise RuntimeError(f"lstm_layer: expected {name} of shape {list(shape)} for input "
                               f"{list(x.shape)} and weight_hh {list(w_hh.shape)}, got {list(got)}")
    for a in (h0, c0, w_ih, w_hh) + ((bias,) if bias is not None else ()):
        if a.dtype != x.dtype:
            raise RuntimeError(f"lstm_layer: expected every tensor to have dtype {x.dtype}, got "
                               f"{a.dtype}")


@primitive("lstm_layer", num_outputs=6, differentiable_outputs=(0, 1, 2))
def lstm_layer(x, h0, c0, w_ih, w_hh, bias, *, reverse=False):
    """One LSTM layer in one direction over a whole sequence, as one op: ``x`` ``(T, B, I)``,
    states ``h0, c0`` ``(B, H)``, ``w_ih`` ``(4H, I)``, ``w_hh`` ``(4H, H)``, ``bias`` ``(4H,)``
    (``b_ih + b_hh``) or None. Returns ``(out (T, B, H), h_n, c_n, gates (T, 4H, B), c_prev
    (T, H, B), workspace (T, 5H, B))``: the last three, gate-major, are what the backward reads
    (each step's pre-activations and incoming cell state, and the cell's workspace).

    Steps run gate-major: ``gates_t^T = w_ih x_t^T + w_hh h^T`` is a ``(4H, B)`` product, which
    OpenBLAS runs ~10-25% faster at these shapes than ``(B, 4H)``, and the cell's maths runs on
    transposed views of the gate-major buffers."""
    _layer_check(x, h0, c0, w_ih, w_hh, bias)
    with np.errstate(invalid="ignore", over="ignore"):  # inf/nan inputs propagate silently, as torch
        return _layer_forward(x, h0, c0, w_ih, w_hh, bias, reverse)


def _layer_forward(x, h0, c0, w_ih, w_hh, bias, reverse):
    t, b, _ = x.shape
    n = w_hh.shape[1]
    dt = x.dtype
    gates = np.matmul(w_ih, x.transpose(0, 2, 1))  # shape: (T, 4H, B)
    if bias is not None:
        gates += bias[:, None]
    out, c_prev = np.empty((t, n, b), dt), np.empty((t, n, b), dt)
    act, c_n = np.empty((t, 5 * n, b), dt), np.empty((n, b), dt)
    step = np.empty((4 * n, b), dt)
    order = range(t - 1, -1, -1) if reverse else range(t)
    h = np.ascontiguousarray(h0.T)
    if t:
        c_prev[order[0]] = c0.T
    for k, s in enumerate(order):
        np.matmul(w_hh, h, out=step)
        g = gates[s]
        g += step
        # the new cell state goes straight into the next step's c_prev slot
        c = c_prev[order[k + 1]] if k + 1 < t else c_n
        _lstm_cell(g.T, c_prev[s].T, out[s].T, c.T, act[s].T)
        h = out[s]
    if not t:
        c_n[...] = c0.T
    return (np.ascontiguousarray(out.transpose(0, 2, 1)), np.ascontiguousarray(h.T),
            np.ascontiguousarray(c_n.T), gates, c_prev, act)


@lstm_layer.meta
def _(x, h0, c0, w_ih, w_hh, bias, *, reverse=False):
    _layer_check(x, h0, c0, w_ih, w_hh, bias)
    t, b, _ = x.shape
    n = w_hh.shape[1]
    return tuple(TensorMeta(s, x.dtype) for s in ((t, b, n), (b, n), (b, n), (t, 4 * n, b),
                                                  (t, n, b), (t, 5 * n, b)))


def _layer_grads(K, g_out, g_hn, g_cn, g_gates, g_cprev, x, h0, w_ih, w_hh, out, gates, c_prev,
                 act, reverse, needs):
    """The backward of ``lstm_layer``, written once against an ops namespace ``K``: on arrays
    (``ARRAY_K``) it is ``lstm_layer_backward``'s kernel, on Tensors (``TENSOR_K``) a composite
    whose graph gives the double backward. Steps run in reverse through the cell's backward
    primitive (on transposed views of the gate-major saved values) and one ``(H, 4H) @ (4H, B)``
    product each; the weight gradients are one GEMM each over all steps. ``g_gates``/``g_cprev``
    (or None) are cotangents of the saved ``gates`` and ``c_prev`` outputs (they arrive in a
    double backward). Returns the gradients of ``(x, h0, c0, w_ih, w_hh, bias)`` (None where
    ``needs`` says so)."""
    t, b, n = out.shape

    def T(a):  # shape: (P, Q) -> (Q, P), a view
        return K.transpose(a, dim0=0, dim1=1)

    def at(a, s):
        return K.select(a, dim=0, index=s)

    order = range(t) if reverse else range(t - 1, -1, -1)
    w_hh_t = T(w_hh)
    dh, dc = T(g_hn), g_cn  # dh gate-major (H, B)
    dgs = [None] * t
    for k, s in enumerate(order):
        dh = K.add(dh, T(at(g_out, s)))
        dg, dc = K.lstm_cell_pointwise_backward(T(dh), dc, T(at(gates, s)), T(at(c_prev, s)),
                                                T(at(act, s)))
        dg = T(dg)  # shape: (4H, B)
        if g_gates is not None:
            dg = K.add(dg, at(g_gates, s))
        if g_cprev is not None:
            dc = K.add(dc, T(at(g_cprev, s)))
        dgs[s] = dg
        if k + 1 < t or needs[1]:
            dh = K.mm(w_hh_t, dg)
    d_all = K.cat(dgs, dim=1, sizes=(b,) * t)  # shape: (4H, T * B), columns step-major like x
    d_x = d_w_ih = d_w_hh = d_b = None
    if needs[0]:
        d_x = K.reshape(K.mm(T(d_all), w_ih), tuple(x.shape))
    if needs[3]:
        d_w_ih = K.mm(d_all, K.reshape(x, (t * b, x.shape[2])))
    if needs[4]:  # the state each step read: h0 first (in processing order), then the outputs
        first = K.unsqueeze(h0, dim=0)
        if t == 1:
            h_prev = first
        elif reverse:
            h_prev = K.cat([K.slice(out, dim=0, start=1, end=t, step=1), first], dim=0,
                           sizes=(t - 1, 1))
        else:
            h_prev = K.cat([first, K.slice(out, dim=0, start=0, end=t - 1, step=1)], dim=0,
                           sizes=(1, t - 1))
        d_w_hh = K.mm(d_all, K.reshape(h_prev, (t * b, n)))
    if needs[5]:
        d_b = K.sum(d_all, dim=(1,), keepdim=False, dtype=None)
    return (d_x, T(dh) if needs[1] else None, dc if needs[2] else None, d_w_ih, d_w_hh, d_b)


@lstm_layer.derivative
def _(grads, x, h0, w_ih, w_hh, out, out3, out4, out5, *, reverse, needs_input_grad):
    g_gates, g_cprev = grads[3], grads[4]
    if out.requires_grad:  # a graph of this backward is recorded (create_graph): the composite
        return _layer_grads(TENSOR_K, grads[0], grads[1], grads[2], g_gates, g_cprev, x, h0, w_ih,
                            w_hh, out, out3, out4, out5, reverse, needs_input_grad)
    res = grads[0]._op(lstm_layer_backward, grads[1], grads[2], g_gates, g_cprev, x, h0, w_ih,
                       w_hh, out, out3, out4, out5, reverse=reverse, needs=needs_input_grad)
    return tuple(r if need else None for r, need in zip(res, needs_input_grad))


@primitive("lstm_layer_backward", num_outputs=6)
def lstm_layer_backward(grad_out, grad_h_n, grad_c_n, grad_gates, grad_c_prev, x, h0, w_ih, w_hh,
                        out, gates, c_prev, workspace, *, reverse, needs):
    """The gradients of ``lstm_layer``'s inputs ``(x, h0, c0, w_ih, w_hh, bias)`` (an empty array
    where ``needs`` is False) from its outputs' gradients; ``grad_gates``/``grad_c_prev`` may be
    None. Only reached without a graph of the backward: ``lstm_layer``'s derivative runs the same
    loop on Tensors when one is needed, so this op has no derivative of its own."""
    with np.errstate(invalid="ignore", over="ignore"):
        res = _layer_grads(ARRAY_K, grad_out, grad_h_n, grad_c_n, grad_gates, grad_c_prev, x, h0,
                           w_ih, w_hh, out, gates, c_prev, workspace, reverse, needs)
    return tuple(np.empty(0, x.dtype) if r is None else r for r in res)


@lstm_layer_backward.meta
def _(grad_out, grad_h_n, grad_c_n, grad_gates, grad_c_prev, x, h0, w_ih, w_hh, out, gates, c_prev,
      workspace, *, reverse, needs):
    shapes = (x.shape, h0.shape, h0.shape, w_ih.shape, w_hh.shape, (w_hh.shape[0],))
    return tuple(TensorMeta(tuple(s) if need else (0,), x.dtype) for s, need in zip(shapes, needs))


# ------------------------------------------------------------------------------ GRU
@primitive("gru_cell_pointwise", num_outputs=2, differentiable_outputs=(0,))
def gru_cell_pointwise(input_gates, hidden_gates, h_prev):
    """``(h, workspace)`` of one GRU step: ``input_gates = x W_ih^T + b_ih`` and ``hidden_gates =
    h_prev W_hh^T + b_hh`` (both ``(*, 3H)``), ``h_prev`` ``(*, H)``; ``workspace`` ``(*, 3H)``
    holds ``r, z, n`` for the backward."""
    _check("gru_cell_pointwise", input_gates.shape, 3, h_prev.shape, h_prev.dtype,
           input_gates.dtype)
    if hidden_gates.shape != input_gates.shape or hidden_gates.dtype != input_gates.dtype:
        raise RuntimeError(f"gru_cell_pointwise: expected hidden_gates like input_gates "
                           f"{list(input_gates.shape)}, got {list(hidden_gates.shape)}")
    n = input_gates.shape[-1] // 3
    act = np.add(input_gates, hidden_gates)
    rz = act[..., :2 * n]
    with np.errstate(over="ignore"):
        _sigmoid(rz, rz)
    r, z, nn = (_cols(act, k, n) for k in range(3))
    np.multiply(r, _cols(hidden_gates, 2, n), out=nn)
    nn += _cols(input_gates, 2, n)
    np.tanh(nn, out=nn)
    h = np.subtract(h_prev, nn)  # h = n + z * (h_prev - n)
    h *= z
    h += nn
    return h, act


@gru_cell_pointwise.meta
def _(input_gates, hidden_gates, h_prev):
    _check("gru_cell_pointwise", input_gates.shape, 3, h_prev.shape, h_prev.dtype,
           input_gates.dtype)
    if tuple(hidden_gates.shape) != tuple(input_gates.shape) or \
            hidden_gates.dtype != input_gates.dtype:
        raise RuntimeError(f"gru_cell_pointwise: expected hidden_gates like input_gates "
                           f"{list(input_gates.shape)}, got {list(hidden_gates.shape)}")
    return (TensorMeta(tuple(h_prev.shape), h_prev.dtype),
            TensorMeta(tuple(input_gates.shape), input_gates.dtype))


@gru_cell_pointwise.derivative
def _(grads, input_gates, hidden_gates, h_prev, out1):
    return grads[0]._op(gru_cell_pointwise_backward, input_gates, hidden_gates, h_prev, out1)


@primitive("gru_cell_pointwise_backward", num_outputs=3)
def gru_cell_pointwise_backward(grad_h, input_gates, hidden_gates, h_prev, workspace):
    """``(grad_input_gates, grad_hidden_gates, grad_h_prev)`` of ``gru_cell_pointwise``."""
    n = input_gates.shape[-1] // 3
    r, z, nn = (_cols(workspace, k, n) for k in range(3))
    dt = np.result_type(grad_h, input_gates)
    gx = np.empty(np.broadcast_shapes(input_gates.shape, grad_h.shape[:-1] + (3 * n,)), dt)
    gr, gz, gn = (_cols(gx, k, n) for k in range(3))
    np.multiply(nn, nn, out=gn)  # grad of n's pre-activation: grad_h * (1 - z) * (1 - n^2)
    np.subtract(1, gn, out=gn)
    t = np.subtract(1, z)
    gn *= t
    gn *= grad_h
    np.subtract(h_prev, nn, out=gz)  # grad of z's: grad_h * (h_prev - n) * z * (1 - z)
    gz *= grad_h
    t *= z
    gz *= t
    np.subtract(1, r, out=gr)  # grad of r's: grad_n * hidden_n * r * (1 - r)
    gr *= r
    gr *= _cols(hidden_gates, 2, n)
    gr *= gn
    gh = gx.copy()
    np.multiply(gn, r, out=_cols(gh, 2, n))
    return gx, gh, np.multiply(grad_h, z)


@gru_cell_pointwise_backward.meta
def _(grad_h, input_gates, hidden_gates, h_prev, workspace):
    return (TensorMeta(tuple(input_gates.shape), input_gates.dtype),
            TensorMeta(tuple(hidden_gates.shape), input_gates.dtype),
            TensorMeta(tuple(h_prev.shape), input_gates.dtype))


@gru_cell_pointwise_backward.derivative
def _(ggs, grad_h, input_gates, hidden_gates, h_prev):
    # hand-derived: cotangents of (grad_input_gates, grad_hidden_gates, grad_h_prev)
    Ax, Ah, Ap = ggs
    n = input_gates.shape[-1] // 3
    xr, xz, xn = (input_gates.narrow(-1, k * n, n) for k in range(3))
    hr, hz, hn = (hidden_gates.narrow(-1, k * n, n) for k in range(3))
    Axr, Axz, Axn = (Ax.narrow(-1, k * n, n) for k in range(3))
    Ahr, Ahz, Ahn = (Ah.narrow(-1, k * n, n) for k in range(3))
    r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
    nn = (xn + r * hn).tanh()
    sr, sz, tn = r * (1 - r), z * (1 - z), 1 - nn * nn
    hmn = h_prev - nn
    dan = grad_h * (1 - z) * tn  # the forward's gradients, needed as factors
    c_r, c_z = Axr + Ahr, Axz + Ahz
    c_n = Axn + Ahn * r + c_r * hn * sr  # total cotangent of dan
    d_grad_h = c_z * hmn * sz + c_n * (1 - z) * tn + Ap * z
    a_z = (-c_n * grad_h * tn + Ap * grad_h) + c_z * grad_h * hmn * (1 - 2 * z)
    a_nn = -c_z * grad_h * sz + c_n * grad_h * (1 - z) * nn * -2
    p_n = a_nn * tn
    p_r = (Ahn * dan + c_r * dan * hn * (1 - 2 * r) + p_n * hn) * sr
    p_z = a_z * sz
    d_hn = c_r * dan * sr + p_n * r
    d_x = _cat_last([p_r, p_z, p_n])
    d_h = _cat_last([p_r, p_z, d_hn])
    return d_grad_h, d_x, d_h, c_z * grad_h * sz, None


# ------------------------------------------------------------------------------ steps
# num_outputs=-1: the count comes from ``sizes`` (only ``== 1`` is ever tested on it)
@primitive("rnn_split_steps", num_outputs=-1)
def rnn_split_steps(a, *, sizes):
    """Consecutive row blocks of ``a`` ``(N, G)`` with ``sizes`` rows each (copies, one per step)."""
    if sum(sizes) != a.shape[0]:
        raise RuntimeError(f"rnn_split_steps: sizes {list(sizes)} do not sum to {a.shape[0]}")
    out, start = [], 0
    for s in sizes:
        out.append(a[start:start + s].copy())
        start += s
    return tuple(out)


@rnn_split_steps.meta
def _(a, *, sizes):
    if sum(sizes) != a.shape[0]:
        raise RuntimeError(f"rnn_split_steps: sizes {list(sizes)} do not sum to {a.shape[0]}")
    return tuple(TensorMeta((s,) + tuple(a.shape[1:]), a.dtype) for s in sizes)


@rnn_split_steps.derivative
def _(grads, *, sizes):
    return grads[0]._op(rnn_cat, list(grads[1:]), dim=0, sizes=tuple(sizes))


# derivatives reach other primitives through ``first._op(...)``: ``cat`` takes one list, so its
# first tensor cannot lead the call
@primitive("rnn_cat")
def rnn_cat(first, rest, *, dim, sizes):
    """``first`` and the tensors of ``rest`` concatenated along ``dim``; ``sizes``: every piece's
    extent along ``dim`` (so the backward saves nothing)."""
    return np.concatenate([first, *rest], axis=dim)


@rnn_cat.meta
def _(first, rest, *, dim, sizes):
    shape = list(first.shape)
    shape[dim] = sum(sizes)
    return TensorMeta(tuple(shape), first.dtype)


@rnn_cat.derivative
def _(grad, *, dim, sizes):
    out, start = [], 0
    for s in sizes:
        out.append(grad.narrow(dim, start, s))
        start += s
    return tuple(out)
