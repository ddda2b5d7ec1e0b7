"""Tensor methods whose functions live above layer 2 (layer L4): ``stft``/``istft`` (``_window``),
``geqrf``/``ormqr``/``orgqr`` (Householder QR), ``hardshrink``/``prelu`` (``nn.functional``), plus
``addbmm_``, ``dim_order`` and ``slice_inverse``. ``ember/__init__.py`` attaches ``METHODS`` to
``Tensor`` (the class itself, at layer 2, cannot import them).

Example:
    >>> import ember
    >>> ember.ones(2, 3, 4).permute(2, 0, 1).dim_order()
    (1, 2, 0)
"""
from __future__ import annotations

from ._householder import geqrf, ormqr
from ._tensor_methods.linalg import addbmm
from ._torch_forms import nonzero_static, slice_inverse
from ._window import istft, stft
from .linalg import householder_product
from .nn.functional import hardshrink, prelu
from .overrides import public

__all__ = ["METHODS"]


@public
def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
    """In-place ``addbmm``: ``self = beta * self + alpha * sum_b batch1[b] @ batch2[b]``."""
    return self.copy_(addbmm(self, batch1, batch2, beta=beta, alpha=alpha))


def dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory (strides descending, ties in dim order).

    With ``ambiguity_check=True``, raise when that order is not unique (a size-1 dim, equal strides
    or a broadcast stride 0).
    """
    strides = self.stride()
    order = tuple(sorted(range(self.dim()), key=lambda d: -strides[d]))
    if ambiguity_check is not False:
        if 0 in strides and self.numel() > 1:
            raise RuntimeError("The tensor does not have unique dim order.")
        if 1 in self.shape or len(set(strides)) != len(strides):
            raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one "
                               "of the given memory formats.")
    return order


def _orgqr(self, input2):
    """``Tensor.orgqr(tau)``: ``linalg.householder_product(self, tau)``."""
    return householder_product(self, input2)


METHODS = dict(stft=stft, istft=istft, geqrf=geqrf, ormqr=ormqr, orgqr=_orgqr,
               hardshrink=hardshrink, prelu=prelu, addbmm_=addbmm_, dim_order=dim_order,
               slice_inverse=slice_inverse, nonzero_static=nonzero_static)
