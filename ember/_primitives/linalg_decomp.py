"""Matrix decompositions and solvers (layer L1): LAPACK through NumPy (batched) and SciPy (lazily).

Each primitive takes batches of matrices ``(*, m, n)``. Kernels raise ``ValueError`` on structural
problems so dispatch re-runs the meta rule, which raises torch's message; a singular or
non-positive-definite input raises ``LinAlgError`` (a ``RuntimeError``, as ``torch.linalg.LinAlgError``)
with torch's wording. Derivatives follow PyTorch's ``FunctionsManual.cpp`` (same gauge conventions for
svd/eigh/eig), written with ember ops so they are differentiable again.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import _dtype as D
from .._errors import dtype_title
from .._shape import broadcast_shapes
from ._registry import REGISTRY, SlowPath, TensorMeta, primitive
from .shape_copy import cat

__all__ = ["LinAlgError", "linalg_inv_ex", "linalg_det", "linalg_slogdet", "linalg_solve", "linalg_solve_ex",
           "linalg_cholesky_ex", "cholesky_solve", "linalg_qr", "linalg_solve_triangular", "lu_pivots", "check_matrix",
           "raise_for_info",
           "check_float"]


class LinAlgError(RuntimeError):
    """A singular or non-positive-definite input (``torch.linalg.LinAlgError``)."""


LinAlgError.__module__ = "ember.linalg"


@functools.cache
def _sl():
    import scipy.linalg
    return scipy.linalg


# ------------------------------------------------------------------------------ checks
def check_matrix(A, name, square=True, arg="A"):
    """torch's shape errors for ``(*, n, n)`` inputs (meta side: ``A`` has ``.dim()``/``.shape``)."""
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def check_float(A, name, arg="input"):
    dt = A.dtype
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as {arg}. Got "
                           f"{dtype_title(dt)}")
    if dt in (D.float16, D.bfloat16):
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {dtype_title(dt)}")


def _meta_checks(A, name, square=True):
    check_matrix(A, name, square)
    check_float(A, name)


def _kcheck(a, square=True):
    """Kernel-side cheap check: anything odd goes to the meta rule for torch's message."""
    if a.ndim < 2 or (square and a.shape[-1] != a.shape[-2]) or a.dtype.kind not in "fc":
        raise SlowPath("linalg: bad input")


def _prefix(name, batch, idx):
    """torch prefixes batched errors with the failing element's flat index."""
    return f"{name}: (Batch element {idx}): " if len(batch) else f"{name}: "


# ------------------------------------------------------------------------------ inverse, det
def _lu_solve_each(a, b):
    """``getrf`` + ``getrs`` matrix by matrix: the slow path, taken only when a batch holds a singular
    matrix, so the result carries LAPACK's own inf/nan values and ``info`` (what torch returns)."""
    batch = a.shape[:-2]
    fa = np.ascontiguousarray(a).reshape((-1,) + a.shape[-2:])
    fb = np.ascontiguousarray(b).reshape((-1,) + b.shape[-2:])
    getrf, getrs = _sl().get_lapack_funcs(("getrf", "getrs"), (fa,))
    xs = np.empty(fb.shape, a.dtype)
    infos = np.zeros(fa.shape[0], np.int32)
    with np.errstate(all="ignore"):
        for i in range(fa.shape[0]):
            lu, piv, info = getrf(fa[i])
            xs[i] = getrs(lu, piv, fb[i])[0]
            infos[i] = max(info, 0)
    return xs.reshape(batch + b.shape[-2:]), infos.reshape(batch)


def _first_bad(infos):
    flat = infos.reshape(-1)
    bad = int(np.flatnonzero(flat)[0])
    return bad, int(flat[bad])


_INFO_MESSAGES = {
    "inv": "The diagonal element {k} is zero, the inversion could not be completed because the input "
           "matrix is singular.",
    "solve": "The solver failed because the input matrix is singular.",
    "cholesky": "The factorization could not be completed because the input is not positive-definite "
                "(the leading minor of order {k} is not positive-definite).",
}


def raise_for_info(kind, name, infos):
    """Raise torch's LinAlgError for the first non-zero LAPACK ``info`` (NumPy int array) under ``name``."""
    infos = np.asarray(infos)
    if not infos.any():
        return
    bad, k = _first_bad(infos)
    raise LinAlgError(_prefix(name, infos.shape, bad) + _INFO_MESSAGES[kind].format(k=k))


@primitive("linalg_inv_ex", num_outputs=2, differentiable_outputs=(0,))
def linalg_inv_ex(a, *, check_errors=False):
    _kcheck(a)
    try:
        return np.linalg.inv(a), np.zeros(a.shape[:-2], dtype=np.int32)
    except np.linalg.LinAlgError:
        pass
    out, infos = _lu_solve_each(a, np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape))
    if check_errors:
        raise_for_info("inv", "linalg.inv", infos)
    return out, infos


@linalg_inv_ex.meta
def _(a, *, check_errors=False):
    _meta_checks(a, "linalg.inv")
    return TensorMeta(a.shape, a.dtype), TensorMeta(a.shape[:-2], D.int32)


@linalg_inv_ex.derivative
def _(grads, outs):
    inv = outs[0]
    return -(inv.mH @ grads[0] @ inv.mH)


@primitive("linalg_det")
def linalg_det(a):
    _kcheck(a)
    return np.asarray(np.linalg.det(a))


@linalg_det.meta
def _(a):
    _meta_checks(a, "linalg.det")
    return TensorMeta(a.shape[:-2], a.dtype)


def _det_grad_regular(a, g):
    """``A^{-H} diag(g)``: the adjugate formula, for invertible matrices."""
    eye = a.new_tensor(np.eye(a.shape[-1]), dtype=a.dtype)
    return a.mH._op(linalg_solve, g.unsqueeze(-1).unsqueeze(-1) * eye, left=True)


def _det_grad_singular(a, grad):
    """Through the SVD ``A = U S Vh``: ``det A = det(U) det(Vh) prod(S)``, so
    ``gA = U diag(g * conj(det U det Vh) * prod_{j != i} S_j) Vh``; defined where ``A`` is singular."""
    U, S, Vh = a._op(REGISTRY["linalg_svd"], full_matrices=False)  # defined in linalg_spectral.py
    alpha = (U._op(linalg_det) * Vh._op(linalg_det)).conj()
    n = S.shape[-1]
    off = S.new_tensor(1 - np.eye(n), dtype=S.dtype)
    others = (S.unsqueeze(-2) * off + (1 - off)).prod(-1)  # prod over j != i, exact when S has zeros
    D = (grad * alpha).unsqueeze(-1) * others.to(a.dtype)
    return (U * D.unsqueeze(-2)) @ Vh


@linalg_det.derivative
def _(grad, a, out):
    # d det = det * tr(A^{-1} dA), which needs A^{-1}; near-singular matrices (|det| < 100 eps, torch's
    # threshold) take the SVD form instead, matrix by matrix
    g = grad * out.conj()
    if a.shape[-1] == 0:
        return a.new_zeros(a.shape)
    eps = float(np.finfo(a.dtype.to_real().np).eps)
    sing = out.abs() < 100 * eps
    if a.device.type == "meta" or not bool(sing.any()):
        return _det_grad_regular(a, g)
    if bool(sing.all()):
        return _det_grad_singular(a, grad)
    n = a.shape[-1]
    flat_a, flat_g, flat_grad = a.reshape(-1, n, n), g.reshape(-1), grad.reshape(-1)
    mask = sing.reshape(-1)
    idx_s = mask.nonzero().reshape(-1)
    idx_r = (~mask).nonzero().reshape(-1)
    parts = [_det_grad_singular(flat_a.index_select(0, idx_s), flat_grad.index_select(0, idx_s)),
             _det_grad_regular(flat_a.index_select(0, idx_r), flat_g.index_select(0, idx_r))]
    ns, nr = idx_s.shape[0], idx_r.shape[0]
    both = cat(parts, dim=0, sizes=(ns, nr))
    order = cat([idx_s, idx_r], dim=0, sizes=(ns, nr)).argsort()
    return both.index_select(0, order).reshape(a.shape)


@primitive("linalg_slogdet", num_outputs=2)
def linalg_slogdet(a):
    _kcheck(a)
    s, l = np.linalg.slogdet(a)
    return np.asarray(s), np.asarray(l)


@linalg_slogdet.meta
def _(a):
    _meta_checks(a, "linalg.slogdet")
    return TensorMeta(a.shape[:-2], a.dtype), TensorMeta(a.shape[:-2], a.dtype.to_real())


@linalg_slogdet.derivative
def _(grads, a, out):
    gsign, glog = grads
    sign = out  # only the sign is saved: logabsdet may be written in place, as in torch
    if a.is_complex():
        # torch: g = glogabsdet - i * Im(conj(sign) * gsign)
        g = (glog - 1j * (sign.conj() * gsign).imag).conj()
    else:
        g = glog
    n = a.shape[-1]
    eye = a.new_tensor(np.eye(n), dtype=a.dtype)
    # unchecked solve, as torch's: a singular A gives LAPACK's inf/NaN pattern instead of an error
    return a.mH._op(linalg_solve_ex, g.unsqueeze(-1).unsqueeze(-1) * eye, left=True)[0]


# ------------------------------------------------------------------------------ solve
def _solve(a, b, left, check_errors):
    """``(X, info)`` for ``A X = B`` (``X A = B``); ``b`` is ``(*, n, k)``, broadcast against ``a``."""
    _kcheck(a)
    if b.ndim < 2 or a.dtype != b.dtype:
        raise SlowPath
    if not left:
        x, info = _solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), True, check_errors)
        return np.swapaxes(x, -1, -2), info
    if b.shape[-2] != a.shape[-1]:
        raise SlowPath
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    try:
        return np.linalg.solve(a, b), np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        pass
    # info describes the factorisation of A alone, so it has A's batch shape (as torch's)
    infos = _lu_solve_each(a, np.zeros(a.shape[:-1] + (1,), a.dtype))[1]
    if check_errors:
        raise_for_info("solve", "torch.linalg.solve", infos)
    x = _lu_solve_each(np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:]))[0]
    return x, infos


def _solve_meta(a, b, left):
    check_matrix(a, "linalg.solve")
    check_float(a, "linalg.solve")
    if b.dtype is not a.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{dtype_title(a.dtype)} and B of type {dtype_title(b.dtype)} instead")
    n = a.shape[-1]
    k = b.shape[-2] if left else b.shape[-1]
    if b.dim() < 2 or k != n:
        bs = "x".join(str(s) for s in b.shape[-2:])
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {bs})")
    batch = broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    return TensorMeta(batch + tuple(b.shape[-2:]), a.dtype), TensorMeta(a.shape[:-2], D.int32)


def _solve_backward(grad, a, X, left, needs_input_grad):
    # AX = B: gB = A^{-H} g, gA = -gB X^H  (XA = B: gB = g A^{-H}, gA = -X^H gB)
    gb = a.mH._op(linalg_solve, grad, left=left)
    if not needs_input_grad[0]:
        return None, gb
    ga = -(gb @ X.mH) if left else -(X.mH @ gb)
    return ga, gb


@primitive("linalg_solve", node_name="LinalgSolveExBackward0")
def linalg_solve(a, b, *, left=True):
    """``A X = B`` (or ``X A = B``); a singular ``A`` raises."""
    return _solve(a, b, left, True)[0]


@linalg_solve.meta
def _(a, b, *, left=True):
    return _solve_meta(a, b, left)[0]


@linalg_solve.derivative
def _(grad, a, out, *, left, needs_input_grad):
    return _solve_backward(grad, a, out, left, needs_input_grad)


@primitive("linalg_solve_ex", num_outputs=2, differentiable_outputs=(0,))
def linalg_solve_ex(a, b, *, left=True, check_errors=False):
    """``(X, info)``: a singular ``A`` gives LAPACK's inf/nan solution and a non-zero ``info``."""
    return _solve(a, b, left, check_errors)


@linalg_solve_ex.meta
def _(a, b, *, left=True, check_errors=False):
    return _solve_meta(a, b, left)


@linalg_solve_ex.derivative
def _(grads, a, outs, *, left, needs_input_grad):
    return _solve_backward(grads[0], a, outs[0], left, needs_input_grad)


# ------------------------------------------------------------------------------ cholesky
@primitive("linalg_cholesky_ex", num_outputs=2, differentiable_outputs=(0,),
           node_name="LinalgCholeskyExBackward0")
def linalg_cholesky_ex(a, *, upper=False, check_errors=False):
    _kcheck(a)
    if upper:  # torch reads the upper triangle: chol(U^H U) of the conjugate transpose
        a = np.swapaxes(a, -1, -2).conj()
    try:
        L = np.linalg.cholesky(a)
        info = np.zeros(a.shape[:-2], dtype=np.int32)
    except np.linalg.LinAlgError:
        # LAPACK's potrf matrix by matrix: a failed factor keeps its partial columns, as torch's does
        flat = np.ascontiguousarray(a).reshape((-1,) + a.shape[-2:])
        potrf, = _sl().get_lapack_funcs(("potrf",), (flat,))
        L = np.empty_like(flat)
        info = np.zeros(flat.shape[0], np.int32)
        for i in range(flat.shape[0]):
            c, k = potrf(flat[i], lower=1, clean=1)
            L[i], info[i] = np.tril(c), max(k, 0)
        if check_errors:
            raise_for_info("cholesky", "linalg.cholesky", info.reshape(a.shape[:-2]))
        L, info = L.reshape(a.shape), info.reshape(a.shape[:-2])
    if upper:
        L = np.swapaxes(L, -1, -2).conj()
    return np.ascontiguousarray(L), info


@linalg_cholesky_ex.meta
def _(a, *, upper=False, check_errors=False):
    _meta_checks(a, "linalg.cholesky")
    return TensorMeta(a.shape, a.dtype), TensorMeta(a.shape[:-2], D.int32)


@linalg_cholesky_ex.derivative
def _(grads, outs, *, upper):
    # Iain Murray (2016): gA = L^{-H} Phi(L^H gL) L^{-1}, symmetrised
    L, gL = outs[0], grads[0]
    if upper:
        L, gL = L.mH, gL.mH
    gA = (L.mH @ gL).tril()
    gA = 0.5 * (gA + gA.tril(-1).mH)
    gA = L.mH._op(linalg_solve_triangular, gA, upper=True, left=True, unitriangular=False)
    gA = L._op(linalg_solve_triangular, gA, upper=False, left=False, unitriangular=False)
    return gA


# ------------------------------------------------------------------------------ triangular solve
def _tri(a, upper, unitriangular):
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        t = t.copy()
        idx = np.arange(a.shape[-1])
        t[..., idx, idx] = 1
    return t


@primitive("linalg_solve_triangular")
def linalg_solve_triangular(a, b, *, upper, left=True, unitriangular=False):
    _kcheck(a)
    if b.ndim < 2 or a.dtype != b.dtype:
        raise SlowPath
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return np.swapaxes(linalg_solve_triangular.kernel(
            np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), upper=not upper,
            unitriangular=unitriangular), -1, -2)
    if b.shape[-2] != a.shape[-1]:
        raise SlowPath
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    if not (a.size and b.size):
        return np.zeros(batch + b.shape[-2:], a.dtype)
    A = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1,) + a.shape[-2:])
    B = np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    # BLAS trsm, as torch: no singularity check, so a zero on the diagonal gives IEEE inf/NaN
    trsm, = _sl().get_blas_funcs(("trsm",), (A[:1], B[:1]))
    out = np.empty(B.shape, a.dtype)
    for i in range(B.shape[0]):
        out[i] = trsm(1.0, A[i], B[i], side=0, lower=not upper, diag=int(unitriangular))
    return out.reshape(batch + b.shape[-2:])


@linalg_solve_triangular.meta
def _(a, b, *, upper, left=True, unitriangular=False):
    name = "linalg.solve_triangular"
    check_matrix(a, name)
    check_float(a, name)
    if b.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if b.dtype is not a.dtype:
        raise RuntimeError(f"{name}: Expected A and B to have the same dtype, but found A of type "
                           f"{dtype_title(a.dtype)} and B of type {dtype_title(b.dtype)} instead")
    n = a.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {b.shape[-2]}x{b.shape[-1]})")
    batch = broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    return TensorMeta(batch + tuple(b.shape[-2:]), a.dtype)


@linalg_solve_triangular.derivative
def _(grad, a, out, *, upper, left, unitriangular, needs_input_grad):
    gb = a.mH._op(linalg_solve_triangular, grad, upper=not upper, left=left,
                  unitriangular=unitriangular)
    if not needs_input_grad[0]:
        return None, gb
    ga = -(gb @ out.mH) if left else -(out.mH @ gb)
    ga = ga.triu(1 if unitriangular else 0) if upper else ga.tril(-1 if unitriangular else 0)
    return ga, gb


@primitive("cholesky_solve")
def cholesky_solve(b, L, *, upper=False):
    """``A X = B`` with ``A = L L^H`` (``U^H U``): two triangular solves, as LAPACK's potrs (no
    singularity check: a zero diagonal gives inf/NaN). Only ``L``'s triangle is read."""
    if b.dtype != L.dtype or b.dtype.kind not in "fc" or b.ndim < 2 or L.ndim < 2:
        raise SlowPath
    LH = np.swapaxes(L, -1, -2).conj()
    first, second = (LH, L) if upper else (L, LH)
    y = linalg_solve_triangular.kernel(first, b, upper=False)
    return linalg_solve_triangular.kernel(second, y, upper=True)


@cholesky_solve.meta
def _(b, L, *, upper=False):
    for t, arg in ((b, "b"), (L, "u")):
        if t.dim() < 2:
            raise RuntimeError(f"{arg} should have at least 2 dimensions, but has {t.dim()} dimensions instead")
    if b.dtype is not L.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{dtype_title(b.dtype)} and A of type {dtype_title(L.dtype)} instead.")
    if not (b.dtype.is_floating_point or b.dtype.is_complex) or b.dtype in (D.float16, D.bfloat16):
        raise NotImplementedError(f"\"cholesky_solve_cpu\" not implemented for '{dtype_title(b.dtype)}'")
    if L.shape[-1] != L.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {L.shape[-2]} by "
                           f"{L.shape[-1]} matrices")
    if L.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {L.shape[-1]} by "
                           f"{L.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    batch = broadcast_shapes(tuple(b.shape[:-2]), tuple(L.shape[:-2]))
    return TensorMeta(batch + tuple(b.shape[-2:]), b.dtype)


@cholesky_solve.derivative
def _(grad, b, L, out, *, upper, needs_input_grad):
    # X = A^{-1} B, A = L L^H: gB = A^{-1} g, gA = -gB X^H, and L (all of it, as torch) gets
    # (gA + gA^H) L (U (gA + gA^H) for upper)
    gb = grad._op(cholesky_solve, L, upper=upper)
    if not needs_input_grad[1]:
        return gb, None
    common = gb @ out.mH
    common = common + common.mH
    return gb, -(L @ common) if upper else -(common @ L)


# ------------------------------------------------------------------------------ qr
def _qr_modes(mode):
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' "
                           f"(default), 'r', or 'complete'")


@primitive("linalg_qr", num_outputs=2)
def linalg_qr(a, *, mode="reduced"):
    _kcheck(a, square=False)
    _qr_modes(mode)
    if mode == "r":
        r = np.linalg.qr(a, mode="r")
        return np.zeros((0,), a.dtype), r
    q, r = np.linalg.qr(a, mode=mode)
    return q, r


@linalg_qr.meta
def _(a, *, mode="reduced"):
    check_matrix(a, "linalg.qr", square=False)
    check_float(a, "linalg.qr")
    _qr_modes(mode)
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    batch = tuple(a.shape[:-2])
    if mode == "r":
        return TensorMeta((0,), a.dtype), TensorMeta(batch + (k, n), a.dtype)
    qc = m if mode == "complete" else k
    return TensorMeta(batch + (m, qc), a.dtype), TensorMeta(batch + (qc, n), a.dtype)


def _syminvadj(X):
    ret = X + X.mH
    n = X.shape[-1]
    half = X.new_tensor(np.eye(n) * -0.5 + 1, dtype=X.dtype.to_real())  # halve the diagonal
    return ret * half


def _qr_backward_tall(gQ, gR, Q, R):
    # gA = [gQ + Q syminvadj(triu(gR R^H - Q^H gQ))] R^{-H}
    M = gR @ R.mH - Q.mH @ gQ
    gA = Q @ _syminvadj(M.triu()) + gQ
    return R.mH._op(linalg_solve_triangular, gA, upper=False, left=False, unitriangular=False)


@linalg_qr.derivative
def _(grads, a, outs, *, mode):
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when "
                           "mode='r'. Please use linalg.qr(A, mode='reduced') if you are going to "
                           "differentiate through linalg.qr.")
    gQ, gR = grads
    Q, R = outs
    m, n = a.shape[-2], a.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and "
                           "nrows > ncols.")
    if m >= n:
        return _qr_backward_tall(gQ, gR, Q, R)
    # wide: A = [X | Y], X = Q U, Y = Q V  ->  treat X as tall, Y's part through Q
    U, gU = R[..., :, :m], gR[..., :, :m]
    gV = gR[..., :, m:]
    Y = a[..., :, m:]
    gX = _qr_backward_tall(gQ + Y @ gV.mH, gU, Q, U)
    gY = Q @ gV
    return _pad_add(gX, gY)


def _pad_add(x, y):
    m, k = x.shape[-1], y.shape[-1]
    ex = x.new_tensor(np.eye(m, m + k), dtype=x.dtype)          # (m, m+k): [I 0]
    ey = y.new_tensor(np.eye(k, m + k, m), dtype=y.dtype)       # (k, m+k): [0 I]
    return x @ ex + y @ ey


def lu_pivots(P, k):
    """LAPACK's 1-based pivot sequence (int32, length ``k``) from permutations ``P`` (A = P L U)."""
    n = P.shape[-1]
    batch = P.shape[:-2]
    if n == 0 or k == 0:  # an empty matrix has no pivots
        return np.empty(batch + (k,), dtype=np.int32)
    perm = np.argmax(P, axis=-2)  # row of A at each position of P^T A
    cur = np.broadcast_to(np.arange(n), batch + (n,)).copy()
    piv = np.empty(batch + (k,), dtype=np.int32)
    for i in range(k):
        j = np.argmax(cur[..., i:] == perm[..., i:i + 1], axis=-1) + i
        piv[..., i] = j + 1
        ci = cur[..., i].copy()
        cj = np.take_along_axis(cur, j[..., None], -1)[..., 0]
        cur[..., i] = cj
        np.put_along_axis(cur, j[..., None], ci[..., None], -1)
    return piv


# ------------------------------------------------------------------------------ ldl
def _ldl_lapack(a, hermitian, names):
    """LAPACK's Bunch-Kaufman routines: ``he*`` for complex Hermitian input, ``sy*`` otherwise."""
    kind = "he" if hermitian and a.dtype.kind == "c" else "sy"
    return _sl().get_lapack_funcs(tuple(kind + n for n in names), (a,))


@primitive("linalg_ldl_factor_ex", num_outputs=3, differentiable_outputs=(0,))
def linalg_ldl_factor_ex(a, *, hermitian=False, check_errors=False):
    """``(LD, pivots, info)``: L and D packed in the lower triangle, LAPACK's (1-based) pivots."""
    _kcheck(a)
    batch, n = a.shape[:-2], a.shape[-1]
    flat = np.ascontiguousarray(a).reshape((int(np.prod(batch)), n, n))
    LD = np.zeros_like(flat)
    piv = np.zeros((flat.shape[0], n), np.int32)
    info = np.zeros(flat.shape[0], np.int32)
    if flat.size:
        trf, = _ldl_lapack(flat, hermitian, ("trf",))
        for i in range(flat.shape[0]):
            ld, p, k = trf(flat[i], lower=1)
            LD[i], piv[i], info[i] = np.tril(ld), p, max(k, 0)
    if check_errors and info.any():
        raise RuntimeError(f"torch.linalg.ldl_factor: Unknown error code: {_first_bad(info)[1]}.")
    return LD.reshape(a.shape), piv.reshape(batch + (n,)), info.reshape(batch)


@linalg_ldl_factor_ex.meta
def _(a, *, hermitian=False, check_errors=False):
    check_matrix(a, "torch.linalg.ldl_factor_ex")
    check_float(a, "torch.linalg.ldl_factor_ex")
    return (TensorMeta(a.shape, a.dtype), TensorMeta(a.shape[:-1], D.int32),
            TensorMeta(a.shape[:-2], D.int32))


@linalg_ldl_factor_ex.derivative
def _(grads):
    raise RuntimeError("the derivative for 'linalg_ldl_factor_ex' is not implemented.")


@primitive("linalg_ldl_solve")
def linalg_ldl_solve(LD, pivots, b, *, hermitian=False):
    _kcheck(LD)
    if b.ndim < 2 or b.shape[-2] != LD.shape[-1] or b.dtype != LD.dtype:
        raise SlowPath
    batch = broadcast_shapes(LD.shape[:-2], pivots.shape[:-1], b.shape[:-2])
    n = LD.shape[-1]
    nb = int(np.prod(batch))
    fl = np.broadcast_to(LD, batch + (n, n)).reshape((nb, n, n))
    fp = np.broadcast_to(pivots, batch + (n,)).reshape((nb, n))
    fb = np.broadcast_to(b, batch + b.shape[-2:]).reshape((nb,) + b.shape[-2:])
    out = np.empty(fb.shape, LD.dtype)
    if fl.size and fb.size:
        trs, = _ldl_lapack(fl, hermitian, ("trs",))
        for i in range(fl.shape[0]):
            out[i] = trs(fl[i], fp[i], fb[i], lower=1)[0]
    return out.reshape(batch + b.shape[-2:])


@linalg_ldl_solve.meta
def _(LD, pivots, b, *, hermitian=False):
    name = "torch.linalg.ldl_solve"
    check_matrix(LD, name, arg="LD")
    if b.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if b.shape[-2] != LD.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {LD.shape[-2]} by "
                           f"{LD.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    if b.dtype is not LD.dtype:
        raise RuntimeError(f"{name}: Expected LD and B to have the same dtype, but found LD of type "
                           f"{dtype_title(LD.dtype)} and B of type {dtype_title(b.dtype)} instead")
    batch = broadcast_shapes(tuple(LD.shape[:-2]), tuple(pivots.shape[:-1]), tuple(b.shape[:-2]))
    return TensorMeta(batch + tuple(b.shape[-2:]), LD.dtype)


@linalg_ldl_solve.derivative
def _(grad):
    raise RuntimeError("the derivative for 'linalg_ldl_solve' is not implemented.")
