"""Op-database entries for decompositions, solvers and matrix functions (``torch.linalg`` and the older
``torch.*`` forms). Samples are small and well conditioned (a random matrix plus a multiple of the
identity, or ``X X^H + n I`` where positive-definiteness is needed). Outputs defined up to a gauge (the
signs/phases of singular and eigen vectors) are compared through ``abs``, which is gauge-invariant.
"""
from __future__ import annotations

import numpy as np

from ._core import FLOAT, OpInfo, Sample, arr, noncontig

CPLX = ("complex64", "complex128")
FC = FLOAT + CPLX


def _sq(shape, dt, shift=None):
    """A batch of well-conditioned square matrices: uniform(-1, 1) plus ``n`` on the diagonal."""
    a = arr(shape, dt, -1, 1)
    n = shape[-1]
    return (a + (n if shift is None else shift) * np.eye(n)).astype(a.dtype)


def _spd(shape, dt):
    x = arr(shape, dt, -1, 1)
    n = shape[-1]
    return (x @ np.swapaxes(x, -1, -2).conj() + n * np.eye(n)).astype(x.dtype)


def _sym(shape, dt):
    x = arr(shape, dt, -2, 2)
    return ((x + np.swapaxes(x, -1, -2).conj()) / 2).astype(x.dtype)


def _square_samples(dt, make=_sq):
    return [Sample((make((3, 3), dt),), name="3x3"), Sample((make((2, 4, 4), dt),), name="batched"),
            Sample((noncontig(make((2, 3, 3), dt)),), name="noncontig"),
            Sample((make((1, 1), dt),), name="1x1"), Sample((make((0, 2, 2), dt),), name="empty batch")]


def _rect_samples(dt):
    return [Sample((arr((4, 3), dt, -2, 2),), name="tall"), Sample((arr((3, 5), dt, -2, 2),), name="wide"),
            Sample((_sq((3, 3), dt),), name="square"), Sample((arr((2, 4, 2), dt, -2, 2),), name="batched"),
            Sample((noncontig(arr((2, 3, 4), dt, -2, 2)),), name="noncontig")]


def _singular(dt):
    """Matrices of rank <= n - 2 (a zero adjugate), and a batch mixing one with a regular matrix."""
    rank1 = arr((3, 1), dt, -1, 1) @ arr((1, 3), dt, -1, 1)
    rank2 = arr((4, 2), dt, -1, 1) @ arr((2, 4), dt, -1, 1)
    mixed = np.stack([_sq((3, 3), dt), rank1]).astype(dt)
    return [Sample((rank2.astype(dt),), name="rank 2 of 4"), Sample((rank1.astype(dt),), name="rank 1 of 3"),
            Sample((np.zeros((2, 2), dt),), name="zero"), Sample((mixed,), name="mixed batch")]


def _rank_deficient_by_one(dt):
    """Rank n-1 matrices (a non-zero adjugate), alone and batched with a regular matrix."""
    r2 = arr((3, 2), dt, -1, 1) @ arr((2, 3), dt, -1, 1)
    mixed = np.stack([_sq((3, 3), dt), r2]).astype(dt)
    return [Sample((r2.astype(dt),), name="rank 2 of 3"), Sample((mixed,), name="mixed batch"),
            Sample((np.array([[1, 2], [2, 4]], dt),), name="2x2")]


def _not_square(dt):
    return [Sample((arr((2, 3), dt),), name="2x3"), Sample((arr((3,), dt),), name="1-D"),
            Sample((arr((3, 3), "int64"),), name="int")]


def _singular_err(dt):
    a = np.array([[1, 2], [2, 4]], dt)
    return [Sample((a,), name="singular"), Sample((np.stack([np.eye(2, dtype=dt), a]),), name="batch 1")]


def _herm(lib, a):
    """Functions reading one triangle only: symmetrise so finite differences see the same map."""
    return (a + a.mH) / 2


def _not_pd(dt):
    a = np.array([[1, 2, 0], [2, 1, 5], [0, 5, 3]], dt)
    return [Sample((a,), name="not pd"), Sample((np.stack([np.eye(3, dtype=dt), a]),), name="batch 1"),
            Sample((-np.eye(2, dtype=dt),), name="negative")]


def _solve_samples(dt):
    return [Sample((_sq((3, 3), dt), arr((3, 2), dt)), name="matrix rhs"),
            Sample((_sq((3, 3), dt), arr((3,), dt)), name="vector rhs"),
            Sample((_sq((2, 3, 3), dt), arr((3, 2), dt)), name="broadcast rhs"),
            Sample((_sq((3, 3), dt), arr((2, 3, 1), dt)), name="broadcast A"),
            Sample((noncontig(_sq((2, 3, 3), dt)), noncontig(arr((2, 3, 2), dt))), name="noncontig"),
            Sample((_sq((3, 3), dt), arr((2, 3), dt)), dict(left=False), name="left=False")]


def _solve_errors(dt):
    return [Sample((_sq((3, 3), dt), arr((4, 2), dt)), name="shapes"),
            Sample((_sq((3, 3), dt), arr((3, 2), "float64" if dt == "float32" else "float32")),
                   name="dtypes")]


def _singular_solve(dt):
    a = np.array([[1, 2], [2, 4]], dt)
    return [Sample((a, arr((2, 2), dt)), name="singular"),
            Sample((np.stack([np.eye(2, dtype=dt), a]), arr((2, 2, 1), dt)), name="batch"),
            Sample((np.array([[0, 1], [0, 1]], dt), arr((2, 1), dt)), name="zero column")]


def _tri_samples(dt):
    a = _sq((3, 3), dt)
    out = []
    for upper in (True, False):
        out.append(Sample((a, arr((3, 2), dt)), dict(upper=upper), name=f"upper={upper}"))
    out.append(Sample((a, arr((2, 3), dt)), dict(upper=True, left=False), name="left=False"))
    out.append(Sample((a, arr((3, 2), dt)), dict(upper=False, unitriangular=True), name="unit"))
    out.append(Sample((_sq((2, 3, 3), dt), noncontig(arr((3, 2), dt))), dict(upper=True), name="batch"))
    return out


def _qr_samples(dt, diff=True):
    """Differentiable: reduced, and complete when m <= n; the rest (mode 'r', complete tall) is not."""
    out = []
    for s in _rect_samples(dt):
        m, n = (s.args[0].array if hasattr(s.args[0], "array") else s.args[0]).shape[-2:]
        for mode in ("reduced", "complete", "r"):
            ok = mode == "reduced" or (mode == "complete" and m <= n)
            if ok == diff:
                out.append(Sample(s.args, dict(mode=mode), name=f"{s.name} {mode}"))
    return out


def _pinv_samples(dt):
    out = _rect_samples(dt)
    return out


def _pinv_tol_samples(dt):
    # a dropped singular value makes the map discontinuous: torch's gradient is that of the full pinv
    return [Sample((arr((4, 3), dt, -2, 2),), dict(rtol=0.2), name="rtol"),
            Sample((arr((4, 3), dt, -2, 2),), dict(atol=0.5), name="atol"),
            Sample((arr((2, 3, 3), dt, -2, 2),), dict(atol=0.3, rtol=0.1), name="both")]


def _lu_solve_samples(dt):
    out = []
    for left in (True, False):
        for adjoint in (False, True):
            b = arr((3, 2) if left else (2, 3), dt)
            out.append(Sample((_sq((3, 3), dt), b), dict(left=left, adjoint=adjoint),
                              name=f"left={left} adjoint={adjoint}"))
    out.append(Sample((_sq((2, 3, 3), dt), arr((3, 1), dt)), name="batched"))
    return out


def _two(sa, sb, make_a=None):
    def samples(dt):
        a = make_a(sa, dt) if make_a else arr(sa, dt)
        return [Sample((a, arr(sb, dt)))]
    return samples


def _svd(lib, a, **kw):
    U, S, Vh = lib.linalg.svd(a, **kw)
    return U.abs(), S, Vh.abs()


def _torch_svd(lib, a, *r, **kw):
    U, S, V = lib.svd(a, *r, **kw)
    return U.abs(), S, V.abs()


def _eigh(lib, a, **kw):
    L, V = lib.linalg.eigh(_herm(lib, a), **kw)
    return L, V.abs()


def _eig(lib, a):
    L, V = lib.linalg.eig(a)
    return L, V.abs()


def _eig_samples(dt):
    # symmetric real inputs: distinct real eigenvalues, so LAPACK's order and the gauge are stable
    return [Sample((_sym((3, 3), dt) + np.diag([0, 5, 10]).astype(dt),), name="3x3"),
            Sample((_sym((2, 3, 3), dt) + np.diag([0, 5, 10]).astype(dt),), name="batched")]


def _ldl(lib, a, **kw):
    LD, piv = lib.linalg.ldl_factor(a, **kw)
    return LD, piv


def _lstsq(lib, a, b, **kw):
    r = lib.linalg.lstsq(a, b, **kw)
    return tuple(r)


def _lstsq_samples(dt):
    out = []
    for drv in ("gels", "gelsy", "gelsd", "gelss"):
        out.append(Sample((arr((5, 3), dt), arr((5, 2), dt)), dict(driver=drv), name=drv))
    out.append(Sample((arr((2, 5, 3), dt), arr((2, 5, 2), dt)), dict(driver="gelsd"), name="batched"))
    return out


def _mpow(n):
    return lambda lib, a: lib.linalg.matrix_power(a, n)


def _lu_factor_err(dt):
    return [Sample((arr((3, 3), dt),), dict(pivot=False), name="pivot=False")]


OPS = [
    OpInfo("linalg.inv", lambda lib, a: lib.linalg.inv(a), _square_samples, dtypes=FC,
           error_samples=_not_square, gradgrad=True),
    OpInfo("inverse", lambda lib, a: a.inverse(), _square_samples, dtypes=FLOAT),
    OpInfo("linalg.inv_ex", lambda lib, a: tuple(lib.linalg.inv_ex(a)), _square_samples, dtypes=FC),
    OpInfo("linalg.inv_ex_singular", lambda lib, a: tuple(lib.linalg.inv_ex(a)), _singular_err,
           dtypes=FC, grad=False),
    OpInfo("linalg.det", lambda lib, a: lib.linalg.det(a), _square_samples, dtypes=FC, gradgrad=True,
           error_samples=_not_square),
    OpInfo("linalg.det_singular", lambda lib, a: lib.linalg.det(a), _singular, dtypes=FLOAT),
    OpInfo("linalg.det_rank_n-1", lambda lib, a: lib.linalg.det(a), _rank_deficient_by_one, dtypes=FLOAT,
           skip_checks=("backward",),
           notes="torch's first-order backward scales A^{-H} by det, so where det rounds to exactly 0 it "
                 "returns zeros instead of the adjugate; ember always gives the adjugate (torch's "
                 "create_graph formula, through the SVD): gradcheck and gradgrad check it"),
    OpInfo("det", lambda lib, a: a.det(), _square_samples, dtypes=FLOAT),
    OpInfo("linalg.slogdet", lambda lib, a: tuple(lib.linalg.slogdet(a)), _square_samples, dtypes=FC),
    OpInfo("slogdet", lambda lib, a: tuple(lib.slogdet(a)), _square_samples, dtypes=FLOAT),
    OpInfo("logdet", lambda lib, a: lib.logdet(a), lambda dt: _square_samples(dt, _spd), dtypes=FC),
    OpInfo("logdet_negative", lambda lib, a: lib.logdet(a),
           lambda dt: [Sample((np.diag([-1.0, 2.0]).astype(dt),))], dtypes=FLOAT, grad=False),
    OpInfo("linalg.solve", lambda lib, a, b, **k: lib.linalg.solve(a, b, **k), _solve_samples, dtypes=FC,
           error_samples=_solve_errors),
    OpInfo("linalg.solve_ex", lambda lib, a, b, **k: tuple(lib.linalg.solve_ex(a, b, **k)),
           _solve_samples, dtypes=FC),
    OpInfo("linalg.solve_ex_singular", lambda lib, a, b: tuple(lib.linalg.solve_ex(a, b)),
           _singular_solve, dtypes=FC, grad=False),
    OpInfo("linalg.solve_triangular", lambda lib, a, b, **k: lib.linalg.solve_triangular(a, b, **k),
           _tri_samples, dtypes=FC),
    OpInfo("triangular_solve", lambda lib, b, a, **k: tuple(lib.triangular_solve(b, a, **k)),
           lambda dt: [Sample((arr((3, 2), dt), _sq((3, 3), dt)), k, name=str(k)) for k in
                       (dict(), dict(upper=False), dict(transpose=True), dict(unitriangular=True))],
           dtypes=FLOAT),
    OpInfo("linalg.cholesky", lambda lib, a, **k: lib.linalg.cholesky(_herm(lib, a), **k),
           lambda dt: _square_samples(dt, _spd) + [Sample((_spd((3, 3), dt),), dict(upper=True),
                                                          name="upper")],
           dtypes=FC),
    OpInfo("cholesky", lambda lib, a, *r: lib.cholesky(_herm(lib, a), *r),
           lambda dt: [Sample((_spd((3, 3), dt),)), Sample((_spd((2, 3, 3), dt), True), name="upper")],
           dtypes=FLOAT),
    OpInfo("linalg.cholesky_ex", lambda lib, a, **k: tuple(lib.linalg.cholesky_ex(_herm(lib, a), **k)),
           lambda dt: _square_samples(dt, _spd) + [Sample((_spd((3, 3), dt),), dict(upper=True))],
           dtypes=FC),
    OpInfo("linalg.cholesky_ex_not_pd", lambda lib, a, **k: tuple(lib.linalg.cholesky_ex(a, **k)),
           lambda dt: _not_pd(dt) + [Sample(_not_pd(dt)[0].args, dict(upper=True), name="upper")],
           dtypes=FC, grad=False),
    # torch's gradient w.r.t. the factor is dense while only its triangle is read: compare through tril
    OpInfo("cholesky_solve", lambda lib, b, l: lib.cholesky_solve(b, l.tril()),
           lambda dt: [Sample((arr((3, 2), dt), np.linalg.cholesky(_spd((3, 3), dt)))),
                       Sample((arr((2, 3, 1), dt), np.linalg.cholesky(_spd((3, 3), dt))), name="batch")],
           dtypes=FLOAT),
    OpInfo("cholesky_solve_full", lambda lib, b, l, *u: lib.cholesky_solve(b, l, *u),
           lambda dt: [Sample((arr((3, 2), dt), _spd((3, 3), dt)), name="lower"),
                       Sample((arr((2, 3, 2), dt), _spd((3, 3), dt), True), name="upper batch")],
           dtypes=FLOAT, skip_checks=("gradcheck", "gradgrad"),
           notes="L not triangular: only its triangle is read, but the gradient reaches all of L "
                 "(torch's cholesky_solve_backward, compared by the backward check); finite differences "
                 "see zero for the unread triangle, so gradcheck does not apply",
           error_samples=lambda dt: [Sample((arr((2, 4), dt), _spd((3, 3), dt)), name="sizes"),
                                     Sample((arr((3,), dt), _spd((3, 3), dt)), name="b 1-d"),
                                     Sample((arr((3, 2), dt), arr((3, 4), dt)), name="not square"),
                                     Sample((arr((3, 2), "float64"), _spd((3, 3), "float32")), name="dtypes"),
                                     Sample((arr((3, 2), "int64"), _spd((3, 3), "int64")), name="int")]),
    OpInfo("cholesky_solve_upper", lambda lib, b, u: lib.cholesky_solve(b, u.triu(), True),
           lambda dt: [Sample((arr((3, 2), dt), np.linalg.cholesky(_spd((3, 3), dt)).T.copy()))],
           dtypes=FLOAT),
    OpInfo("cholesky_inverse", lambda lib, l, *r: lib.cholesky_inverse(l.triu() if r else l.tril(), *r),
           lambda dt: [Sample((np.linalg.cholesky(_spd((3, 3), dt)),)),
                       Sample((np.linalg.cholesky(_spd((3, 3), dt)).T.copy(), True), name="upper")],
           dtypes=FLOAT),
    OpInfo("linalg.qr", lambda lib, a, **k: tuple(lib.linalg.qr(a, **k)), _qr_samples, dtypes=FC),
    OpInfo("linalg.qr_not_differentiable", lambda lib, a, **k: tuple(lib.linalg.qr(a, **k)),
           lambda dt: _qr_samples(dt, False), dtypes=FC, grad=False),
    OpInfo("qr", lambda lib, a, *r: tuple(lib.qr(a, *r)),
           lambda dt: [Sample((arr((4, 3), dt),)), Sample((arr((3, 4), dt), False), name="some=False")],
           dtypes=FLOAT),
    OpInfo("linalg.svd", _svd, lambda dt: [Sample(s.args, dict(full_matrices=False), name=s.name)
                                           for s in _rect_samples(dt)], dtypes=FC, atol=1e-4, rtol=1e-4),
    # the extra columns of a full U are any orthonormal completion: values only
    OpInfo("linalg.svd_full", lambda lib, a: tuple(lib.linalg.svd(a))[1],
           lambda dt: [Sample((arr((4, 3), dt),)), Sample((arr((2, 3, 5), dt),))], dtypes=FC, grad=False),
    OpInfo("svd", _torch_svd, lambda dt: [Sample((arr((4, 3), dt),)),
                                          Sample((arr((3, 3), dt), False), name="some=False")],
           dtypes=FLOAT, atol=1e-4, rtol=1e-4),
    OpInfo("svd_no_uv", lambda lib, a: lib.svd(a, compute_uv=False)[1],
           lambda dt: [Sample((arr((4, 3), dt),))], dtypes=FLOAT),
    OpInfo("linalg.svdvals", lambda lib, a: lib.linalg.svdvals(a), _rect_samples, dtypes=FC),
    OpInfo("linalg.eigh", _eigh, lambda dt: _square_samples(dt, _sym) + [
        Sample((_sym((3, 3), dt),), dict(UPLO="U"), name="U")], dtypes=FC, atol=1e-4, rtol=1e-4),
    OpInfo("linalg.eigvalsh", lambda lib, a, **k: lib.linalg.eigvalsh(_herm(lib, a), **k),
           lambda dt: _square_samples(dt, _sym) + [Sample((arr((3, 3), dt),), dict(UPLO="U"), name="U")],
           dtypes=FC, atol=1e-4, rtol=1e-4),
    OpInfo("linalg.eig", _eig, _eig_samples, dtypes=FLOAT, atol=1e-4, rtol=1e-4),
    OpInfo("linalg.eigvals", lambda lib, a: lib.linalg.eigvals(a), _eig_samples, dtypes=FLOAT,
           atol=1e-4, rtol=1e-4),
    OpInfo("linalg.pinv", lambda lib, a, **k: lib.linalg.pinv(a, **k), _pinv_samples, dtypes=FC,
           atol=1e-4, rtol=1e-4),
    OpInfo("linalg.pinv_tol", lambda lib, a, **k: lib.linalg.pinv(a, **k), _pinv_tol_samples, dtypes=FC,
           atol=1e-4, rtol=1e-4, gradcheck=False, notes="finite differences see the truncation"),
    OpInfo("linalg.pinv_hermitian", lambda lib, a: lib.linalg.pinv(_herm(lib, a), hermitian=True),
           lambda dt: [Sample(((_sym((3, 3), dt) + np.diag([3, -4, 5])).astype(dt),)),
                       Sample(((_sym((2, 3, 3), dt) + np.diag([3, -4, 5])).astype(dt),))],
           dtypes=FC, atol=1e-4, rtol=1e-4),
    OpInfo("pinverse", lambda lib, a: a.pinverse(), lambda dt: [Sample((arr((4, 3), dt),))], dtypes=FLOAT,
           atol=1e-4, rtol=1e-4),
    # singular_values is returned detached (torch's too): gradients through the other outputs only
    OpInfo("linalg.lstsq", lambda lib, a, b, **k: _lstsq(lib, a, b, **k)[:3], _lstsq_samples, dtypes=FLOAT,
           atol=1e-4, rtol=1e-4, meta=False,
           notes="no meta: residuals' shape depends on the rank (torch has no meta kernel either)"),
    OpInfo("linalg.lstsq_all", _lstsq, _lstsq_samples, dtypes=FLOAT, atol=1e-4, rtol=1e-4, meta=False,
           grad=False),
    OpInfo("linalg.matrix_rank", lambda lib, a, **k: lib.linalg.matrix_rank(a, **k),
           lambda dt: [Sample((arr((4, 2), dt) @ arr((2, 3), dt),)), Sample((_sym((3, 3), dt),),
                                                                           dict(hermitian=True))],
           dtypes=FLOAT, grad=False),
    OpInfo("linalg.matrix_power_0", _mpow(0), _square_samples, dtypes=FC),
    OpInfo("linalg.matrix_power_1", _mpow(1), _square_samples, dtypes=FLOAT),
    OpInfo("linalg.matrix_power_3", _mpow(3), _square_samples, dtypes=FC, atol=1e-4, rtol=1e-4),
    OpInfo("linalg.matrix_power_-2", _mpow(-2), _square_samples, dtypes=FLOAT, atol=1e-4, rtol=1e-4),
    OpInfo("linalg.matrix_exp", lambda lib, a: lib.linalg.matrix_exp(a),
           lambda dt: [Sample((arr((3, 3), dt, -1, 1),)), Sample((arr((2, 2, 2), dt, -1, 1),)),
                       Sample((noncontig(arr((2, 3, 3), dt, -1, 1)),))], dtypes=FC, atol=1e-4, rtol=1e-4),
    OpInfo("linalg.lu", lambda lib, a, **k: tuple(lib.linalg.lu(a, **k)), _rect_samples, dtypes=FC,
           error_samples=_lu_factor_err),
    OpInfo("linalg.lu_factor", lambda lib, a: tuple(lib.linalg.lu_factor(a)), _rect_samples, dtypes=FC,
           error_samples=_lu_factor_err),
    OpInfo("linalg.lu_factor_ex", lambda lib, a: tuple(lib.linalg.lu_factor_ex(a)),
           lambda dt: _rect_samples(dt) + _singular_err(dt) + [Sample((np.zeros((2, 3, 3), dt),))],
           dtypes=FLOAT, grad=False),
    OpInfo("linalg.lu_solve", lambda lib, a, b, **k: lib.linalg.lu_solve(*lib.linalg.lu_factor(a), b, **k),
           _lu_solve_samples, dtypes=FC),
    OpInfo("lu_unpack", lambda lib, a: tuple(lib.lu_unpack(*lib.linalg.lu_factor(a))), _rect_samples,
           dtypes=FLOAT),
    OpInfo("linalg.householder_product", lambda lib, a, t: lib.linalg.householder_product(a, t),
           lambda dt: [Sample((arr((4, 3), dt), arr((2,), dt, -1, 1))),
                       Sample((arr((2, 3, 3), dt), arr((2, 3), dt, -1, 1)))], dtypes=FC),
    OpInfo("linalg.cond", lambda lib, a, *p: lib.linalg.cond(a, *p),
           lambda dt: [Sample((_sq((3, 3), dt), p), name=str(p)) for p in (None, 2, -2, "fro", 1, float("inf"))],
           dtypes=FLOAT, atol=1e-4, rtol=1e-4),
    OpInfo("linalg.matrix_norm", lambda lib, a, *p, **k: lib.linalg.matrix_norm(a, *p, **k),
           lambda dt: [Sample((arr((2, 3, 4), dt), p), name=str(p)) for p in
                       ("fro", "nuc", 2, -2, 1, -1, float("inf"), -float("inf"))] +
           [Sample((arr((3, 2, 4), dt), "nuc"), dict(dim=(0, 2), keepdim=True), name="dims")],
           dtypes=FC, atol=1e-4, rtol=1e-4),
    OpInfo("linalg.norm", lambda lib, a, *p, **k: lib.linalg.norm(a, *p, **k),
           lambda dt: [Sample((arr((3, 4), dt),)), Sample((arr((3, 4), dt), "nuc")),
                       Sample((arr((4,), dt), 3)), Sample((arr((2, 3, 4), dt), 1), dict(dim=(1, 2))),
                       Sample((arr((2, 3, 4), dt),), dict(dim=1, keepdim=True))], dtypes=FLOAT,
           atol=1e-4, rtol=1e-4),
    OpInfo("linalg.multi_dot", lambda lib, *ts: lib.linalg.multi_dot(list(ts)),
           lambda dt: [Sample((arr((2, 3), dt), arr((3, 4), dt), arr((4, 1), dt))),
                       Sample((arr((3,), dt), arr((3, 4), dt), arr((4, 2), dt), arr((2,), dt)), name="vec")],
           dtypes=FLOAT),
    OpInfo("linalg.vander", lambda lib, x, **k: lib.linalg.vander(x, **k),
           lambda dt: [Sample((arr((3,), dt),)), Sample((arr((2, 3), dt),), dict(N=4))], dtypes=FLOAT),
    OpInfo("vander", lambda lib, x, *r, **k: lib.vander(x, *r, **k),
           lambda dt: [Sample((arr((3,), dt),)), Sample((arr((3,), dt), 4), dict(increasing=True))],
           dtypes=FLOAT),
    OpInfo("linalg.vecdot", lambda lib, x, y, **k: lib.linalg.vecdot(x, y, **k),
           lambda dt: [Sample((arr((2, 3), dt), arr((3,), dt))), Sample((arr((3, 2), dt), arr((3, 2), dt)),
                                                                        dict(dim=0))], dtypes=FC),
    OpInfo("linalg.tensorinv", lambda lib, a, **k: lib.linalg.tensorinv(a, **k),
           lambda dt: [Sample((_sq((6, 6), dt).reshape(6, 2, 3),), dict(ind=1))], dtypes=FLOAT),
    OpInfo("linalg.tensorsolve", lambda lib, a, b: lib.linalg.tensorsolve(a, b),
           lambda dt: [Sample((_sq((6, 6), dt).reshape(2, 3, 6), arr((2, 3), dt)))], dtypes=FLOAT),
    OpInfo("linalg.cross", lambda lib, a, b, **k: lib.linalg.cross(a, b, **k),
           lambda dt: [Sample((arr((2, 3), dt), arr((3,), dt))), Sample((arr((3, 2), dt), arr((3, 2), dt)),
                                                                        dict(dim=0))], dtypes=FLOAT),
    OpInfo("cross", lambda lib, a, b, *r: lib.cross(a, b, *r),
           lambda dt: [Sample((arr((2, 3), dt), arr((2, 3), dt), 1))], dtypes=FLOAT),
    OpInfo("kron", lambda lib, a, b: lib.kron(a, b),
           lambda dt: [Sample((arr((2, 3), dt), arr((2, 2), dt))), Sample((arr((2,), dt), arr((2, 1, 3), dt)))],
           dtypes=FLOAT),
    OpInfo("chain_matmul", lambda lib, *ts: lib.chain_matmul(*ts),
           lambda dt: [Sample((arr((2, 3), dt), arr((3, 4), dt), arr((4, 2), dt)))], dtypes=FLOAT),
    OpInfo("linalg.ldl_factor", _ldl, lambda dt: [Sample((_sym((3, 3), dt),)),
                                                  Sample((_sym((2, 4, 4), dt),), name="batched"),
                                                  Sample((_sym((3, 3), dt),), dict(hermitian=True))],
           dtypes=FC, grad=False),
    OpInfo("linalg.ldl_factor_ex", lambda lib, a: tuple(lib.linalg.ldl_factor_ex(a)),
           lambda dt: [Sample((_sym((3, 3), dt),)), Sample((np.zeros((2, 2), dt),), name="zero")],
           dtypes=FLOAT, grad=False),
    OpInfo("linalg.ldl_solve", lambda lib, a, b, **k: lib.linalg.ldl_solve(*lib.linalg.ldl_factor(a), b, **k),
           lambda dt: [Sample((_sym((3, 3), dt), arr((3, 2), dt))),
                       Sample((_sym((2, 4, 4), dt), arr((2, 4, 1), dt)), name="batched")],
           dtypes=FLOAT, grad=False),
]

OPS += [OpInfo("geqrf", lambda lib, A: tuple(lib.geqrf(A)),
               lambda dt: [Sample((arr((5, 3), dt),), name="tall"), Sample((arr((3, 4), dt),), name="wide"),
                           Sample((arr((2, 3, 3), dt),), name="batched")],
               dtypes=FLOAT, grad=False, atol=1e-4, rtol=1e-4,
               notes="LAPACK's Householder form; torch has no derivative for geqrf")]
