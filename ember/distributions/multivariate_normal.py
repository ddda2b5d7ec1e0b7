"""Multivariate normal with mean ``loc`` and exactly one of ``covariance_matrix``,
``precision_matrix`` or ``scale_tril`` (lower Cholesky factor of the covariance).

Everything is computed from one lower-triangular factor L with ``L L^T = Σ``, kept without
batch broadcasting (``_unbroadcasted_scale_tril``) so shared matrices are factored once.

Example:
    >>> import ember
    >>> d = ember.distributions.MultivariateNormal(ember.zeros(2), ember.eye(2))
    >>> d.log_prob(ember.zeros(2))
    tensor(-1.8379)
"""
from __future__ import annotations

import math

from .. import linalg
from .._shape import Size
from .._tensor_methods.linalg_decomp import cholesky_inverse
from .._tensor_methods.shape_copy import broadcast_shapes
from . import constraints
from .distribution import Distribution
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]

_MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")


def _batch_mv(bmat, bvec):
    """``bmat @ bvec`` for stacks of matrices and vectors that broadcast against each other."""
    return (bmat @ bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """Squared Mahalanobis norm ``x^T (L L^T)^{-1} x = |L^{-1} x|^2``, batch dims broadcast."""
    n = bx.shape[-1]
    batch = tuple(broadcast_shapes(tuple(bL.shape[:-2]), tuple(bx.shape[:-1])))
    y = linalg.solve_triangular(bL.expand(batch + (n, n)), bx.expand(batch + (n,)).unsqueeze(-1),
                                upper=False)
    return y.squeeze(-1).pow(2).sum(-1)


def _tril_from_precision(P):
    # Σ = P^{-1}, obtained from P's own Cholesky factor, then factored again
    return linalg.cholesky(cholesky_inverse(linalg.cholesky(P)))


class MultivariateNormal(Distribution):
    """N(loc, Σ) over vectors (event shape ``(n,)``)."""

    arg_constraints = dict(loc=constraints.real_vector,
                           covariance_matrix=constraints.positive_definite,
                           precision_matrix=constraints.positive_definite,
                           scale_tril=constraints.lower_cholesky)
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = {k: v for k, v in zip(_MATRICES, (covariance_matrix, precision_matrix, scale_tril))
                 if v is not None}
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may "
                             "be specified.")
        (name, matrix), = given.items()
        if matrix.dim() < 2:
            raise ValueError(f"{name} matrix must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        n = loc.shape[-1]
        batch = tuple(broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1])))
        setattr(self, name, matrix.expand(batch + (n, n)))
        self.loc = loc.expand(batch + (n,))
        super().__init__(batch, (n,), validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _tril_from_precision(matrix)

    def _full(self, m):
        return m.expand(tuple(self._batch_shape) + tuple(self._event_shape) * 2)

    @lazy_property
    def scale_tril(self):
        return self._full(self._unbroadcasted_scale_tril)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return self._full(L @ L.mT)

    @lazy_property
    def precision_matrix(self):
        return self._full(cholesky_inverse(self._unbroadcasted_scale_tril))

    mean = mode = property(lambda self: self.loc)

    @property
    def variance(self):
        # diag(L L^T)_i = sum_j L_ij^2
        row_norms = self._unbroadcasted_scale_tril.pow(2).sum(-1)
        return row_norms.expand(tuple(self._batch_shape) + tuple(self._event_shape))

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)

    def rsample(self, sample_shape=Size()):
        eps = _standard_normal(self._extended_shape(sample_shape), self.loc.dtype, self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        n = self._event_shape[0]
        maha = _batch_mahalanobis(self._unbroadcasted_scale_tril, self._checked(value) - self.loc)
        return -0.5 * (maha + n * math.log(2 * math.pi)) - self._half_log_det()

    def entropy(self):
        n = self._event_shape[0]
        h = self._half_log_det() + 0.5 * n * (1.0 + math.log(2 * math.pi))
        return h.expand(self._batch_shape) if len(self._batch_shape) else h
