"""Decompositions and solvers (layer L2): the ``torch.linalg`` functions over ``_primitives/linalg_decomp.py``
and ``_primitives/linalg_spectral.py``, plus torch's older ``torch.*``/``Tensor`` forms (``det``, ``inverse``,
``svd(some=)``, ``qr(some=)``, ``cholesky``, ``triangular_solve``, ``lu_unpack``, ``pinverse``...).

Example:
    >>> import ember
    >>> A = ember.tensor([[2., 1.], [1., 3.]])
    >>> [round(v, 4) for v in ember.linalg.solve(A, ember.tensor([3., 5.])).tolist()]
    [0.8, 1.4]
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._dispatch import dispatch, wrap
from .._primitives import linalg_decomp as LD
from .._primitives import linalg_spectral as LS
from ..overrides import public
from .reduction import _return_type, return_types
from .shape_copy import stack

__all__ = ["LinalgDecompMixin", "FUNCTIONS", "LINALG", "LinAlgError"]

LinAlgError = LD.LinAlgError

for _name, _fields in (("linalg_inv_ex", ("inverse", "info")), ("linalg_slogdet", ("sign", "logabsdet")),
                       ("slogdet", ("sign", "logabsdet")), ("linalg_solve_ex", ("result", "info")),
                       ("linalg_cholesky_ex", ("L", "info")), ("linalg_qr", ("Q", "R")), ("qr", ("Q", "R")),
                       ("linalg_svd", ("U", "S", "Vh")), ("svd", ("U", "S", "V")),
                       ("linalg_eigh", ("eigenvalues", "eigenvectors")),
                       ("linalg_eig", ("eigenvalues", "eigenvectors")), ("linalg_lu", ("P", "L", "U")),
                       ("linalg_lu_factor", ("LU", "pivots")),
                       ("linalg_lu_factor_ex", ("LU", "pivots", "info")),
                       ("lu_unpack", ("P", "L", "U")),
                       ("triangular_solve", ("solution", "cloned_coefficient")),
                       ("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))):
    _return_type(_name, _fields)
RT = return_types


def _out(res, out):
    """Write ``res`` (a tensor or tuple) into ``out`` (resizing as torch does)."""
    if out is None:
        return res
    if isinstance(res, tuple):
        for o, r in zip(out, res):
            o.resize_(r.shape).copy_(r) if o.shape != r.shape else o.copy_(r)
        return type(res)(out) if hasattr(type(res), "_fields") else tuple(out)
    if out.shape != res.shape:
        out.resize_(res.shape)
    return out.copy_(res)


def _check_info(check_errors, kind, name, info):
    """The ``*_ex(check_errors=True)`` path: raise under the ``_ex`` function's own name, as torch."""
    if check_errors and info.device.type != "meta":
        LD.raise_for_info(kind, name, info.numpy())


# ------------------------------------------------------------------------------ inverse, det
@public
def inv_ex(A, *, check_errors=False, out=None):
    """``(inverse, info)``: ``info`` is 0 or the 1-based index of the zero pivot of a singular input."""
    res = RT.linalg_inv_ex(dispatch(LD.linalg_inv_ex, A, check_errors=False))
    _check_info(check_errors, "inv", "linalg.inv_ex", res.info)
    return _out(res, out)


@public
def inv(A, *, out=None):
    """Inverse of square matrices ``(*, n, n)``; a singular one raises ``LinAlgError``.

    >>> import ember
    >>> ember.linalg.inv(ember.tensor([[2., 0.], [0., 4.]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return _out(dispatch(LD.linalg_inv_ex, A, check_errors=True)[0], out)


@public
def det(A, *, out=None):
    """Determinant of ``(*, n, n)`` matrices: shape ``(*)``."""
    return _out(dispatch(LD.linalg_det, A), out)


@public
def slogdet(A, *, out=None):
    """``(sign, logabsdet)`` with ``det = sign * exp(logabsdet)``."""
    return _out(RT.linalg_slogdet(dispatch(LD.linalg_slogdet, A)), out)


@public
def logdet(input):
    """``log(det(input))``: nan for a negative determinant, -inf for zero."""
    sign, logabs = dispatch(LD.linalg_slogdet, input)
    if input.is_complex():
        return logabs + sign.log()
    return logabs.masked_fill(sign < 0, float("nan"))


def _torch_slogdet(input):
    return RT.slogdet(slogdet(input))


# ------------------------------------------------------------------------------ solve
def _vector_case(A, B):
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


@public
def solve(A, B, *, left=True, out=None):
    """Solve ``A X = B`` (``X A = B`` when ``left=False``); ``B`` may be a (batch of) vector(s)."""
    if B.dim() == 0:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 1 dimensions.")
    vec = _vector_case(A, B)
    if vec:
        B = B.unsqueeze(-1 if left else -2)
    X = dispatch(LD.linalg_solve, A, B, left=bool(left))
    if vec:
        X = X.squeeze(-1 if left else -2)
    return _out(X, out)


@public
def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """``(result, info)``: ``info`` is non-zero where ``A`` is singular (raises with ``check_errors``)."""
    if B.dim() == 0:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 1 dimensions.")
    vec = _vector_case(A, B)
    if vec:
        B = B.unsqueeze(-1 if left else -2)
    X, info = dispatch(LD.linalg_solve_ex, A, B, left=bool(left), check_errors=False)
    _check_info(check_errors, "solve", "torch.linalg.solve_ex", info)
    if vec:
        X = X.squeeze(-1 if left else -2)
    return _out(RT.linalg_solve_ex((X, info)), out)


@public
def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """Solve a triangular system ``A X = B`` (or ``X A = B``); only one triangle of ``A`` is read."""
    return _out(dispatch(LD.linalg_solve_triangular, A, B, upper=bool(upper), left=bool(left),
                         unitriangular=bool(unitriangular)), out)


@public
def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """Deprecated ``torch.triangular_solve``: ``(solution of op(A) X = b, A.clone())``."""
    A_ = A.mT if transpose else A
    X = solve_triangular(A_, b, upper=bool(upper) != bool(transpose), unitriangular=unitriangular)
    return _out(RT.triangular_solve((X, A.clone())), out)


# ------------------------------------------------------------------------------ cholesky
@public
def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """``(L, info)``: ``info`` is the order of the first leading minor that is not positive-definite."""
    res = RT.linalg_cholesky_ex(dispatch(LD.linalg_cholesky_ex, A, upper=bool(upper), check_errors=False))
    _check_info(check_errors, "cholesky", "linalg.cholesky_ex", res.info)
    return _out(res, out)


@public
def cholesky(A, *, upper=False, out=None):
    """Cholesky factor of Hermitian positive-definite matrices: ``A = L L^H`` (``U^H U``)."""
    return _out(dispatch(LD.linalg_cholesky_ex, A, upper=bool(upper), check_errors=True)[0], out)


def _torch_cholesky(input, upper=False, *, out=None):
    return cholesky(input, upper=upper, out=out)


@public
def cholesky_solve(B, L, upper=False, *, out=None):
    """Solve ``A X = B`` given the Cholesky factor of ``A`` (only its triangle is read; the gradient
    reaches all of ``L``, as torch's). ``B``: ``(*, n, k)``, ``L``: ``(*, n, n)``."""
    return _out(dispatch(LD.cholesky_solve, B, L, upper=bool(upper)), out)


@public
def cholesky_inverse(L, upper=False, *, out=None):
    """Inverse of ``A`` from its Cholesky factor ``(*, n, n)``; a zero on the diagonal raises."""
    if L.dim() >= 2 and L._data is not None:  # torch checks the factor's diagonal (1-based index)
        zero = (np.diagonal(L._data, axis1=-2, axis2=-1) == 0).astype(np.int32)
        infos = np.where(zero.any(-1), zero.argmax(-1) + 1, 0) if zero.size else np.zeros(L.shape[:-2], int)
        LD.raise_for_info("inv", "cholesky_inverse", infos)
    eye = L.new_tensor(np.eye(L.shape[-1]), dtype=L.dtype).expand(L.shape)
    return _out(cholesky_solve(eye, L, upper), out)


# ------------------------------------------------------------------------------ qr, svd, eig
@public
def qr(A, mode="reduced", *, out=None):
    """``(Q, R)`` with ``A = Q R``; ``mode`` 'reduced', 'complete' or 'r' (Q empty)."""
    return _out(RT.linalg_qr(dispatch(LD.linalg_qr, A, mode=mode)), out)


def _torch_qr(input, some=True, *, out=None):
    return _out(RT.qr(qr(input, "reduced" if some else "complete")), out)


@public
def svd(A, full_matrices=True, *, driver=None, out=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``; S descending, real."""
    return _out(RT.linalg_svd(dispatch(LS.linalg_svd, A, full_matrices=bool(full_matrices))), out)


@public
def svdvals(A, *, driver=None, out=None):
    """Singular values, descending: shape ``(*, min(m, n))``."""
    return _out(dispatch(LS.linalg_svdvals, A)[0], out)


def _torch_svd(input, some=True, compute_uv=True, *, out=None):
    """torch.svd: ``(U, S, V)`` (V, not Vh); ``compute_uv=False`` gives zero U and V."""
    if not compute_uv:
        S = svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        b = tuple(input.shape[:-2])
        return _out(RT.svd((input.new_zeros(b + (m, m)), S, input.new_zeros(b + (n, n)))), out)
    U, S, Vh = svd(input, full_matrices=not some)
    return _out(RT.svd((U, S, Vh.mH)), out)


@public
def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending, real) and orthonormal eigenvectors of Hermitian matrices."""
    return _out(RT.linalg_eigh(dispatch(LS.linalg_eigh, A, UPLO=UPLO)), out)


@public
def eigvalsh(A, UPLO="L", *, out=None):
    """Eigenvalues of Hermitian matrices, ascending."""
    return _out(dispatch(LS.linalg_eigvalsh, A, UPLO=UPLO)[0], out)


@public
def eig(A, *, out=None):
    """Complex eigenvalues and eigenvectors (unit norm columns) of square matrices."""
    return _out(RT.linalg_eig(dispatch(LS.linalg_eig, A)), out)


@public
def eigvals(A, *, out=None):
    """Complex eigenvalues of square matrices."""
    return _out(dispatch(LS.linalg_eigvals, A)[0], out)


# ------------------------------------------------------------------------------ pinv, exp, power
def _tol(x):
    if x is None:
        return None
    if hasattr(x, "numpy"):
        return x.detach().numpy().astype(np.float64)
    return float(x)


@public
def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """Moore-Penrose pseudo-inverse; singular values below ``max(atol, rtol * s_max)`` are dropped."""
    if rcond is not None:
        rtol = rcond
    return _out(dispatch(LS.linalg_pinv, A, atol=_tol(atol), rtol=_tol(rtol),
                         hermitian=bool(hermitian)), out)


def _pinverse(input, rcond=1e-15, hermitian=False):
    return pinv(input, rtol=rcond, hermitian=hermitian)


@public
def matrix_exp(A):
    """Matrix exponential of square matrices (Pade approximation with scaling and squaring)."""
    return dispatch(LS.linalg_matrix_exp, A)


@public
def matrix_power(A, n, *, out=None):
    """``A^n`` by repeated squaring; negative ``n`` inverts first, ``n = 0`` gives the identity."""
    LD.check_matrix(A, "linalg.matrix_power")
    if not isinstance(n, int):
        raise TypeError(f"matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    if n == 0:
        # the identity, still connected to A (a zero gradient), as torch's result is
        eye = A.new_tensor(np.eye(A.shape[-1]), dtype=A.dtype).expand(A.shape)
        return _out(A.where(A.new_zeros(A.shape, dtype=D.bool), eye), out)
    if n < 0:
        A, n = inv(A), -n
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return _out(result if result is not A else A.clone(), out)


# ------------------------------------------------------------------------------ lu
@public
def lu(A, *, pivot=True, out=None):
    """``(P, L, U)`` with ``A = P L U``: L unit lower-triangular, U upper-triangular."""
    return _out(RT.linalg_lu(dispatch(LS.linalg_lu, A, pivot=bool(pivot))), out)


def _pivots(P, k):
    if P.device.type == "meta":
        return P.new_empty(tuple(P.shape[:-2]) + (k,), dtype=D.int32)
    return wrap(np.ascontiguousarray(LD.lu_pivots(P.detach().numpy(), k)))


@public
def lu_factor(A, *, pivot=True, out=None):
    """``(LU, pivots)``: L (unit diagonal, implied) and U packed; ``pivots`` 1-based int32."""
    P, L, U = dispatch(LS.linalg_lu, A, pivot=bool(pivot))
    m, n = A.shape[-2], A.shape[-1]
    k = min(m, n)
    if m >= n:
        LU = L.tril(-1) + _pad_to(U, m, 0)
    else:
        LU = _pad_to(L.tril(-1), n, 1) + U
    return _out(RT.linalg_lu_factor((LU, _pivots(P, k))), out)


def _pad_to(X, size, axis):
    """Zero-pad the last (axis=1) or second-last (axis=0) dim of ``X`` to ``size``."""
    if axis == 0:
        e = X.new_tensor(np.eye(size, X.shape[-2]), dtype=X.dtype)
        return e @ X
    e = X.new_tensor(np.eye(X.shape[-1], size), dtype=X.dtype)
    return X @ e


@public
def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """``(LU, pivots, info)``."""
    LU, piv = lu_factor(A, pivot=pivot)
    info = LU.new_zeros(A.shape[:-2], dtype=D.int32)
    d = LU.diagonal(0, -2, -1)
    if d.numel():
        zero = (d == 0)
        first = (zero.to(D.int32).cumsum(-1) == 0).to(D.int32).sum(-1) + 1
        info = first.masked_fill(~zero.any(-1), 0).to(D.int32)
    return _out(RT.linalg_lu_factor_ex((LU, piv, info)), out)


def _perm_from_pivots(piv, m):
    """Permutation matrices ``P`` (m x m) from LAPACK pivots (batched, NumPy)."""
    p = piv.detach().numpy().astype(np.int64) - 1
    batch = p.shape[:-1]
    perm = np.broadcast_to(np.arange(m), batch + (m,)).copy()
    for i in range(p.shape[-1]):
        j = p[..., i]
        pi = perm[..., i].copy()
        pj = np.take_along_axis(perm, j[..., None], -1)[..., 0]
        perm[..., i] = pj
        np.put_along_axis(perm, j[..., None], pi[..., None], -1)
    P = np.zeros(batch + (m, m))
    np.put_along_axis(P, perm[..., None, :], 1.0, -2)  # P[perm[j], j] = 1
    return P


@public
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``(P, L, U)`` from ``lu_factor``'s packed result."""
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    if unpack_data:
        L = LU_data[..., :, :k].tril(-1) + LU_data.new_tensor(np.eye(m, k), dtype=LU_data.dtype)
        U = LU_data[..., :k, :].triu()
    else:
        L = U = LU_data.new_zeros((0,))
    if unpack_pivots and LU_pivots.device.type == "meta":
        P = LU_data.new_empty(tuple(LU_pivots.shape[:-1]) + (m, m))
    elif unpack_pivots:
        P = LU_data.new_tensor(_perm_from_pivots(LU_pivots, m), dtype=LU_data.dtype)
    else:
        P = LU_data.new_zeros((0,))
    return _out(RT.lu_unpack((P, L, U)), out)


@public
def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """Solve ``A X = B`` from ``lu_factor(A)`` (``A^H X = B`` with ``adjoint``; ``X A = B`` if not left)."""
    P, L, U = lu_unpack(LU, pivots)
    if left and not adjoint:    # A = P L U
        X = solve_triangular(U, solve_triangular(L, P.mT @ B, upper=False, unitriangular=True),
                             upper=True)
    elif left:                  # A^H = U^H L^H P^T
        Y = solve_triangular(L.mH, solve_triangular(U.mH, B, upper=False), upper=True,
                             unitriangular=True)
        X = P @ Y
    elif not adjoint:           # X P L U = B
        Y = solve_triangular(L, solve_triangular(U, B, upper=True, left=False), upper=False,
                             left=False, unitriangular=True)
        X = Y @ P.mT
    else:                       # X U^H L^H P^T = B
        Y = solve_triangular(U.mH, solve_triangular(L.mH, B @ P, upper=True, left=False,
                                                   unitriangular=True), upper=False, left=False)
        X = Y
    return _out(X, out)


def _torch_lu(A, pivot=True, get_infos=False, out=None):
    LU, piv = lu_factor(A, pivot=pivot)
    if get_infos:
        return LU, piv, lu_factor_ex(A, pivot=pivot).info
    return LU, piv


# ------------------------------------------------------------------------------ products
@public
def linalg_cross(input, other, *, dim=-1, out=None):
    """Cross product of 3-vectors along ``dim`` (inputs broadcast)."""
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[dim]} and {other.shape[dim]}")
    a0, a1, a2 = (input.select(dim, i) for i in range(3))
    b0, b1, b2 = (other.select(dim, i) for i in range(3))
    r = (a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0)
    return _out(stack(list(r), dim % (input.dim() if input.dim() >= other.dim() else other.dim())), out)


@public
def cross(input, other, dim=None, *, out=None):
    """torch.cross: like ``linalg.cross`` but ``dim=None`` takes the first dim of size 3."""
    if dim is None:
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim, out=out)


@public
def kron(input, other, *, out=None):
    """Kronecker product: block ``(i, j)`` is ``input[i, j] * other`` (dims aligned from the right).

    >>> import ember
    >>> ember.kron(ember.eye(2), ember.ones(2, 2)).shape
    torch.Size([4, 4])
    """
    nd = max(input.dim(), other.dim())
    a = input.reshape((1,) * (nd - input.dim()) + tuple(input.shape))
    b = other.reshape((1,) * (nd - other.dim()) + tuple(other.shape))
    sa, sb = tuple(a.shape), tuple(b.shape)
    ai = a.reshape(tuple(x for s in sa for x in (s, 1)))
    bi = b.reshape(tuple(x for s in sb for x in (1, s)))
    return _out((ai * bi).reshape(tuple(x * y for x, y in zip(sa, sb))), out)


LINALG = {f.__name__: f for f in (
    inv, inv_ex, det, slogdet, solve, solve_ex, solve_triangular, cholesky, cholesky_ex, qr, svd,
    svdvals, eigh, eigvalsh, eig, eigvals, pinv, matrix_exp, matrix_power, lu, lu_factor,
    lu_factor_ex, lu_solve)}


def _method(fn, name):
    def m(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    m.__name__ = name
    m.__qualname__ = f"Tensor.{name}"
    m.__module__ = "ember._tensor"
    m.__doc__ = fn.__doc__
    return m


_TORCH = dict(cross=cross, kron=kron, det=det, logdet=logdet, slogdet=_torch_slogdet, inverse=inv, cholesky=_torch_cholesky,
              cholesky_solve=cholesky_solve, cholesky_inverse=cholesky_inverse, qr=_torch_qr,
              svd=_torch_svd, matrix_exp=matrix_exp, matrix_power=matrix_power, pinverse=_pinverse,
              triangular_solve=triangular_solve, lu_unpack=lu_unpack, lu_solve=None, lu=_torch_lu)


class LinalgDecompMixin:
    __slots__ = ()


for _n, _f in _TORCH.items():
    if _f is not None and _n != "lu_unpack":
        setattr(LinalgDecompMixin, _n, _method(_f, _n))


def _torch_lu_solve(b, LU_data, LU_pivots, *, out=None):
    return lu_solve(LU_data, LU_pivots, b, out=out)


LinalgDecompMixin.lu_solve = _method(_torch_lu_solve, "lu_solve")


FUNCTIONS = {n: public(f, n, "ember") for n, f in _TORCH.items() if f is not None}
FUNCTIONS["lu_solve"] = public(_torch_lu_solve, "lu_solve", "ember")
