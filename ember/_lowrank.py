"""``torch.svd_lowrank`` and ``torch.pca_lowrank`` (layer L3): randomized low-rank SVD/PCA
(Halko, Martinsson and Tropp, 2009, algorithms 4.4 and 5.1), composites of ember ops.

A Gaussian test matrix ``(n, q)`` samples the range of A; ``niter`` subspace (power) iterations,
each re-orthonormalised by QR, sharpen it; the SVD of the small ``Q^H A`` gives the factors. The
random draws use ember's generator, so factors equal torch's only up to its random stream; the
singular values of a matrix of rank <= q match exactly (tests compare those and reconstructions).

Example:
    >>> import ember
    >>> A = ember.randn(8, 2) @ ember.randn(2, 6)
    >>> U, S, V = ember.svd_lowrank(A, q=2)
    >>> bool(((U * S) @ V.mT - A).abs().max() < 1e-3)
    True
"""
from __future__ import annotations

from ._tensor_methods.random import randn
from . import linalg as _linalg
from .overrides import public

__all__ = ["svd_lowrank", "pca_lowrank"]


def _matmul(A, B, M, MB):
    """``(A - M) @ B`` with ``M`` optional (``MB`` = M's contribution, computed by the caller)."""
    return A @ B if M is None else A @ B - MB


def _approximate_basis(A, q, niter, M):
    """An orthonormal ``(*, m, q)`` basis of the dominant range of ``A - M``."""
    n = A.shape[-1]
    R = randn(tuple(A.shape[:-2]) + (n, q), dtype=A.dtype)
    Q = _linalg.qr(_matmul(A, R, M, None if M is None else M @ R)).Q
    for _ in range(niter):
        Z = _linalg.qr(_matmul(A.mH, Q, None if M is None else M.mH,
                               None if M is None else M.mH @ Q)).Q
        Q = _linalg.qr(_matmul(A, Z, M, None if M is None else M @ Z)).Q
    return Q


def _svd_lowrank(A, q, niter, M):
    m, n = A.shape[-2], A.shape[-1]
    if M is not None:
        M = M.expand(A.shape) if tuple(M.shape) != tuple(A.shape) else M
    if m < n:  # work on the tall side: A^H = V S U^H
        U, S, V = _svd_lowrank(A.mH, q, niter, None if M is None else M.mH)
        return V, S, U
    Q = _approximate_basis(A, q, niter, M)
    B = Q.mH @ A if M is None else Q.mH @ A - Q.mH @ M  # shape: (*, q, n)
    Ub, S, Vh = _linalg.svd(B, full_matrices=False)
    return Q @ Ub, S, Vh.mH


@public
def svd_lowrank(A, q=6, niter=2, M=None):
    """Approximate ``(U, S, V)`` with ``A - M ~ U diag(S) V^H`` of rank ``q``.

    Args:
        A: ``(*, m, n)``; q: rank to find (default 6); niter: subspace iterations (default 2);
        M: optional ``(*, m, n)`` (broadcastable) subtracted from A.

    Returns ``U (*, m, q')``, ``S (*, q')``, ``V (*, n, q')`` with ``q' = min(q, m, n)``.
    """
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    return _svd_lowrank(A, q, niter, M)


@public
def pca_lowrank(A, q=None, center=True, niter=2):
    """Principal components of the rows of ``A`` ``(*, m, n)``: ``svd_lowrank`` of ``A`` minus
    its column means (when ``center``); ``q`` defaults to ``min(6, m, n)``.

    Returns ``(U, S, V)``; the principal directions are the columns of ``V``.
    """
    m, n = A.shape[-2], A.shape[-1]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)="
                         f"{min(m, n)}")
    if niter < 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    C = A.mean(dim=-2, keepdim=True)
    return _svd_lowrank(A - C, q, niter, None)
