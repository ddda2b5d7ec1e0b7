"""Linear-algebra functions torch removed in 1.9 but still defines (layer L3): ``torch.solve`` and
``torch.symeig``, ``torch.eig``, ``torch.lstsq``, ``torch.matrix_rank`` (and the Tensor methods
``solve``, ``symeig``, ``eig``, ``lstsq``) exist and raise ``RuntimeError`` pointing to the
``linalg`` replacement, so code probing for them behaves as under torch.

Example:
    >>> import ember
    >>> try:
    ...     ember.solve(ember.eye(2), ember.eye(2))
    ... except RuntimeError as e:
    ...     print(str(e).splitlines()[0][:47])
    This function was deprecated since version 1.9
"""
from __future__ import annotations

__all__ = ["solve", "symeig", "eig", "lstsq", "matrix_rank", "FUNCTIONS"]

_REMOVED = "This function was deprecated since version 1.9 and is now removed. "


def solve(input, A, *, out=None):
    """Removed in torch 1.9: raises. Use ``linalg.solve(A, input)`` (arguments reversed; the LU
    factorization is not returned, ``linalg.lu_factor`` gives it)."""
    raise RuntimeError(_REMOVED + "`torch.solve` is deprecated in favor of `torch.linalg.solve`: "
                       "X = torch.linalg.solve(A, B) replaces X, LU = torch.solve(B, A) (note the "
                       "reversed arguments; use torch.linalg.lu_factor for the LU factorization).")


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """Removed in torch 1.9: raises. Use ``linalg.eigh`` / ``linalg.eigvalsh`` (which read the lower
    triangle by default: pass ``UPLO='U'`` for the old default)."""
    raise RuntimeError(_REMOVED + "Use torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L') for "
                       "eigenvalues only, or torch.linalg.eigh(A, UPLO=...) for eigenvalues and "
                       "eigenvectors (the old default read the upper triangle).")


def eig(input, eigenvectors=False, *, out=None):
    """Removed in torch 1.9: raises. Use ``linalg.eigvals`` / ``linalg.eig``, which return complex
    tensors instead of (real, imaginary) column pairs."""
    raise RuntimeError(_REMOVED + "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or "
                       "`cdouble`, not real tensors standing for complex ones: use "
                       "torch.linalg.eigvals(A) for the eigenvalues and torch.linalg.eig(A) for "
                       "eigenvalues and eigenvectors.")


def lstsq(input, A, *, out=None):
    """Removed in torch 1.9: raises. Use ``linalg.lstsq(A, B).solution`` (arguments reversed; no QR
    factorization returned, the residuals are a field of the result)."""
    raise RuntimeError(_REMOVED + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`: "
                       "X = torch.linalg.lstsq(A, B).solution replaces "
                       "torch.lstsq(B, A).solution[:A.size(1)] (note the reversed arguments; "
                       "torch.linalg.qr gives the QR decomposition).")


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """Removed in torch 1.9: raises. Use ``linalg.matrix_rank`` (``symmetric`` is ``hermitian``
    there)."""
    raise RuntimeError("This function was deprecated since version 1.9 and is now removed.\n"
                       "Use torch.linalg.matrix_rank instead (its `hermitian` argument replaces "
                       "`symmetric`).")


FUNCTIONS = {"solve": solve, "symeig": symeig, "eig": eig, "lstsq": lstsq, "matrix_rank": matrix_rank}
