"""Window functions (``hann_window``, ``hamming_window``, ``blackman_window``, ``bartlett_window``,
``kaiser_window``) and the short-time Fourier transform ``stft``/``istft`` (layer L3, composites).

Example:
    >>> import ember
    >>> ember.hann_window(4).tolist()
    [0.0, 0.5, 1.0, 0.5]
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from . import _dtype as D
from ._creation import ones, tensor
from ._tensor_methods._args import as_dtype
from ._tensor_methods.pointwise_math import view_as_real
from ._tensor_methods.shape_copy import cat
from . import fft as _fft

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window",
           "stft", "istft", "FUNCTIONS"]


def _window(name, N, periodic, dtype, device, requires_grad, fn):
    dt = as_dtype(dtype) if dtype is not None else D.get_default_dtype()
    if not dt.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{dt}, device=cpu)")
    if N < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={N}")
    if N == 0:
        w = np.zeros(0)
    elif N == 1:
        w = np.ones(1)
    else:
        M = N + 1 if periodic else N
        w = fn(np.arange(M, dtype=np.float64), M)[:N]
    return tensor(w, dtype=dt, device=device, requires_grad=requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                requires_grad=False):
    """Hann window ``0.5 - 0.5 cos(2 pi n / (N - 1))`` (``periodic``: computed for N + 1, last dropped)."""
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, M: 0.5 - 0.5 * np.cos(2 * math.pi * n / (M - 1)))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None,
                   device=None, requires_grad=False):
    """Hamming window ``alpha - beta cos(2 pi n / (N - 1))``."""
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, M: alpha - beta * np.cos(2 * math.pi * n / (M - 1)))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """Blackman window ``0.42 - 0.5 cos(2 pi n/(N-1)) + 0.08 cos(4 pi n/(N-1))``."""
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, M: 0.42 - 0.5 * np.cos(2 * math.pi * n / (M - 1))
                   + 0.08 * np.cos(4 * math.pi * n / (M - 1)))


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """Triangular window ``1 - |2n / (N - 1) - 1|``."""
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, M: 1 - np.abs(2 * n / (M - 1) - 1))


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  requires_grad=False):
    """Kaiser window ``I0(beta sqrt(1 - (2n/(N-1) - 1)^2)) / I0(beta)``."""
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, M: np.i0(beta * np.sqrt(np.clip(1 - (2 * n / (M - 1) - 1) ** 2, 0, None)))
                   / np.i0(beta))


# ------------------------------------------------------------------------------ stft / istft
def _pad_window(window, n_fft, win_length, ref):
    if window is None:
        window = ones(win_length, dtype=ref.dtype.to_real() if ref.dtype.is_complex else ref.dtype)
    if window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length="
                           f"{win_length}, but got window with size {list(window.shape)}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = cat([window.new_zeros(left), window,
                      window.new_zeros(n_fft - win_length - left)], 0)
    return window


def _pad_signal(x, p, mode):
    """Pad the last dim by ``p`` on both sides ('reflect', 'constant', 'replicate', 'circular')."""
    L = x.shape[-1]
    if mode == "constant":
        z = x.new_zeros(tuple(x.shape[:-1]) + (p,))
        return cat([z, x, z], -1)
    idx = np.arange(-p, L + p)
    if mode == "reflect":
        if p >= L:
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({p}, {p}) at dimension {x.dim() - 1} of "
                               f"input {list(x.shape)}")
        period = 2 * (L - 1)
        idx = np.abs(idx) % period
        idx = np.where(idx >= L, period - idx, idx)
    elif mode == "replicate":
        idx = np.clip(idx, 0, L - 1)
    elif mode == "circular":
        idx = idx % L
    else:
        raise RuntimeError(f"stft: unsupported pad_mode '{mode}'")
    return x.index_select(-1, tensor(idx, dtype=D.int64))


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None):
    """Short-time Fourier transform of ``(L,)`` or ``(B, L)`` signals: ``(B?, n_fft//2 + 1, frames)``.

    >>> import ember
    >>> ember.stft(ember.zeros(64), 16, window=ember.hann_window(16), return_complex=True).shape
    torch.Size([9, 17])
    """
    if return_complex is None:
        if not (input.is_complex() or (window is not None and window.is_complex())):
            raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and "
                               "will further require that return_complex=True in a future PyTorch "
                               "release.")
        return_complex = True
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.dim()}D tensor")
    hop = n_fft // 4 if hop_length is None else hop_length
    wl = n_fft if win_length is None else win_length
    if n_fft <= 0:
        raise RuntimeError(f"stft: expected 0 < n_fft, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    if wl <= 0 or wl > n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={wl}")
    batched = input.dim() == 2
    x = input if batched else input.unsqueeze(0)
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(D.get_default_dtype())
    if center:
        x = _pad_signal(x, n_fft // 2, pad_mode)
    L = x.shape[-1]
    if n_fft > L:
        raise RuntimeError(f"stft: expected 0 < n_fft < {L}, but got n_fft={n_fft}")
    w = _pad_window(window, n_fft, wl, x)
    frames = x.unfold(-1, n_fft, hop) * w   # shape: (B, n_frames, n_fft)
    complex_in = x.is_complex() or w.is_complex()
    if onesided is None:
        onesided = not complex_in
    if onesided and complex_in:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    spec = _fft.rfft(frames, dim=-1, norm=norm) if onesided else _fft.fft(frames, dim=-1, norm=norm)
    spec = spec.transpose(-1, -2)   # shape: (B, freq, n_frames)
    if not batched:
        spec = spec.squeeze(0)
    if not return_complex:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch release, stft "
                      "will return complex tensors for all inputs, and return_complex=False will raise "
                      "an error.")
        return view_as_real(spec.contiguous())
    return spec


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """Inverse of ``stft`` by windowed overlap-add: ``(B?, freq, frames)`` -> ``(B?, L)``."""
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor.")
    hop = n_fft // 4 if hop_length is None else hop_length
    wl = n_fft if win_length is None else win_length
    batched = input.dim() == 3
    spec = input if batched else input.unsqueeze(0)
    n_freq, n_frames = spec.shape[-2], spec.shape[-1]
    if onesided is None:
        onesided = n_freq != n_fft
    if onesided and n_fft // 2 + 1 != n_freq:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the input "
                           f"tensor to match n_fft / 2 + 1 when onesided=True, but got {n_freq}")
    w = _pad_window(window, n_fft, wl, spec.real if spec.is_complex() else spec)
    frames = spec.transpose(-1, -2)   # shape: (B, n_frames, freq)
    norm = "ortho" if normalized else "backward"
    if onesided:
        if return_complex:
            raise RuntimeError("cannot have onesided output if window or input is complex")
        y = _fft.irfft(frames, n=n_fft, dim=-1, norm=norm)
    elif not return_complex:
        # a real output from a two-sided spectrum: torch inverts only the first n_fft // 2 + 1 bins
        # as a Hermitian half (a C2R transform), not the real part of the full inverse
        y = _fft.irfft(frames.narrow(-1, 0, n_fft // 2 + 1), n=n_fft, dim=-1, norm=norm)
    else:
        y = _fft.ifft(frames, n=n_fft, dim=-1, norm=norm)
    y = y * w
    out_len = n_fft + hop * (n_frames - 1)
    idx = (np.arange(n_frames)[:, None] * hop + np.arange(n_fft)[None, :]).reshape(-1)
    index = tensor(idx, dtype=D.int64)
    B = y.shape[0]
    sig = y.new_zeros((B, out_len)).index_add(-1, index, y.reshape(B, -1))
    env = w * w  # torch's envelope squares a complex window too (not |w|^2): checked
    env = env.new_zeros(out_len).index_add(0, index, env.repeat(n_frames))
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (out_len - n_fft // 2 if center else out_len)
    end_c = min(end, out_len)
    sig = sig[..., start:end_c]
    env = env[start:end_c]
    if env.numel() and float(env.abs().min()) < 1e-11:
        raise RuntimeError("istft: window overlap add min: 1")
    sig = sig / env
    if end > out_len:
        sig = cat([sig, sig.new_zeros((B, end - out_len))], -1)
    return sig if batched else sig.squeeze(0)


FUNCTIONS = dict(hann_window=hann_window, hamming_window=hamming_window, blackman_window=blackman_window,
                 bartlett_window=bartlett_window, kaiser_window=kaiser_window, stft=stft, istft=istft)
