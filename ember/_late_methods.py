"""Tensor methods whose functions live above layer 2 (layer L4): ``stft``/``istft`` (``_window``),
``geqrf``/``ormqr``/``orgqr`` (Householder QR), ``hardshrink``/``prelu`` (``nn.functional``), plus
``addbmm_``, ``dim_order`` and ``slice_inverse``, and methods torch deprecates or removed (``resize``,
``resize_as``, ``storage``, ``record_stream``, ``reinforce``, ``solve``, ``symeig``, ``eig``, ``lstsq``).
``ember/__init__.py`` attaches ``METHODS`` to ``Tensor`` (the class itself, at layer 2, cannot
import them).

Example:
    >>> import ember
    >>> ember.ones(2, 3, 4).permute(2, 0, 1).dim_order()
    (1, 2, 0)
"""
from __future__ import annotations

import warnings

from ._householder import geqrf, ormqr
from ._linalg_utils import eig, lstsq, solve, symeig
from ._tensor_pickle import TypedStorage
from ._tensor_methods.linalg import addbmm
from ._torch_forms import nonzero_static, slice_inverse
from ._window import istft, stft
from .functorch.dim import index as _first_class_index
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


def resize(self, *sizes):
    """Deprecated non-in-place resize: ``self`` seen with ``sizes`` (same number of elements): a
    view when contiguous, else a contiguous copy."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    size = sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
    n = 1
    for s in size:
        n *= s
    if n != self.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, size))} ({n} elements in total), "
                           f"but the given tensor has a size of {'x'.join(map(str, self.shape))} "
                           f"({self.numel()} elements). autograd's resize can only change the shape "
                           f"of a given tensor, while preserving the number of elements. ")
    return self.contiguous().view(tuple(size))


def resize_as(self, tensor):
    """Deprecated non-in-place ``resize_as``: ``self.resize(*tensor.shape)``."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return resize(self, *tensor.shape)


def storage(self) -> TypedStorage:
    """The tensor's storage seen with its dtype (torch's deprecated ``TypedStorage``)."""
    warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage "
                  "will be the only storage class. Use tensor.untyped_storage() instead of "
                  "tensor.storage()", UserWarning, stacklevel=2)
    return TypedStorage(self.untyped_storage(), self.dtype)


def record_stream(self, stream):
    """Marks memory as used by a CUDA stream: no CPU kernel exists (torch raises the same class)."""
    raise NotImplementedError(f"Could not run 'aten::record_stream' with arguments from the "
                              f"'{self.device.type.upper()}' backend.")


def reinforce(self, reward):
    """Removed from torch (stochastic functions): raises, pointing to ``torch.distributions``."""
    raise RuntimeError("reinforce() was removed. Use torch.distributions instead: sample from a "
                       "distribution (e.g. Categorical) and minimise -log_prob(action) * reward.")


def _orgqr(self, input2):
    """``Tensor.orgqr(tau)``: ``linalg.householder_product(self, tau)``."""
    return householder_product(self, input2)


METHODS = dict(stft=stft, istft=istft, geqrf=geqrf, ormqr=ormqr, orgqr=_orgqr,
               hardshrink=hardshrink, prelu=prelu, addbmm_=addbmm_, dim_order=dim_order,
               slice_inverse=slice_inverse, nonzero_static=nonzero_static, solve=solve,
               symeig=symeig, eig=eig, lstsq=lstsq, resize=resize, resize_as=resize_as, storage=storage,
               record_stream=record_stream, reinforce=reinforce)
METHODS["index"] = _first_class_index  # bind positions to first-class dims (functorch.dim)
