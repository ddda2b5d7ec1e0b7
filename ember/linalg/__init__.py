"""``torch.linalg``: decompositions, solvers, norms and matrix functions, batched over leading dims.

Example:
    >>> import ember
    >>> A = ember.tensor([[4., 1.], [1., 3.]])
    >>> L = ember.linalg.cholesky(A)
    >>> bool(ember.allclose(L @ L.mT, A))
    True
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._errors import dtype_title
from .._tensor_methods import linalg as _mm
from .._tensor_methods import linalg_decomp as _ld
from .._tensor_methods.linalg_decomp import (LinAlgError, _out, cholesky, cholesky_ex, det, eig,
                                             eigh, eigvals, eigvalsh, inv, inv_ex, lu, lu_factor,
                                             lu_factor_ex, lu_solve, matrix_exp, matrix_power, pinv,
                                             qr, slogdet, solve, solve_ex, solve_triangular, svd,
                                             svdvals, linalg_cross as cross)
from .._dispatch import dispatch
from .._tensor_methods.reduction import _return_type, return_types, vector_norm
from .._primitives import linalg_decomp as _LD
from ..overrides import public

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig",
           "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "inv_ex", "ldl_factor",
           "ldl_factor_ex", "ldl_solve", "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve",
           "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot",
           "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd",
           "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm"]

matmul = _mm.matmul
_INF = math.inf


def _eye(A, n):
    return A.new_tensor(np.eye(n), dtype=A.dtype)


# ------------------------------------------------------------------------------ norms
@public
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norms over the two dims ``dim``: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2.

    >>> import ember
    >>> ember.linalg.matrix_norm(ember.eye(3), ord=1).item()
    1.0
    """
    if A.dim() < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    d0, d1 = (d % A.dim() for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    if ord == "fro":
        return _out(vector_norm(A, 2, (d0, d1), keepdim), out)
    if ord == "nuc" or ord in (2, -2):
        if not (A.dtype.is_floating_point or A.dtype.is_complex):
            raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as "
                               f"input. Got {dtype_title(A.dtype)}")
        B = A.movedim((d0, d1), (-2, -1))
        s = svdvals(B)
        r = s.sum(-1) if ord == "nuc" else (s.amax(-1) if ord == 2 else s.amin(-1))
        if keepdim:
            for d in sorted((d0, d1)):
                r = r.unsqueeze(d)
        return _out(r, out)
    if ord in (1, -1, _INF, -_INF):
        sum_dim, red_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = A.abs().sum(sum_dim, keepdim=True)
        r = s.amax(red_dim, keepdim=True) if ord > 0 else s.amin(red_dim, keepdim=True)
        if not keepdim:
            r = r.squeeze(max(d0, d1)).squeeze(min(d0, d1))
        return _out(r, out)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


@public
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector norm (1-D ``dim``/input) or matrix norm (2-D), as ``torch.linalg.norm``."""
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        if dim is None:
            return vector_norm(A.reshape(-1) if A.dim() else A, 2, None, False, dtype=dtype, out=out) \
                if not keepdim else vector_norm(A, 2, None, keepdim, dtype=dtype, out=out)
        if len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype, out=out)
        return vector_norm(A, 2, dim, keepdim, dtype=dtype, out=out)
    if dim is None:
        if A.dim() == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
        if A.dim() == 1 and not isinstance(ord, str):
            return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or "
                           f"2D. Got {A.dim()}D.")
    if len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype, out=out)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got {ord}")
    return vector_norm(A, ord, dim, keepdim, dtype=dtype, out=out)


@public
def cond(A, p=None, *, out=None):
    """Condition number ``norm(A, p) * norm(inv(A), p)`` (``p`` None/2/-2: ratio of singular values)."""
    if A.dim() >= 2 and A.shape[-1] * A.shape[-2] == 0:  # torch: 0 for empty matrices
        return _out(A.new_zeros(tuple(A.shape[:-2]), dtype=A.dtype.to_real()), out)
    if p is None or p in (2, -2):
        s = svdvals(A)
        r = s[..., 0] / s[..., -1] if p in (None, 2) else s[..., -1] / s[..., 0]
        return _out(r, out)
    return _out(matrix_norm(A, p) * matrix_norm(inv(A), p), out)


@public
def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None, out=None):
    """Number of singular values above ``max(atol, rtol * s_max)`` (int64)."""
    if tol is not None:
        atol, rtol = tol, 0.0
    if hermitian:
        s = eigvalsh(A).abs()
    else:
        s = svdvals(A)
    m, n = A.shape[-2], A.shape[-1]
    if s.shape[-1] == 0:
        return _out(s.new_zeros(s.shape[:-1], dtype=D.int64), out)
    # tolerances broadcast against the batch of matrices; rtol's default (eps * max(m, n)) is 0
    # wherever atol > 0, element by element for a tensor atol (as torch)
    eps = float(np.finfo(s.dtype.np).eps) * max(m, n)
    smax = s.amax(-1)
    atol_t = hasattr(atol, "shape")
    if rtol is None:
        if atol_t:
            rtol = (atol <= 0).to(s.dtype) * eps
        else:
            rtol = 0.0 if atol is not None and float(atol) > 0 else eps
    thr = smax * rtol
    if atol is not None:
        thr = thr.maximum(atol.to(s.dtype)) if atol_t else thr.clamp(min=float(atol))
    return _out((s > thr.unsqueeze(-1)).sum(-1), out)


# ------------------------------------------------------------------------------ products
@public
def multi_dot(tensors, *, out=None):
    """Product of a chain of matrices (first/last may be 1-D), multiplied in the cheapest order."""
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    first_vec, last_vec = ts[0].dim() == 1, ts[-1].dim() == 1
    if first_vec:
        ts[0] = ts[0].unsqueeze(0)
    if last_vec:
        ts[-1] = ts[-1].unsqueeze(-1)
    for i, t in enumerate(ts):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    dims = [ts[0].shape[0]] + [t.shape[1] for t in ts]
    n = len(ts)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for ln in range(1, n):
        for i in range(n - ln):
            j = i + ln
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k

    def build(i, j):
        if i == j:
            return ts[i]
        k = split[i][j]
        return build(i, k).mm(build(k + 1, j))
    r = build(0, n - 1)
    if first_vec:
        r = r.squeeze(0)
    if last_vec:
        r = r.squeeze(-1)
    return _out(r, out)


def chain_matmul(*matrices, out=None):
    """Deprecated ``torch.chain_matmul``: ``multi_dot`` of 2-D matrices."""
    if len(matrices) == 1:
        return _out(matrices[0].clone(), out)
    return multi_dot(matrices, out=out)


@public
def vecdot(x, y, *, dim=-1, out=None):
    """``sum(conj(x) * y, dim)`` with broadcasting."""
    return _out((x.conj() * y).sum(dim), out)


@public
def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``A.diagonal(offset, dim1, dim2)`` with torch.linalg's defaults (the last two dims)."""
    return A.diagonal(offset, dim1, dim2)


@public
def vander(x, *, N=None):
    """Vandermonde matrix with increasing powers: ``(*, n) -> (*, n, N)``, column ``j`` = ``x**j``."""
    if x.dim() < 1:  # torch reads a 0-d x as one value
        x = x.reshape(1)
    n = x.shape[-1] if N is None else N
    if n < 1:
        raise RuntimeError("N must be greater than 1.")
    dt = x.dtype if (x.dtype.is_floating_point or x.dtype.is_complex) else \
        (D.int64 if x.dtype is not D.bool else D.int64)
    x = x.to(dt)
    ones = x.new_ones(tuple(x.shape) + (1,))
    if n == 1:
        return ones
    rep = x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,))
    return _cat_last(ones, rep.cumprod(-1))


def _cat_last(a, b):
    from .._tensor_methods.shape_copy import cat
    return cat([a, b], -1)


def torch_vander(x, N=None, increasing=False):
    """``torch.vander``: powers ``N-1 .. 0`` (``increasing`` reverses) of a 1-D ``x``."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if N is not None and N < 0:
        raise RuntimeError("N must be non-negative.")
    if N == 0 or (N is None and x.shape[0] == 0):
        return x.new_empty((x.shape[0], 0), dtype=x.dtype if x.dtype.is_floating_point or
                           x.dtype.is_complex else D.int64)
    r = vander(x, N=N)
    return r if increasing else r.flip(-1)


torch_vander.__name__ = torch_vander.__qualname__ = "vander"
torch_vander.__module__ = "ember"


# ------------------------------------------------------------------------------ least squares etc.
@public
def lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of ``A X = B`` (through the pseudo-inverse), with residuals, rank and
    singular values as torch reports them for ``driver`` ('gelsy' default on CPU)."""
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, "
                           f"gelsd, gelss)")
    vec = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vec else B
    m, n = A.shape[-2], A.shape[-1]
    X = pinv(A, rtol=rcond) @ Bm if rcond is not None else pinv(A) @ Bm
    s = svdvals(A)
    eps = float(np.finfo(np.float32 if A.dtype in (D.float32, D.complex64) else np.float64).eps)
    tol = (rcond if rcond is not None else eps * max(m, n))
    rank = (s > s[..., :1] * tol).sum(-1) if s.shape[-1] else s.new_zeros(s.shape[:-1], dtype=D.int64)
    empty = A.new_zeros((0,), dtype=s.dtype)
    res = X.reshape(-1)[:0].abs()  # empty, yet part of the graph as torch's residuals are
    if m > n and driver != "gelsy" and bool((rank == n).all()):
        res = ((A @ X - Bm).abs() ** 2).sum(-2)
    if vec:
        X = X.squeeze(-1)
    sv = s.detach() if driver in ("gelsd", "gelss") else empty
    rk = rank if driver != "gels" else A.new_zeros((0,), dtype=D.int64)
    return _ld.RT.linalg_lstsq((X, res, rk, sv))


@public
def householder_product(A, tau, *, out=None):
    """``Q = H_1 ... H_k`` with ``H_i = I - tau_i v_i v_i^H`` (``v_i``: column i of ``A`` below the
    diagonal, with an implicit 1): the first ``n`` columns of Q, shape ``(*, m, n)``."""
    m, n = A.shape[-2], A.shape[-1]
    k = tau.shape[-1]
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or "
                           "equal to input.shape[-1]")
    if k > n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or "
                           "equal to tau.shape[-1]")
    eye = _eye(A, m)
    low = A.tril(-1) + A.new_tensor(np.eye(m, n), dtype=A.dtype)
    Q = eye[:, :n].expand(tuple(A.shape[:-2]) + (m, n))
    if k == 0 or A.numel() == 0:
        # Q does not depend on A, yet torch's output is in A's graph (a zero gradient): a `where`
        # that always picks the identity keeps the edge without multiplying anything by 0
        Q = Q.where(A.new_ones((), dtype=D.bool), A)
    for i in range(k - 1, -1, -1):  # apply H_k ... H_1 to the thin identity from the left
        v = low[..., :, i:i + 1]
        t = tau[..., i:i + 1].unsqueeze(-1)
        Q = Q - (t * v) @ (v.mH @ Q)
    return _out(Q, out)


orgqr = householder_product


@public
def tensorinv(A, ind=2, *, out=None):
    """Inverse of ``A`` seen as a linear map from its last dims to its first ``ind`` dims."""
    lead, trail = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    p = int(np.prod(lead))
    return _out(inv(A.reshape(p, -1)).reshape(trail + lead), out)


@public
def tensorsolve(A, B, dims=None, *, out=None):
    """``X`` with ``tensordot(A, X, X.ndim) = B``."""
    if dims is not None:
        nd = A.dim()
        dims = [d % nd for d in dims]
        A = A.movedim(dims, list(range(nd - len(dims), nd)))
    xs = tuple(A.shape[B.dim():])
    return _out(solve(A.reshape(B.numel(), -1), B.reshape(-1)).reshape(xs), out)


_return_type("linalg_ldl_factor", ("LD", "pivots"))
_return_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))


@public
def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """``(LD, pivots, info)``: the Bunch-Kaufman ``A = L D L^T`` (``L^H`` if ``hermitian``) packed as
    LAPACK's ``sytrf`` leaves it (lower triangle), its 1-based pivots and the LAPACK info."""
    return _out(return_types.linalg_ldl_factor_ex(dispatch(
        _LD.linalg_ldl_factor_ex, A, hermitian=bool(hermitian), check_errors=bool(check_errors))), out)


@public
def ldl_factor(A, *, hermitian=False, out=None):
    """``(LD, pivots)`` of ``ldl_factor_ex``; a zero pivot raises.

    >>> import ember
    >>> LD, piv = ember.linalg.ldl_factor(ember.tensor([[4., 2.], [2., 3.]]))
    >>> LD.tolist(), piv.tolist()
    ([[4.0, 0.0], [0.5, 2.0]], [1, 2])
    """
    LD, piv, _ = dispatch(_LD.linalg_ldl_factor_ex, A, hermitian=bool(hermitian), check_errors=True)
    return _out(return_types.linalg_ldl_factor((LD, piv)), out)


@public
def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """Solve ``A X = B`` from ``ldl_factor(A)``'s ``LD`` and ``pivots``."""
    return _out(dispatch(_LD.linalg_ldl_solve, LD, pivots, B, hermitian=bool(hermitian)), out)


# torch.* forms defined here (ember/__init__.py re-exports them)
TORCH_FUNCTIONS = dict(chain_matmul=chain_matmul, vander=torch_vander, orgqr=orgqr)
