"""Packed variable-length sequences for the recurrent layers (layer L4).

A ``PackedSequence`` stores the time steps of a batch sorted by decreasing length one after another:
``data`` is ``(sum(lengths), *)`` and ``batch_sizes[t]`` says how many sequences are still running at
step ``t``.

Example:
    >>> import ember
    >>> a, b = ember.tensor([1., 2., 3.]), ember.tensor([4., 5.])
    >>> p = pack_sequence([a, b])
    >>> p.data, p.batch_sizes
    (tensor([1., 4., 2., 5., 3.]), tensor([2, 2, 1]))
    >>> pad_packed_sequence(p, batch_first=True)[0]
    tensor([[1., 2., 3.],
            [4., 5., 0.]])
"""
from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._creation import as_tensor, tensor
from ..._tensor import Tensor
from ..._tensor_methods.shape_copy import cat, stack

from ..modules._packed_sequence import PackedSequence, invert_permutation

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]

def _lengths_array(lengths) -> np.ndarray:
    if isinstance(lengths, Tensor):
        return np.asarray(lengths.tolist(), dtype=np.int64).reshape(-1)
    return np.asarray(list(lengths), dtype=np.int64).reshape(-1)


def pack_padded_sequence(input, lengths, batch_first: bool = False, enforce_sorted: bool = True):
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) of sequences whose
    true ``lengths`` are given."""
    lens = _lengths_array(lengths)
    batch_dim = 0 if batch_first else 1
    if enforce_sorted:
        if len(lens) > 1 and np.any(np.diff(lens) > 0):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                               "pack_padded_sequence and/or pack_sequence to sidestep this "
                               "requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        order = np.argsort(-lens, kind="stable")
        lens = lens[order]
        sorted_indices = tensor(order, dtype=D.int64)
        input = input.index_select(batch_dim, sorted_indices)
    if lens.size and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in "
                           "'lengths' that is <= 0")
    if batch_first:
        input = input.transpose(0, 1)  # shape: (T, B, *)
    if lens.size and lens[0] > input.shape[0]:
        raise RuntimeError(f"Expected sequence length to be at most {input.shape[0]}, but got "
                           f"{lens[0]}")
    steps = int(lens[0]) if lens.size else 0
    batch_sizes = (lens[None, :] > np.arange(steps)[:, None]).sum(1)
    # with lengths sorted in decreasing order, the running sequences at step t are the first
    # batch_sizes[t]: one boolean index gathers the packed rows in (t, b) order
    mask = as_tensor(np.arange(input.shape[0])[:, None] < lens[None, :])
    data = input[mask]
    return PackedSequence(data, tensor(batch_sizes, dtype=D.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length=None):
    """Inverse of ``pack_padded_sequence``: ``(padded (T, B, *), lengths (B,))``."""
    data, batch_sizes = sequence.data, sequence.batch_sizes
    bs = np.asarray(batch_sizes.tolist(), dtype=np.int64)
    steps, batch = len(bs), int(bs[0])
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             "sequence in input, but got total_length={} and max sequence length "
                             "being {}".format(total_length, steps))
        steps_out = int(total_length)
    else:
        steps_out = steps
    lens = (bs[None, :] > np.arange(batch)[:, None]).sum(1)  # sorted lengths
    # index of each (t, b) slot into data, or len(data) (a padding row) where the slot is empty
    offsets = np.concatenate([[0], np.cumsum(bs)[:-1]])
    t = np.arange(steps_out)[:, None]
    b = np.arange(batch)[None, :]
    valid = t < lens[None, :]
    idx = np.where(valid, offsets[np.minimum(t, steps - 1)] + b, data.shape[0])
    pad_row = data.new_full((1,) + tuple(data.shape[1:]), padding_value)
    padded = cat([data, pad_row]).index_select(0, as_tensor(idx.reshape(-1)))
    padded = padded.reshape((steps_out, batch) + tuple(data.shape[1:]))  # shape: (T, B, *)
    lengths = tensor(lens, dtype=D.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lengths


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right"):
    """Stack variable-length ``(L_i, *)`` tensors into ``(T, B, *)`` (``(B, T, *)`` with
    ``batch_first``), padding with ``padding_value``."""
    from ..functional import pad
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        extra = longest - s.shape[0]
        if extra:
            spec = (0, 0) * (s.dim() - 1) + ((0, extra) if padding_side == "right" else (extra, 0))
            s = pad(s, spec, value=padding_value)
        padded.append(s)
    return stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first: bool = False):
    """Split a padded batch back into a list of ``(L_i, *)`` tensors."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences.unbind(0), _lengths_array(lengths))]


def pack_sequence(sequences, enforce_sorted: bool = True):
    """Pack a list of ``(L_i, *)`` tensors (sorted by decreasing length unless
    ``enforce_sorted=False``)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """A ``PackedSequence`` as the list of its ``(L_i, *)`` tensors (in the original order)."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)

