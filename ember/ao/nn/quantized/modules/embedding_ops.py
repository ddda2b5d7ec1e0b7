"""Quantized Embedding / EmbeddingBag: quint8 rows with a float scale and zero point per row.

Weights use ``per_channel_affine_float_qparams`` (axis 0), as torch's; lookups dequantize only the
rows they read as ``q * scale + bias`` (EmbeddingBag sums them per bag, as torch's kernel does). The state_dict holds
``_packed_params.dtype`` and ``_packed_params._packed_weight`` like torch's.

Shape:
    Embedding: indices (*) -> (*, embedding_dim) float32; EmbeddingBag: (B, embedding_dim)

Example:
    >>> import ember
    >>> from ember import nn
    >>> from ember.ao.quantization import float_qparams_weight_only_qconfig
    >>> e = nn.Embedding(10, 4); e.qconfig = float_qparams_weight_only_qconfig
    >>> Embedding.from_float(e)(ember.tensor([1, 2])).shape
    torch.Size([2, 4])
"""
from __future__ import annotations

import warnings

import numpy as np

from ..... import _dtype as D
from ....._quantized.tensor import quantize_per_channel
from ....._creation import zeros
from ....._dispatch import wrap
from .....nn import functional as F
from .....nn.modules.module import Module
from .utils import quantize_weight

__all__ = ["EmbeddingPackedParams", "Embedding", "EmbeddingBag"]


class EmbeddingPackedParams(Module):
    """The quint8 weight of a quantized embedding (``_packed_weight`` in the state_dict)."""

    _version = 1

    def __init__(self, num_embeddings, embedding_dim, dtype=D.quint8):
        super().__init__()
        self.dtype = dtype
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            w = quantize_per_channel(zeros(num_embeddings, embedding_dim),
                                     wrap(np.ones(num_embeddings, np.float32)),
                                     wrap(np.zeros(num_embeddings, np.float32)), 0, dtype)
        self.set_weight(w)

    def set_weight(self, weight) -> None:
        self._weight = weight

    def forward(self, x):
        return x

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "dtype"] = self.dtype
        destination[prefix + "_packed_weight"] = self._weight

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        self.dtype = state_dict.pop(prefix + "dtype", self.dtype)
        if prefix + "_packed_weight" in state_dict:
            self.set_weight(state_dict.pop(prefix + "_packed_weight"))
        elif strict:
            missing_keys.append(prefix + "_packed_weight")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)


def _rows(w, idx: np.ndarray) -> np.ndarray:
    """Dequantized rows ``idx`` of a per-row float-qparams quantized weight."""
    scheme, scale, zp, axis = w._q
    s = np.asarray(scale, np.float32)[idx][..., None]
    bias = -np.asarray(zp, np.float32)[idx][..., None] * s  # rows stored as (scale, bias), as torch
    return w._data[idx].astype(np.float32) * s + bias


class Embedding(Module):
    """Quantized Embedding (quint8 weight with per-row float qparams)."""

    _version = 1

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, dtype=D.quint8):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.dtype = dtype
        self._packed_params = EmbeddingPackedParams(num_embeddings, embedding_dim, dtype)
        if _weight is not None:
            self._packed_params.set_weight(_weight)

    def _get_name(self):
        return "QuantizedEmbedding"

    def __repr__(self):
        return f"{self._get_name()}({self.extra_repr()})"

    def extra_repr(self):
        w = self.weight()
        return (f"num_embeddings={self.num_embeddings}, embedding_dim={self.embedding_dim}, "
                f"dtype={self._packed_params.dtype}, qscheme={w.qscheme()}")

    def weight(self):
        return self._packed_params._weight

    def set_weight(self, w) -> None:
        self._packed_params.set_weight(w)

    def forward(self, indices):
        return wrap(_rows(self.weight(), indices._data.astype(np.int64)))

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        qconfig = getattr(mod, "qconfig", None)
        if qconfig is None:
            raise AssertionError("Embedding input float module must have qconfig defined")
        observer = qconfig.weight()
        if observer.qscheme.name != "per_channel_affine_float_qparams":
            raise AssertionError("Embedding quantization is only supported with float_qparams_weight_"
                                 "only_qconfig.")
        observer(mod.weight)
        q = cls(mod.num_embeddings, mod.embedding_dim)
        q.set_weight(quantize_weight(mod.weight.float(), observer))
        return q


class EmbeddingBag(Embedding):
    """Quantized EmbeddingBag: sums of dequantized rows per bag (``mode`` is kept but, as in torch
    2.13's quantized kernel, every bag is summed)."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="sum", sparse=False, _weight=None,
                 include_last_offset=False, dtype=D.quint8):
        super().__init__(num_embeddings, embedding_dim, _weight=_weight, dtype=dtype)
        self.mode, self.include_last_offset = mode, include_last_offset

    def _get_name(self):
        return "QuantizedEmbeddingBag"

    def forward(self, indices, offsets=None, per_sample_weights=None, compressed_indices_mapping=None):
        w = self.weight()
        table = wrap(_rows(w, np.arange(w.shape[0])))
        # torch 2.13's quantized EmbeddingBag sums every bag whatever its ``mode`` (observed); ember
        # reproduces that so converted models agree
        return F.embedding_bag(indices, table, offsets, mode="sum",
                               per_sample_weights=per_sample_weights,
                               include_last_offset=self.include_last_offset)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        q = super().from_float(mod)
        q.mode, q.include_last_offset = mod.mode, mod.include_last_offset
        return q
