"""Spectral decompositions and matrix functions (layer L1): svd, eigh, eig, pinv, matrix_exp, lu.

Derivatives are PyTorch's (``svd_backward``, ``linalg_eig_backward``, ``pinv_backward``, the block
matrix trick for ``matrix_exp``, ``linalg_lu_backward``), with the same gauge conventions: a loss that
depends on the phase of complex singular/eigen vectors raises, as in torch. ``svdvals``/``eigvalsh``
are separate primitives so an unused vector output never enters the backward formula (torch skips
undefined gradients; zeros would turn ``0 / 0`` into NaN for repeated values).
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .linalg_decomp import (_kcheck, _meta_checks, _sl, check_float, check_matrix,
                            linalg_solve, linalg_solve_triangular)
from ._registry import TensorMeta, primitive
from .shape_copy import cat

__all__ = ["linalg_svd", "linalg_svdvals", "linalg_eigh", "linalg_eigvalsh", "linalg_eig",
           "linalg_eigvals", "linalg_pinv", "linalg_matrix_exp", "linalg_lu"]


def _eye(t, n, dtype=None):
    return t.new_tensor(np.eye(n), dtype=dtype or t.dtype)


def _skew(X):
    return X - X.mH


def _check_phase(X, name, what):
    if X.is_complex() and X.numel():
        im = X.diagonal(0, -2, -1).imag
        if float(im.abs().max()) > 1e-2:
            tail = ("depends on this phase term, making it ill-defined." if what == "singular vectors"
                    else "depends on this quantity, so it is ill-defined.")
            raise RuntimeError(f"{name}: The {what} in the complex case are specified up to "
                               f"multiplication by e^{{i phi}}. The specified loss function {tail}")


# ------------------------------------------------------------------------------ svd
@primitive("linalg_svd", num_outputs=3)
def linalg_svd(a, *, full_matrices=True):
    _kcheck(a, square=False)
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return u, s, vh


def _svd_meta(a, full_matrices, name="linalg.svd"):
    check_matrix(a, name, square=False)
    check_float(a, name)
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    b = tuple(a.shape[:-2])
    ur, vr = (m, n) if full_matrices else (k, k)
    return (TensorMeta(b + (m, ur), a.dtype), TensorMeta(b + (k,), a.dtype.to_real()),
            TensorMeta(b + (vr, n), a.dtype))


@linalg_svd.meta
def _(a, *, full_matrices=True):
    return _svd_meta(a, full_matrices)


def _div(num, den, zero_safe):
    # zero_safe: a zero numerator gives 0 even where den is 0 (svdvals' U/Vh get zero-filled grads
    # from the engine, where torch has none: a zero matrix's subgradient must stay finite)
    return num / (den.where(num != 0, den.new_ones(())) if zero_safe else den)


def svd_backward(gU, gS, gVh, U, S, Vh, zero_safe=False):
    """PyTorch's svd_backward; ``gU``/``gVh`` may be None (svdvals)."""
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        return U[..., :, :S.shape[-1]] @ (gS.unsqueeze(-1) * Vh[..., :S.shape[-1], :]).to(U.dtype)
    gU = U.new_zeros(U.shape) if gU is None else gU
    gVh = Vh.new_zeros(Vh.shape) if gVh is None else gVh
    is_wide = m < n
    if is_wide:
        U, Vh = Vh.mH, U.mH
        gU, gVh = gVh.mH, gU.mH
        m, n = n, m
    k = S.shape[-1]
    U, gU = U[..., :, :k], gU[..., :, :k]
    V, gV = Vh.mH[..., :, :k], gVh.mH[..., :, :k]
    UhgU = _skew(U.mH @ gU)
    VhgV = _skew(V.mH @ gV)
    if U.is_complex():
        _check_phase(UhgU + VhgV, "svd_backward", "singular vectors")
    S2 = S * S
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + _eye(S, k)
    Sc = S.to(U.dtype)
    ret = _div(UhgU * Sc.unsqueeze(-2) + Sc.unsqueeze(-1) * VhgV, E, zero_safe)
    if gS is not None:
        ret = ret + gS.to(U.dtype).diag_embed()
    if U.is_complex():
        ret = ret + _div(UhgU.diagonal(0, -2, -1), 2 * Sc, zero_safe).diag_embed()
    if m > k:
        gUSinv = _div(gU, Sc.unsqueeze(-2), zero_safe)
        gA = U @ ret + gUSinv - U @ (U.mH @ gUSinv)
        gA = gA @ V.mH
    else:
        gA = U @ (ret @ V.mH)
    return gA.mH if is_wide else gA


@linalg_svd.derivative
def _(grads, outs):
    return svd_backward(*grads, *outs)


# U and Vh are differentiable outputs although only the backward uses them: a second derivative flows
# through them (the first backward reaches this node again with their gradients)
@primitive("linalg_svdvals", num_outputs=3, node_name="LinalgSvdBackward0")
def linalg_svdvals(a):
    """``(S, U, Vh)`` with reduced U/Vh kept for the backward only."""
    _kcheck(a, square=False)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return s, u, vh


@linalg_svdvals.meta
def _(a):
    u, s, vh = _svd_meta(a, False, "linalg.svdvals")
    return s, u, vh


@linalg_svdvals.derivative
def _(grads, outs):
    S, U, Vh = outs
    gS, gU, gVh = grads
    return svd_backward(gU, gS, gVh, U, S, Vh, zero_safe=True)


# ------------------------------------------------------------------------------ eigh / eig
def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


@primitive("linalg_eigh", num_outputs=2)
def linalg_eigh(a, *, UPLO="L"):
    _kcheck(a)
    _uplo(UPLO)
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    return w, v


@linalg_eigh.meta
def _(a, *, UPLO="L"):
    _meta_checks(a, "linalg.eigh")
    _uplo(UPLO)
    return TensorMeta(a.shape[:-1], a.dtype.to_real()), TensorMeta(a.shape, a.dtype)


def eig_backward(gL, gV, L, V, hermitian):
    """PyTorch's linalg_eig_backward (``gV`` None: eigenvalues only)."""
    if gV is None:
        gLc = gL.to(V.dtype)
        if hermitian:
            return (V * gLc.unsqueeze(-2)) @ V.mH
        return linalg_solve(V.mH, gLc.unsqueeze(-1) * V.mH, left=True)
    VhgV = V.mH @ gV
    name = "linalg_eigh_backward" if hermitian else "linalg_eig_backward"
    if V.is_complex():
        _check_phase(VhgV, name, "eigenvectors")
    if hermitian:
        VhgV = 0.5 * _skew(VhgV)
    else:
        d = VhgV.diagonal(0, -2, -1).real.to(V.dtype)
        VhgV = VhgV - V.mH @ (V * d.unsqueeze(-2))
    n = L.shape[-1]
    Lc = L.conj().to(V.dtype)
    eye = _eye(V, n)
    E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + eye
    ret = (VhgV / E) * (1 - eye)
    if gL is not None:
        ret = ret + gL.to(V.dtype).diag_embed()
    if hermitian:
        return V @ (ret @ V.mH)
    return linalg_solve(V.mH, ret @ V.mH, left=True)


@linalg_eigh.derivative
def _(grads, outs):
    return eig_backward(grads[0], grads[1], outs[0], outs[1], True)


@primitive("linalg_eigvalsh", num_outputs=2, node_name="LinalgEighBackward0")  # V: for second derivatives
def linalg_eigvalsh(a, *, UPLO="L"):
    _kcheck(a)
    _uplo(UPLO)
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    return w, v


@linalg_eigvalsh.meta
def _(a, *, UPLO="L"):
    _meta_checks(a, "linalg.eigvalsh")
    _uplo(UPLO)
    return TensorMeta(a.shape[:-1], a.dtype.to_real()), TensorMeta(a.shape, a.dtype)


@linalg_eigvalsh.derivative
def _(grads, outs):
    return eig_backward(grads[0], grads[1], outs[0], outs[1], True)


def _complex_np(npdt):
    return np.dtype(np.complex64) if npdt in (np.float32, np.complex64) else np.dtype(np.complex128)


def _eig_kernel(a):
    _kcheck(a)
    if not np.isfinite(a).all():
        raise ValueError("linalg.eig: nonfinite")
    w, v = np.linalg.eig(a)
    c = _complex_np(a.dtype)
    return w.astype(c, copy=False), v.astype(c, copy=False)


def _eig_meta(a, name):
    _meta_checks(a, name)
    if a._data is not None and not np.isfinite(a._data).all():
        raise RuntimeError(f"{name}: input tensor should not contain infs or NaNs.")
    c = D.complex64 if a.dtype in (D.float32, D.complex64) else D.complex128
    return TensorMeta(a.shape[:-1], c), TensorMeta(a.shape, c)


@primitive("linalg_eig", num_outputs=2)
def linalg_eig(a):
    return _eig_kernel(a)


@linalg_eig.meta
def _(a):
    return _eig_meta(a, "linalg.eig")


@linalg_eig.derivative
def _(grads, outs):
    return eig_backward(grads[0], grads[1], outs[0], outs[1], False)


@primitive("linalg_eigvals", num_outputs=2, node_name="LinalgEigBackward0")  # V: for second derivatives
def linalg_eigvals(a):
    return _eig_kernel(a)


@linalg_eigvals.meta
def _(a):
    return _eig_meta(a, "linalg.eigvals")


@linalg_eigvals.derivative
def _(grads, outs):
    return eig_backward(grads[0], grads[1], outs[0], outs[1], False)


# ------------------------------------------------------------------------------ pinv
@primitive("linalg_pinv")
def linalg_pinv(a, *, atol=None, rtol=None, hermitian=False):
    _kcheck(a, square=hermitian)
    m, n = a.shape[-2], a.shape[-1]
    if rtol is None:
        rtol = 0.0 if (atol is not None and np.any(np.asarray(atol) > 0)) else \
            np.finfo(a.dtype).eps * max(m, n)
    atol = 0.0 if atol is None else atol
    if a.size == 0:
        return np.zeros(a.shape[:-2] + (n, m), a.dtype)
    if hermitian:
        w, v = np.linalg.eigh(a)
        s = np.abs(w)
        smax = s.max(-1, keepdims=True)
        thr = np.maximum(np.asarray(atol)[..., None], np.asarray(rtol)[..., None] * smax)
        with np.errstate(divide="ignore"):
            winv = np.where(s > thr, 1 / w, 0).astype(a.dtype)
        return (v * winv[..., None, :]) @ np.swapaxes(v, -1, -2).conj()
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    smax = s.max(-1, keepdims=True) if s.shape[-1] else s
    thr = np.maximum(np.asarray(atol)[..., None], np.asarray(rtol)[..., None] * smax)
    with np.errstate(divide="ignore"):
        sinv = np.where(s > thr, 1 / s, 0).astype(a.dtype)
    return np.swapaxes(vh, -1, -2).conj() @ (sinv[..., :, None] * np.swapaxes(u, -1, -2).conj())


@linalg_pinv.meta
def _(a, *, atol=None, rtol=None, hermitian=False):
    check_matrix(a, "linalg.pinv", square=hermitian)
    check_float(a, "linalg.pinv")
    return TensorMeta(tuple(a.shape[:-2]) + (a.shape[-1], a.shape[-2]), a.dtype)


@linalg_pinv.derivative
def _(grad, a, out):
    m, n = a.shape[-2], a.shape[-1]
    pinvAh = out.mH
    gradh = grad.mH
    if m <= n:
        K = gradh @ out
        KpinvAh = K @ pinvAh
        return (-(out @ K).mH + KpinvAh - (a @ out) @ KpinvAh
                + (pinvAh @ out) @ (gradh - K @ a))
    K = out @ gradh
    pinvAhK = pinvAh @ K
    return (-(K @ out).mH + (gradh - a @ K) @ out @ pinvAh + pinvAhK
            - pinvAhK @ out @ a)


# ------------------------------------------------------------------------------ matrix_exp
@primitive("linalg_matrix_exp")
def linalg_matrix_exp(a):
    _kcheck(a)
    if a.size == 0:
        return a.copy()
    return np.asarray(_sl().expm(a)).astype(a.dtype, copy=False)


@linalg_matrix_exp.meta
def _(a):
    check_matrix(a, "linalg.matrix_exp")
    check_float(a, "linalg.matrix_exp")
    return TensorMeta(a.shape, a.dtype)


@linalg_matrix_exp.derivative
def _(grad, a):
    # exp([[A^H, G], [0, A^H]]) holds the adjoint derivative in its upper-right block
    n = a.shape[-1]
    ah = a.mH
    z = grad.new_zeros(grad.shape)
    d = a.dim()
    top = cat([ah, grad], dim=d - 1, sizes=(n, n))
    bottom = cat([z, ah], dim=d - 1, sizes=(n, n))
    big = cat([top, bottom], dim=d - 2, sizes=(n, n))
    return linalg_matrix_exp(big)[..., :n, n:]


# ------------------------------------------------------------------------------ lu
@primitive("linalg_lu", num_outputs=3, differentiable_outputs=(1, 2))
def linalg_lu(a, *, pivot=True):
    _kcheck(a, square=False)
    if not pivot:
        raise ValueError("linalg.lu: pivot=False")
    m, n = a.shape[-2], a.shape[-1]
    if a.size == 0:
        k = min(m, n)
        b = a.shape[:-2]
        return (np.broadcast_to(np.eye(m, dtype=a.dtype), b + (m, m)).copy(),
                np.zeros(b + (m, k), a.dtype), np.zeros(b + (k, n), a.dtype))
    P, L, U = _sl().lu(a, check_finite=False)
    return P.astype(a.dtype, copy=False), L, U


@linalg_lu.meta
def _(a, *, pivot=True):
    check_matrix(a, "linalg.lu", square=False)
    check_float(a, "linalg.lu")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    b = tuple(a.shape[:-2])
    return TensorMeta(b + (m, m), a.dtype), TensorMeta(b + (m, k), a.dtype), TensorMeta(b + (k, n), a.dtype)


@linalg_lu.derivative
def _(grads, outs):
    _, gL, gU = grads
    P, L, U = outs
    m, n = L.shape[-2], U.shape[-1]
    if m == n:
        # gA = P L^{-H} [tril(L^H gL, -1) + triu(gU U^H)] U^{-H}
        phi = (L.mH @ gL).tril(-1) + (gU @ U.mH).triu()
        gA = linalg_solve_triangular(L.mH, phi, upper=True, left=True, unitriangular=True)
        gA = linalg_solve_triangular(U.mH, gA, upper=False, left=False, unitriangular=False)
        return P @ gA
    if m < n:  # wide: A = P L [U1 | U2]
        U1, gU1, gU2 = U[..., :, :m], gU[..., :, :m], gU[..., :, m:]
        U2 = U[..., :, m:]
        phi = (L.mH @ gL - gU2 @ U2.mH).tril(-1) + (gU1 @ U1.mH).triu()
        g1 = linalg_solve_triangular(L.mH, phi, upper=True, left=True, unitriangular=True)
        g1 = linalg_solve_triangular(U1.mH, g1, upper=False, left=False, unitriangular=False)
        g2 = linalg_solve_triangular(L.mH, gU2, upper=True, left=True, unitriangular=True)
        return P @ cat([g1, g2], dim=g1.dim() - 1, sizes=(m, n - m))
    # tall: A = P [L1; L2] U
    L1, L2, gL1, gL2 = L[..., :n, :], L[..., n:, :], gL[..., :n, :], gL[..., n:, :]
    phi = (L1.mH @ gL1).tril(-1) + (gU @ U.mH - L2.mH @ gL2).triu()
    g1 = linalg_solve_triangular(L1.mH, phi, upper=True, left=True, unitriangular=True)
    g1 = linalg_solve_triangular(U.mH, g1, upper=False, left=False, unitriangular=False)
    g2 = linalg_solve_triangular(U.mH, gL2, upper=False, left=False, unitriangular=False)
    return P @ cat([g1, g2], dim=g1.dim() - 2, sizes=(n, m - n))

