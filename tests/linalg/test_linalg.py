"""ember.linalg (and torch.* linalg aliases) against torch: values, dtypes, shapes, batched inputs,
errors, gradients (compared with torch's on gauge-invariant losses) and float64 gradcheck."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 3, 3))
B = RNG.standard_normal((2, 3, 2))
W = RNG.standard_normal((2, 3, 3))
SPD = A @ A.transpose(0, 2, 1) + 3 * np.eye(3)
TALL = RNG.standard_normal((2, 5, 3))
WIDE = RNG.standard_normal((2, 3, 5))
C = RNG.standard_normal((2, 3, 3)) + 1j * RNG.standard_normal((2, 3, 3))


def _np(t):
    t = t.detach()
    return t.resolve_conj().numpy() if isinstance(t, torch.Tensor) else t.numpy()


def close(e, t, tol=1e-5, absolute=False):
    if isinstance(t, tuple):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            close(a, b, tol, absolute)
        return
    a, b = _np(e), _np(t)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    if absolute:
        a, b = np.abs(a), np.abs(b)
    np.testing.assert_allclose(a, b, atol=tol, rtol=tol)


def run(f, *arrays, dtype=None):
    """``f(lib, *tensors)`` for ember and torch."""
    out = []
    for lib in (ember, torch):
        ts = [lib.tensor(a if dtype is None else a.astype(dtype)) for a in arrays]
        out.append(f(lib, *ts))
    return out


FORWARD = {
    "inv": (lambda m, a: m.linalg.inv(a), A),
    "inv_ex": (lambda m, a: m.linalg.inv_ex(a), A),
    "det": (lambda m, a: m.linalg.det(a), A),
    "slogdet": (lambda m, a: m.linalg.slogdet(a), A),
    "logdet": (lambda m, a: m.logdet(a), SPD),
    "solve": (lambda m, a, b: m.linalg.solve(a, b), A, B),
    "solve_vec": (lambda m, a, b: m.linalg.solve(a, b[..., 0]), A, B),
    "solve_right": (lambda m, a, b: m.linalg.solve(a, b.mT, left=False), A, B),
    "solve_bcast": (lambda m, a, b: m.linalg.solve(a[0], b), A, B),
    "cholesky": (lambda m, a: m.linalg.cholesky(a), SPD),
    "cholesky_upper": (lambda m, a: m.linalg.cholesky(a, upper=True), SPD),
    "cholesky_ex": (lambda m, a: m.linalg.cholesky_ex(a), SPD),
    "qr": (lambda m, a: m.linalg.qr(a), TALL),
    "qr_complete": (lambda m, a: m.linalg.qr(a, mode="complete"), TALL),
    "qr_r": (lambda m, a: m.linalg.qr(a, mode="r")[1], WIDE),
    "svdvals": (lambda m, a: m.linalg.svdvals(a), TALL),
    "eigvalsh": (lambda m, a: m.linalg.eigvalsh(a), SPD),
    "eigvalsh_U": (lambda m, a: m.linalg.eigvalsh(a, UPLO="U"), A),
    "eigvals": (lambda m, a: m.linalg.eigvals(a), SPD),
    "pinv": (lambda m, a: m.linalg.pinv(a), TALL),
    "pinv_herm": (lambda m, a: m.linalg.pinv(a, hermitian=True), SPD),
    "pinv_atol": (lambda m, a: m.linalg.pinv(a, atol=1.0), WIDE),
    "matrix_exp": (lambda m, a: m.linalg.matrix_exp(a), A),
    "matrix_power3": (lambda m, a: m.linalg.matrix_power(a, 3), A),
    "matrix_power-2": (lambda m, a: m.linalg.matrix_power(a, -2), A),
    "matrix_power0": (lambda m, a: m.linalg.matrix_power(a, 0), A),
    "solve_triangular": (lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True), A, B),
    "solve_triangular_right_unit": (lambda m, a, b: m.linalg.solve_triangular(
        a, b.mT, upper=False, left=False, unitriangular=True), A, B),
    "triangular_solve": (lambda m, a, b: tuple(m.triangular_solve(b, a, transpose=True)), A, B),
    "lu": (lambda m, a: m.linalg.lu(a), A),
    "lu_tall": (lambda m, a: m.linalg.lu(a), TALL),
    "lu_factor": (lambda m, a: m.linalg.lu_factor(a), A),
    "lu_factor_wide": (lambda m, a: m.linalg.lu_factor(a), WIDE),
    "lu_unpack": (lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a)), TALL),
    "lu_solve": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b), A, B),
    "lu_solve_adjoint": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b, adjoint=True), A, B),
    "lu_solve_right": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b.mT, left=False), A, B),
    "lu_solve_right_adjoint": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b.mT,
                                                                 left=False, adjoint=True), A, B),
    "cholesky_solve": (lambda m, a, b: m.cholesky_solve(b, m.linalg.cholesky(a)), SPD, B),
    "cholesky_inverse": (lambda m, a: m.cholesky_inverse(m.linalg.cholesky(a[0]), upper=False), SPD),
    "cond": (lambda m, a: m.linalg.cond(a), A),
    "cond_fro": (lambda m, a: m.linalg.cond(a, "fro"), A),
    "matrix_rank": (lambda m, a: m.linalg.matrix_rank(a), TALL),
    "matrix_rank_herm": (lambda m, a: m.linalg.matrix_rank(a, hermitian=True), SPD),
    "norm": (lambda m, a: m.linalg.norm(a), A),
    "norm_vec": (lambda m, a: m.linalg.norm(a, 3, dim=-1), A),
    "norm_mat": (lambda m, a: m.linalg.norm(a[0], "nuc"), A),
    "vector_norm": (lambda m, a: m.linalg.vector_norm(a, 1, dim=(0, 2)), A),
    "multi_dot": (lambda m, a, b: m.linalg.multi_dot([a[0], a[1], b[0]]), A, B),
    "multi_dot_vec": (lambda m, a, b: m.linalg.multi_dot([b[0, :, 0], a[1], b[0]]), A, B),
    "chain_matmul": (lambda m, a: m.chain_matmul(a[0], a[1], a[0]), A),
    "vecdot": (lambda m, a, b: m.linalg.vecdot(a, b), A, W),
    "diagonal": (lambda m, a: m.linalg.diagonal(a, offset=1), A),
    "cross": (lambda m, a, b: m.linalg.cross(a, b), A, W),
    "cross_dim": (lambda m, a, b: m.cross(a, b, dim=1), A, W),
    "kron": (lambda m, a, b: m.kron(a[0], b[0]), A, B),
    "kron_nd": (lambda m, a, b: m.kron(a, b[0]), A, B),
    "linalg_vander": (lambda m, a: m.linalg.vander(a[:, 0], N=4), A),
    "vander": (lambda m, a: m.vander(a[0, 0], 4), A),
    "vander_inc": (lambda m, a: m.vander(a[0, 0], increasing=True), A),
    "householder": (lambda m, a, b: m.linalg.householder_product(a, b[..., 0]), TALL, B),
    "tensorinv": (lambda m, a: m.linalg.tensorinv(a.reshape(3, 2, 6)[..., :6].reshape(6, 6)
                                                   .reshape(2, 3, 6), ind=2),
                  RNG.standard_normal((36,))),
    "svd_torch": (lambda m, a: m.svd(a)[1], TALL),
    "qr_torch": (lambda m, a: m.qr(a, some=False)[1].abs(), TALL),
}


@pytest.mark.parametrize("name", sorted(FORWARD))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward(name, dtype):
    f, *arrays = FORWARD[name]
    e, t = run(f, *arrays, dtype=dtype)
    close(e, t, 1e-4 if dtype == "float32" else 1e-8)


def test_decompositions_reconstruct():
    """svd/eigh/eig/qr: sign conventions may differ from torch's, products must not."""
    a = ember.tensor(TALL)
    U, S, Vh = ember.linalg.svd(a, full_matrices=False)
    close(U @ (S.unsqueeze(-1) * Vh), torch.tensor(TALL))
    U, S, Vh = ember.linalg.svd(a)
    assert tuple(U.shape) == (2, 5, 5) and tuple(Vh.shape) == (2, 3, 3)
    L, Q = ember.linalg.eigh(ember.tensor(SPD))
    close(Q @ (L.unsqueeze(-1) * Q.mT), torch.tensor(SPD))
    lam, V = ember.linalg.eig(ember.tensor(A))
    assert lam.dtype is ember.complex128
    close(ember.tensor(A).to(ember.complex128) @ V, V * lam.unsqueeze(-2))
    lam32, _ = ember.linalg.eig(ember.tensor(A, dtype=ember.float32))
    assert lam32.dtype is ember.complex64


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "matrix_exp", "svdvals", "qr", "cholesky",
                                  "pinv"])
def test_complex(name):
    f = {"inv": lambda m, a: m.linalg.inv(a), "det": lambda m, a: m.linalg.det(a),
         "slogdet": lambda m, a: m.linalg.slogdet(a), "matrix_exp": lambda m, a: m.linalg.matrix_exp(a),
         "svdvals": lambda m, a: m.linalg.svdvals(a), "qr": lambda m, a: m.linalg.qr(a),
         "cholesky": lambda m, a: m.linalg.cholesky(a @ a.mH + 3 * m.eye(3, dtype=a.dtype)),
         "pinv": lambda m, a: m.linalg.pinv(a)}[name]
    for dt in ("complex64", "complex128"):
        e, t = run(f, C, dtype=dt)
        close(e, t, 1e-4 if dt == "complex64" else 1e-8)


def test_meta_shapes():
    m = ember.empty(4, 5, 3, device="meta")
    sq = ember.empty(4, 3, 3, device="meta")
    assert tuple(ember.linalg.qr(m).Q.shape) == (4, 5, 3)
    assert [tuple(x.shape) for x in ember.linalg.svd(m)] == [(4, 5, 5), (4, 3), (4, 3, 3)]
    assert tuple(ember.linalg.inv(sq).shape) == (4, 3, 3)
    assert tuple(ember.linalg.det(sq).shape) == (4,)
    assert ember.linalg.eigh(sq).eigenvalues.dtype is ember.float32
    assert tuple(ember.linalg.solve(sq, ember.empty(4, 3, 2, device="meta")).shape) == (4, 3, 2)
    assert tuple(ember.linalg.pinv(m).shape) == (4, 3, 5)


# ------------------------------------------------------------------------------ errors
ERRORS = [
    lambda m: m.linalg.inv(m.tensor([[1., 2], [2, 4]])),
    lambda m: m.linalg.inv(m.stack([m.eye(2), m.tensor([[1., 2], [2, 4]])])),
    lambda m: m.linalg.solve(m.tensor([[1., 2], [2, 4]]), m.ones(2)),
    lambda m: m.linalg.cholesky(m.tensor([[1., 2], [2, 1]])),
    lambda m: m.linalg.cholesky(m.stack([m.eye(2), m.tensor([[1., 2], [2, 1]])])),
    lambda m: m.linalg.inv(m.ones(2, 3)),
    lambda m: m.linalg.inv(m.ones(3)),
    lambda m: m.linalg.det(m.ones(2, 3)),
    lambda m: m.linalg.inv(m.ones(2, 2, dtype=m.int64)),
    lambda m: m.linalg.cholesky(m.ones(2, 2, dtype=m.int64)),
    lambda m: m.linalg.svd(m.ones(2, 2, dtype=m.int64)),
    lambda m: m.linalg.eigh(m.ones(2, 3)),
    lambda m: m.linalg.qr(m.ones(3)),
    lambda m: m.linalg.qr(m.ones(2, 3), mode="x"),
    lambda m: m.linalg.solve(m.eye(2), m.ones(3)),
    lambda m: m.linalg.matrix_power(m.ones(2, 3), 2),
    lambda m: m.linalg.eigh(m.eye(2), UPLO="X"),
    lambda m: m.linalg.solve_triangular(m.eye(2), m.ones(3, 1), upper=True),
    lambda m: m.linalg.cross(m.ones(2), m.ones(2)),
    lambda m: m.linalg.norm(m.ones(2, 2, 2), 2),
    lambda m: m.linalg.householder_product(m.ones(2, 3), m.ones(2)),
    lambda m: m.linalg.multi_dot([m.ones(2, 2)]),
    lambda m: m.linalg.solve_ex(m.stack([m.eye(2), m.tensor([[1., 2], [2, 4]])]), m.ones(2, 1),
                                check_errors=True),
    lambda m: m.linalg.inv_ex(m.tensor([[1., 2], [2, 4]]), check_errors=True),
    lambda m: m.linalg.cholesky_ex(m.tensor([[1., 2], [2, 1]]), check_errors=True),
    lambda m: m.linalg.lu(m.eye(2), pivot=False),
    lambda m: m.linalg.ldl_factor(m.ones(2, 3)),
    lambda m: m.linalg.ldl_solve(m.eye(2), m.ones(2, dtype=m.int32), m.ones(3, 1)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    with pytest.raises(Exception) as te:
        ERRORS[i](torch)
    with pytest.raises(Exception) as ee:
        ERRORS[i](ember)
    assert str(ee.value) == str(te.value)
    assert isinstance(ee.value, RuntimeError) == isinstance(te.value, RuntimeError)
    if isinstance(te.value, torch.linalg.LinAlgError):
        assert isinstance(ee.value, ember.linalg.LinAlgError)


def test_ex_variants_do_not_raise():
    r = ember.linalg.inv_ex(ember.tensor([[1., 2], [2, 4]]))
    assert r.info.item() == 2 and r.info.dtype is ember.int32
    r = ember.linalg.cholesky_ex(ember.tensor([[1., 2], [2, 1]]))
    assert r.info.item() == 2


# ------------------------------------------------------------------------------ gradients
def _W(shape):
    return np.random.default_rng(5).standard_normal(shape)


GRADS = {
    "inv": (lambda m, a: (m.linalg.inv(a) * m.tensor(W)).sum(), A),
    "det": (lambda m, a: m.linalg.det(a).sum(), A),
    "slogdet": (lambda m, a: m.linalg.slogdet(a)[1].sum(), A),
    "logdet": (lambda m, a: m.logdet(a).sum(), SPD),
    "solve": (lambda m, a, b: (m.linalg.solve(a, b) ** 2).sum(), A, B),
    "solve_right": (lambda m, a, b: (m.linalg.solve(a, b.mT, left=False) ** 2).sum(), A, B),
    "cholesky": (lambda m, a: (m.linalg.cholesky(a @ a.mT + 3 * m.eye(3, dtype=a.dtype))
                               * m.tensor(W)).sum(), A),
    "cholesky_upper": (lambda m, a: (m.linalg.cholesky(a @ a.mT + 3 * m.eye(3, dtype=a.dtype), upper=True)
                                     * m.tensor(W)).sum(), A),
    "qr_tall": (lambda m, a: (lambda q, r: (q * m.tensor(TALL)).sum() + (r ** 2).sum())(*m.linalg.qr(a)),
                TALL),
    "qr_wide": (lambda m, a: (lambda q, r: (q * m.tensor(W)).sum() + (r ** 3).sum())(*m.linalg.qr(a)),
                WIDE),
    "svd": (lambda m, a: (lambda u, s, vh: (u @ vh * m.tensor(TALL)).sum() + s.sum() + u.abs().sum())(
        *m.linalg.svd(a, full_matrices=False)), TALL),
    "svd_wide": (lambda m, a: (lambda u, s, vh: (u @ vh * m.tensor(WIDE)).sum() + (s ** 2).sum())(
        *m.linalg.svd(a, full_matrices=False)), WIDE),
    "svd_full": (lambda m, a: (lambda u, s, vh: (u @ vh[..., :3, :] * m.tensor(WIDE)).sum())(
        *m.linalg.svd(a)), WIDE),
    "svdvals": (lambda m, a: (m.linalg.svdvals(a) ** 3).sum(), TALL),
    "eigh": (lambda m, a: (lambda l, v: (v.abs() * m.tensor(W)).sum() + (l ** 2).sum())(
        *m.linalg.eigh(a + a.mT)), A),
    "eigvalsh": (lambda m, a: (m.linalg.eigvalsh(a + a.mT) ** 3).sum(), A),
    "eig": (lambda m, a: (lambda l, v: v.abs().sum() + l.abs().sum())(*m.linalg.eig(a)), A),
    "eigvals": (lambda m, a: m.linalg.eigvals(a).abs().sum(), A),
    "pinv": (lambda m, a: (m.linalg.pinv(a) * m.tensor(TALL.transpose(0, 2, 1))).sum(), TALL),
    "pinv_wide": (lambda m, a: (m.linalg.pinv(a) * m.tensor(WIDE.transpose(0, 2, 1))).sum(), WIDE),
    "matrix_exp": (lambda m, a: (m.linalg.matrix_exp(a) * m.tensor(W)).sum(), A),
    "solve_triangular": (lambda m, a, b: (m.linalg.solve_triangular(
        a + 3 * m.eye(3, dtype=a.dtype), b, upper=True) ** 2).sum(), A, B),
    "solve_triangular_right": (lambda m, a, b: (m.linalg.solve_triangular(
        a + 3 * m.eye(3, dtype=a.dtype), b.mT, upper=False, left=False, unitriangular=True) ** 2).sum(),
        A, B),
    "lu": (lambda m, a: (lambda p, l, u: (l * m.tensor(W)).sum() + (u ** 2).sum())(*m.linalg.lu(a)), A),
    "lu_tall": (lambda m, a: (lambda p, l, u: (l * m.tensor(TALL)).sum() + (u ** 2).sum())(
        *m.linalg.lu(a)), TALL),
    "lu_wide": (lambda m, a: (lambda p, l, u: (l * m.tensor(W)).sum() + (u ** 2 * m.tensor(WIDE)).sum())(
        *m.linalg.lu(a)), WIDE),
    "lu_factor": (lambda m, a: (m.linalg.lu_factor(a)[0] * m.tensor(W)).sum(), A),
    "lu_solve": (lambda m, a, b: (m.linalg.lu_solve(*m.linalg.lu_factor(a), b) ** 2).sum(), A, B),
    "lstsq": (lambda m, a, b: (m.linalg.lstsq(a, b).solution ** 2).sum(), TALL, TALL[..., :2] + 1),
    "matrix_norms": (lambda m, a: m.linalg.matrix_norm(a, "nuc").sum() + m.linalg.matrix_norm(a, 2).sum()
                     + m.linalg.matrix_norm(a, 1).sum(), A),
    "householder": (lambda m, a, t: (m.linalg.householder_product(a, t) * m.tensor(TALL)).sum(),
                    TALL, B[..., 0]),
    "kron": (lambda m, a, b: (m.kron(a, b) ** 2).sum(), A[0], B[0]),
    "cross": (lambda m, a, b: (m.linalg.cross(a, b) * m.tensor(W)).sum(), A, W),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_grad_vs_torch(name):
    f, *arrays = GRADS[name]
    grads = []
    for lib in (ember, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        f(lib, *xs).backward()
        grads.append([x.grad for x in xs])
    for ge, gt in zip(*grads):
        close(ge, gt, 1e-6)


C_GRADS = {
    "inv": lambda m, a: m.linalg.inv(a).abs().sum(),
    "det": lambda m, a: m.linalg.det(a).abs().sum(),
    "slogdet": lambda m, a: (lambda s, l: l.sum() + s.real.sum())(*m.linalg.slogdet(a)),
    "svd": lambda m, a: (lambda u, s, vh: (u @ vh).abs().sum() + s.sum())(*m.linalg.svd(a)),
    "eigh": lambda m, a: (lambda l, v: (l ** 2).sum() + (v.abs() ** 2 * m.tensor(W)).sum())(
        *m.linalg.eigh(a + a.mH)),
    "qr": lambda m, a: (lambda q, r: q.abs().sum() + r.abs().sum())(*m.linalg.qr(a)),
    "cholesky": lambda m, a: m.linalg.cholesky(a @ a.mH + 3 * m.eye(3, dtype=a.dtype)).abs().sum(),
    "matrix_exp": lambda m, a: m.linalg.matrix_exp(a).abs().sum(),
}


@pytest.mark.parametrize("name", sorted(C_GRADS))
def test_complex_grad_vs_torch(name):
    grads = []
    for lib in (ember, torch):
        x = lib.tensor(C, requires_grad=True)
        C_GRADS[name](lib, x).backward()
        grads.append(x.grad)
    close(*grads, 1e-6)


def test_gauge_dependent_loss_raises():
    for lib in (ember, torch):
        x = lib.tensor(C, requires_grad=True)
        U = lib.linalg.svd(x)[0]
        with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
            U[..., 0].real.sum().backward()


@pytest.mark.parametrize("name", ["inv", "det", "solve", "cholesky", "qr_tall", "svd", "eigh", "pinv",
                                  "matrix_exp", "solve_triangular", "lu"])
def test_gradcheck(name):
    f, *arrays = GRADS[name]
    xs = [ember.tensor(a[0] if a.ndim == 3 else a, requires_grad=True) for a in arrays]
    assert ember.autograd.gradcheck(lambda *t: f(ember, *t), xs)


def test_second_order_inv_det():
    a = ember.tensor(A[0], requires_grad=True)
    assert ember.autograd.gradgradcheck(lambda x: ember.linalg.det(x), [a])
    assert ember.autograd.gradgradcheck(lambda x: ember.linalg.inv(x).sum(), [a])


def test_methods_and_aliases():
    a = ember.tensor(SPD)
    close(a.det(), torch.tensor(SPD).det())
    close(a.inverse(), torch.tensor(SPD).inverse())
    close(a.cholesky(), torch.tensor(SPD).cholesky())
    close(a.matrix_exp(), torch.tensor(SPD).matrix_exp())
    close(a.pinverse(), torch.tensor(SPD).pinverse())
    close(a.slogdet().logabsdet, torch.tensor(SPD).slogdet().logabsdet)
    U, S, V = ember.svd(ember.tensor(TALL))
    close(U @ (S.unsqueeze(-1) * V.mT), torch.tensor(TALL))
    assert tuple(ember.svd(ember.tensor(TALL), some=False).U.shape) == (2, 5, 5)
    assert math.isnan(ember.logdet(ember.tensor([[-1., 0], [0, 1]])).item())


def test_orthogonal_init_uses_qr():
    w = ember.empty(6, 4)
    ember.nn.init.orthogonal_(w, gain=2.0)
    close(w.T @ w, torch.eye(4) * 4, 1e-5)
    w = ember.empty(3, 2, 4)
    ember.nn.init.orthogonal_(w)
    m = w.reshape(3, 8)
    close(m @ m.T, torch.eye(3), 1e-5)
