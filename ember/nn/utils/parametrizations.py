"""Ready-made parametrizations: ``weight_norm``, ``spectral_norm``, ``orthogonal`` (layer L4).

Each is a small module registered through :mod:`parametrize`. Buffer and state dict names are
torch's (``parametrizations.weight.original0/1`` for weight norm, ``parametrizations.weight.0._u``
and ``._v`` for spectral norm), so checkpoints load either way.

Example:
    >>> import ember
    >>> from ember import nn
    >>> m = weight_norm(nn.Linear(4, 3))
    >>> tuple(m.parametrizations.weight.original0.shape), tuple(m.weight.shape)
    ((3, 1), (3, 4))
"""
from __future__ import annotations

from enum import Enum, auto

from ... import _dtype as D
from ..._creation import eye, zeros_like
from ..._tensor import Tensor
from ..._tensor_methods.random import randn
from ..._tensor_methods.shape_copy import cat
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _require_tensor(module, name: str) -> Tensor:
    found = getattr(module, name, None)
    if not isinstance(found, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    return found


# --------------------------------------------------------------------------- weight norm
def _magnitude(v: Tensor, keep: int) -> Tensor:
    """Euclidean norm of ``v`` reduced over every dim except ``keep`` (kept as size 1 dims);
    ``keep == -1`` reduces over everything to a scalar."""
    sq = v * v
    if keep == -1:
        return sq.sum().sqrt()
    return sq.sum(tuple(i for i in range(v.dim()) if i != keep), keepdim=True).sqrt()


class _WeightNorm(Module):
    """``w = g * v / |v|``: stored as the pair (g, v)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _magnitude(weight_v, self.dim))

    def right_inverse(self, weight):
        return _magnitude(weight, self.dim), weight


def weight_norm(module, name: str = "weight", dim: int = 0):
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (norm over all dims but ``dim``;
    ``dim=None`` for the whole tensor)."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    renames = {f"{name}_g": f"parametrizations.{name}.original0",
               f"{name}_v": f"parametrizations.{name}.original1"}

    def _accept_legacy_keys(state_dict, prefix, local_metadata, strict, missing_keys,
                            unexpected_keys, error_msgs) -> None:
        # checkpoints of the old hook-based weight_norm store ``<name>_g`` / ``<name>_v``
        if all(prefix + old in state_dict for old in renames):
            for old, new in renames.items():
                state_dict[prefix + new] = state_dict.pop(prefix + old)

    module._register_load_state_dict_pre_hook(_accept_legacy_keys)
    return module


# --------------------------------------------------------------------------- spectral norm
class _SpectralNorm(Module):
    """``W / sigma(W)``, the top singular value estimated by power iteration on buffers u, v."""

    def __init__(self, weight, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        rank = weight.ndim
        if not -rank <= dim < rank:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{rank}, {rank - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim % rank
        self.eps = eps
        if rank <= 1:
            return  # vectors are just normalised, no power iteration needed
        self.n_power_iterations = n_power_iterations
        mat = self._as_matrix(weight)
        rows, cols = mat.shape
        for buf, size in (("_u", rows), ("_v", cols)):
            self.register_buffer(buf, F.normalize(mat.new_empty(size).normal_(0, 1), dim=0, eps=eps))
        # a good starting estimate, so the first forward is already accurate
        self._iterate(mat, 15)

    def _as_matrix(self, weight):
        """``weight`` with ``self.dim`` moved first and the rest flattened."""
        if self.dim:
            rest = [i for i in range(weight.dim()) if i != self.dim]
            weight = weight.permute(self.dim, *rest)
        return weight.flatten(1)

    def _iterate(self, mat, steps: int) -> None:
        # the buffers are updated in place so state_dict tensors keep their identity
        with no_grad():
            mat_h = mat.t().conj()
            for _ in range(steps):
                self._u.copy_(F.normalize(mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(mat_h.mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        mat = self._as_matrix(weight)
        if self.training:
            self._iterate(mat, self.n_power_iterations)
        # clones: the graph must not see the in-place updates of the next call
        left, right = self._u.clone(), self._v.clone()
        return weight / left.conj().dot(mat.mv(right))

    def right_inverse(self, value):
        return value


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim=None):
    """Reparametrize ``module.<name>`` as ``W / sigma(W)`` with ``sigma`` from power iteration
    (one step per access in training)."""
    from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
    weight = _require_tensor(module, name)
    if dim is None:
        # transposed convolutions keep output channels in dim 1
        dim = int(isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)))
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# --------------------------------------------------------------------------- orthogonal
class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _already_orthonormal(Q) -> bool:
    k = Q.size(-1)
    tol = 10.0 * Q.size(-2) * D.finfo(Q.dtype).eps
    gram_err = Q.mH.matmul(Q) - eye(k, dtype=Q.dtype)
    return bool((gram_err.abs() <= tol).all())


def _orthonormal_factor(A):
    """Q of the QR factorisation of a tall ``A``, signs fixed so that diag(R) >= 0."""
    from ...linalg import qr
    Q, R = qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _skew_to_orthogonal(X, n: int, k: int, use_exp: bool):
    """Orthogonal n x k from the lower triangle of a tall ``X`` via exp or Cayley of a skew matrix."""
    from ...linalg import matrix_exp, solve
    low = X.tril()
    if n != k:
        pad = low.new_zeros((n, n - k)).expand(*low.shape[:-2], -1, -1)
        low = cat([low, pad], -1)
    skew = low - low.mH
    if use_exp:
        Q = matrix_exp(skew)
    else:
        ident = eye(n, dtype=skew.dtype)
        Q = solve(ident - skew * 0.5, ident + skew * 0.5)
    return Q[..., :k] if n != k else Q


def _reflectors_to_orthogonal(X):
    """Product of Householder reflectors stored below the diagonal of a tall ``X``."""
    from ...linalg import householder_product
    vecs = X.tril(diagonal=-1)
    tau = 2.0 / (1.0 + (vecs * vecs).sum(-2))
    Q = householder_product(vecs, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)


class _Orthogonal(Module):
    """Maps an unconstrained matrix to an orthogonal one (times a fixed ``base`` when trivialised)."""

    def __init__(self, weight, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        wide = X.size(-2) < X.size(-1)
        if wide:
            X = X.mT  # work with tall matrices throughout
        n, k = X.size(-2), X.size(-1)
        if self.orthogonal_map == _OrthMaps.householder:
            Q = _reflectors_to_orthogonal(X)
        else:
            Q = _skew_to_orthogonal(X, n, k, self.orthogonal_map == _OrthMaps.matrix_exp)
        if hasattr(self, "base"):
            Q = self.base.matmul(Q)
        return Q.mT if wide else Q

    def right_inverse(self, Q):
        with no_grad():
            if tuple(Q.shape) != tuple(self.shape):
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            if not hasattr(self, "base"):
                raise NotImplementedError("ember's orthogonal parametrization needs "
                                          "use_trivialization=True (geqrf is not available)")
            tall = Q.mT if Q.size(-2) < Q.size(-1) else Q
            n, k = tall.size(-2), tall.size(-1)
            if n == k:
                self.base = tall.clone() if _already_orthonormal(tall) else _orthonormal_factor(tall)
            else:
                # complete the k columns to a square basis with random directions
                extra = randn(*(tuple(tall.shape[:-2]) + (n, n - k)), dtype=tall.dtype)
                self.base = _orthonormal_factor(cat([tall, extra], -1))
            # with the base holding Q, the stored parameter is the one mapped to the identity
            start = zeros_like(Q)
            start.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return start


def orthogonal(module, name: str = "weight", orthogonal_map=None, *,
               use_trivialization: bool = True):
    """Reparametrize a matrix (or batch) ``module.<name>`` to stay orthogonal
    (``"matrix_exp"``, ``"cayley"`` or ``"householder"`` map)."""
    weight = _require_tensor(module, name)
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} "
                         "dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    kind = getattr(_OrthMaps, orthogonal_map, None)
    if kind is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    parametrize.register_parametrization(
        module, name, _Orthogonal(weight, kind, use_trivialization=use_trivialization), unsafe=True)
    return module
