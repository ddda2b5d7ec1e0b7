"""Shared check of the conv kernel tests: a conv's output and its three gradients, ember against torch."""
from __future__ import annotations

import numpy as np
import torch

import ember


def _conv(lib, ndim, transposed):
    return getattr(lib.nn.functional, f"conv_transpose{ndim}d" if transposed else f"conv{ndim}d")


def run(lib, x, w, b, kw, g, transposed=False):
    """[output, x.grad, w.grad, b.grad] of one conv with ``g`` as the output gradient."""
    x = lib.tensor(x, requires_grad=True)
    w = lib.tensor(w, requires_grad=True)
    b = lib.tensor(b, requires_grad=True)
    y = _conv(lib, x.dim() - 2, transposed)(x, w, b, **kw)
    y.backward(lib.tensor(g))
    return [v.detach() for v in (y, x.grad, w.grad, b.grad)]


def compare(xs, ws, kw, dtype, x=None, transposed=False, w_scale=1.0, **tol):
    """Random input ``xs`` (or ``x``), weight ``ws`` times ``w_scale``, bias and output gradient; every
    result within ``torch.testing.assert_close`` (its defaults, or ``tol``) of torch's."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs).astype(dtype) if x is None else x
    w = (rng.standard_normal(ws) * w_scale).astype(dtype)
    b = rng.standard_normal(ws[1] * kw.get("groups", 1) if transposed else ws[0]).astype(dtype)
    f = _conv(torch, len(xs) - 2, transposed)
    g = rng.standard_normal(tuple(f(torch.tensor(x), torch.tensor(w), None, **kw).shape)).astype(dtype)
    for e, t in zip(run(ember, x, w, b, kw, g, transposed), run(torch, x, w, b, kw, g, transposed)):
        torch.testing.assert_close(torch.from_numpy(e.numpy()), t, equal_nan=True, **tol)
