"""``torch.geqrf`` and ``torch.ormqr`` (layer L3): QR in LAPACK's Householder form and products
with its implicit Q.

``geqrf(A)`` gives ``(a, tau)``: R on and above the diagonal of ``a``, Householder vectors
``v_i`` below it (with an implicit 1 on the diagonal), ``H_i = I - tau_i v_i v_i^H`` and
``Q = H_1 ... H_k``. ``ormqr`` applies Q (or Q^H) to ``other`` reflector by reflector, a composite
of ember ops, so it is differentiable in all three inputs.

Example:
    >>> import ember
    >>> A = ember.tensor([[3., 1.], [4., 2.]])
    >>> a, tau = ember.geqrf(A)
    >>> round(abs(a[0, 0].item()), 4)
    5.0
"""
from __future__ import annotations

import numpy as np

from ._dispatch import dispatch
from ._primitives import linalg_householder as LH
from ._tensor_methods.reduction import _return_type, return_types
from .overrides import public

__all__ = ["geqrf", "ormqr"]

_return_type("geqrf", ("a", "tau"))


@public
def geqrf(input, *, out=None):
    """``(a, tau)`` of LAPACK's geqrf for ``input`` ``(*, m, n)``: ``a`` ``(*, m, n)``, ``tau``
    ``(*, min(m, n))``; not differentiable (as in torch)."""
    a, tau = dispatch(LH.geqrf, input)
    if out is not None:
        out[0].resize_(tuple(a.shape)).copy_(a)
        out[1].resize_(tuple(tau.shape)).copy_(tau)
        a, tau = out
    return return_types.geqrf((a, tau))


def _reflectors(input, tau):
    """``(v_i, tau_i)`` for each reflector, shaped to broadcast: ``(*, m, 1)`` and ``(*, 1, 1)``."""
    m = input.shape[-2]
    k = tau.shape[-1]
    low = input[..., :, :k].tril(-1) + input.new_tensor(np.eye(m, k), dtype=input.dtype)
    return [(low[..., :, i:i + 1], tau[..., i:i + 1].unsqueeze(-1)) for i in range(k)]


@public
def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """``Q @ other`` with the Q that ``geqrf`` encodes in ``(input, tau)`` (``Q^H`` when
    ``transpose``; ``other @ Q`` when ``left=False``).

    Args:
        input: ``(*, mn, k)`` Householder vectors; tau: ``(*, min(mn, k))``; other: ``(*, m, n)``
            with ``mn == m`` (left) or ``mn == n`` (right).
    """
    if input.dim() < 2:
        raise RuntimeError("torch.ormqr: input must have at least 2 dimensions.")
    if other.dim() < 2:
        raise RuntimeError("torch.ormqr: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"torch.ormqr: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.shape[-1] > input.shape[-1]:
        raise RuntimeError("torch.ormqr: tau.shape[-1] must be less than or equal to input.shape[-1]")
    if input.dtype is not other.dtype or input.dtype is not tau.dtype:
        raise RuntimeError(f"torch.ormqr: Expected input and other to have the same dtype, but input "
                           f"has dtype {input.dtype} and other has dtype {other.dtype}")
    refl = _reflectors(input, tau)
    # Q = H_1 ... H_k: Q C applies H_k first; Q^H C applies H_1^H first; C Q applies H_1 first
    if left == transpose:
        order = refl
    else:
        order = refl[::-1]
    C = other
    for v, t in order:
        t = t.conj() if transpose else t
        if left:
            C = C - (t * v) @ (v.mH @ C)
        else:
            C = C - (C @ v * t) @ v.mH
    if out is not None:
        return out.resize_(tuple(C.shape)).copy_(C)
    return C
