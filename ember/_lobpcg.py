"""``torch.lobpcg`` (layer L3): k extreme eigenpairs of a symmetric (generalised) eigenproblem
``A x = lambda B x`` by Knyazev's Locally Optimal Block Preconditioned Conjugate Gradient method.

Each step B-orthonormalises the block ``[X, W, P]`` (X: current eigenvector approximations,
W = iK @ residual, P: the previous search direction) and solves the small projected problem
(Rayleigh-Ritz); it stops when every requested residual ``||A x - lambda B x||`` is below
``tol * (||A|| + |lambda| ||B||)`` or after ``niter`` steps. The iteration runs without recording
gradients; the returned eigenvalues are the Rayleigh quotients of the final (detached)
eigenvectors, so ``dE/dA = x x^T`` as in torch's backward for B = None.

Example:
    >>> import ember
    >>> A = ember.diag(ember.arange(1., 13.))
    >>> E, X = ember.lobpcg(A, k=2)
    >>> [round(v, 4) for v in E.tolist()]
    [12.0, 11.0]
"""
from __future__ import annotations

import math

from . import _dtype as D
from . import linalg as _linalg
from ._tensor_methods.random import randn
from ._tensor_methods.shape_copy import cat, stack
from .autograd.grad_mode import no_grad
from .overrides import public

__all__ = ["lobpcg"]


def _b_orthonormal(S, B, eps):
    """An orthonormal basis (in the B inner product) of the columns of ``S``, dropping directions
    that are numerically dependent."""
    BS = S if B is None else B @ S
    G = S.mT @ BS
    G = (G + G.mT) / 2
    w, V = _linalg.eigh(G)
    keep = w > eps * w.max().clamp(min=eps)
    w, V = w[keep], V[:, keep]
    return S @ (V / w.sqrt())


def _lobpcg_2d(A, k, B, X, n, iK, niter, tol, largest):
    m = A.shape[-1]
    if X is None:
        X = randn(m, n, dtype=A.dtype)
    nx = X.shape[-1]
    eps = D.finfo(A.dtype).eps
    normA = _linalg.matrix_norm(A, 2).item() if m else 0.0
    normB = 1.0 if B is None else _linalg.matrix_norm(B, 2).item()
    X = _b_orthonormal(X, B, eps * 10)

    def ritz(S):
        T = S.mT @ (A @ S)
        w, C = _linalg.eigh((T + T.mT) / 2)
        order = w.argsort(descending=largest)
        return w[order], C[:, order]

    E, C = ritz(X)
    X = X @ C[:, :nx]
    E = E[:nx]
    P = None
    steps = 0
    while niter < 0 or steps < niter:
        BX = X if B is None else B @ X
        R = A @ X - BX * E
        res = _linalg.vector_norm(R[:, :k], dim=0)
        bound = tol * (normA + E[:k].abs() * normB)
        if bool((res <= bound).all()):
            break
        W = R if iK is None else iK @ R
        S = cat([X, W] + ([P] if P is not None else []), 1)
        S = _b_orthonormal(S, B, eps * 10)
        w, C = ritz(S)
        cnt = min(nx, C.shape[1])
        Cx = C[:, :cnt]
        X_new = S @ Cx
        # the new search direction: the part of the update outside the old X
        BXo = X if B is None else B @ X
        P = X_new - X @ (BXo.mT @ X_new)
        X, E = X_new, w[:cnt]
        steps += 1
    return X[:, :k]


@public
def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    """The ``k`` largest (or smallest, ``largest=False``) eigenpairs of symmetric ``A``
    ``(*, m, m)`` (generalised with positive definite ``B``): ``E (*, k)``, ``X (*, m, k)``.

    Args: k (default: X's columns or 1), X initial ``(*, m, n)`` guess, n (block size when X is
    None, default k), iK preconditioner, niter (default 1000; -1 until convergence), tol (default
    sqrt(eps)), method 'ortho' or 'basic' (both run the same B-orthonormalised iteration here);
    ``tracker`` and the ortho_* parameters are accepted and ignored.
    """
    if method not in (None, "ortho", "basic"):
        raise ValueError(f"lobpcg: unknown method {method!r}")
    if k is None:
        k = 1 if X is None else X.shape[-1]
    n = (k if n is None else n) if X is None else X.shape[-1]
    m = A.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is "
                         f"smaller than 3 x the number of requested eigenpairs (={n})")
    niter = 1000 if niter is None else niter
    tol = math.sqrt(D.finfo(A.dtype).eps) if tol is None else tol
    largest = True if largest is None else largest
    batch = tuple(A.shape[:-2])
    if batch:
        outs = [lobpcg(A[i], k, None if B is None else B[i], None if X is None else X[i], n,
                       None if iK is None else iK[i], niter, tol, largest, method)
                for i in range(A.shape[0])]
        return stack([o[0] for o in outs], 0), stack([o[1] for o in outs], 0)
    with no_grad():
        Xk = _lobpcg_2d(A.detach(), k, None if B is None else B.detach(),
                        None if X is None else X.detach(), n, None if iK is None else iK.detach(),
                        niter, tol, largest)
    # Rayleigh quotients of the converged vectors: the eigenvalues, differentiable in A
    BX = Xk if B is None else B @ Xk
    E = (Xk * (A @ Xk)).sum(0) / (Xk * BX).sum(0)
    return E, Xk
