"""Random primitives (layer L1): samplers that draw from the ``generator`` they are given.

Each op receives the generator object as a param and calls ``generator._numpy_generator()`` (a NumPy
``Generator`` over Philox); this file never imports ``ember.random``. A sampler has two forms: with an
input tensor (``x.uniform_()``: shape and dtype come from ``self``, run through ``dispatch_inplace``)
and without one (``rand(2, 3)``: ``size`` and ``dtype`` params). Derivatives are zero, as torch's: a
tensor that was refilled at random no longer depends on what it held.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._dtype_complex32 import encode
from .._errors import dtype_title
from .._shape import broadcast_shapes
from ._registry import SlowPath, TensorMeta, primitive

__all__ = ["uniform", "normal", "exponential", "geometric", "log_normal", "cauchy", "random",
           "random_to", "random_from_to", "bernoulli", "bernoulli_scalar", "bernoulli_p",
           "normal_tensor_tensor", "normal_tensor_float", "normal_float_tensor", "randperm",
           "multinomial"]

_F32 = np.dtype(np.float32)


def _zeros(grad):
    return grad.new_zeros(grad.shape)


def _draw_dtype(npdt):
    """NumPy draws float32/float64 only: float16/bfloat16 draw float32 and round."""
    return npdt if npdt in (np.float32, np.float64) else _F32


def _target(self, size, dtype):
    """(shape, NumPy dtype of the result) for the tensor or creation form; a ``dtype`` param wins
    over the array's (float16 tensors reach kernels as float32 arrays)."""
    shape = self.shape if self is not None else tuple(size)
    return shape, (dtype.np if dtype is not None else self.dtype)


def _finish(r, npdt):
    return r if r.dtype == npdt else r.astype(npdt)


def _not_implemented(kname, dt):
    return NotImplementedError(f'"{kname}" not implemented for \'{dtype_title(dt)}\'')


def _meta_target(self, size, dtype):
    if self is not None:
        return tuple(self.shape), self.dtype
    return tuple(size), dtype


# ------------------------------------------------------------------ continuous samplers
def _sampler(name, node_name, draw, *, kname, check=None, complex_ok=False, bad_dtype=None, fill=None):
    """Register a continuous sampler ``name(self=None, *, generator, size, dtype, **params)``.

    ``draw(rng, shape, float_np_dtype, **params)`` returns real samples; complex dtypes (where
    ``complex_ok``) draw real and imaginary parts with ``draw(..., complex_part=True)``.
    ``fill(rng, out, **params)``, when given, writes the same samples ``draw`` would return straight
    into a C-contiguous float32/float64 ``out``: ``x.uniform_()`` outside autograd (``nn.init``) then
    draws into x's memory, with no temporary as large as the tensor and no copy.
    """
    def kernel(self=None, *, generator, size=None, dtype=None, device=None, **params):
        if check is not None:
            check(**params)
        shape, npdt = _target(self, size, dtype)
        rng = generator._numpy_generator()
        if npdt == D.CHALF_NP and complex_ok:  # complex32: complex64 draws rounded per component
            r = draw(rng, tuple(shape) + (2,), np.dtype(np.float32), complex_part=True, **params)
            return encode(np.ascontiguousarray(r).view(np.complex64).reshape(shape))
        if npdt.kind == "c" and complex_ok:
            part = np.float32 if npdt == np.complex64 else np.float64
            r = draw(rng, tuple(shape) + (2,), np.dtype(part), complex_part=True, **params)
            return np.ascontiguousarray(r).view(npdt).reshape(shape)
        if npdt.kind != "f" and npdt != D.bfloat16.np:
            raise TypeError(name)  # the meta rule raises torch's message
        return _finish(draw(rng, shape, _draw_dtype(npdt), **params), npdt)
    kernel.__name__ = name
    op = primitive(name, kind="random", node_name=node_name)(kernel)

    @op.meta
    def _(self=None, *, generator=None, size=None, dtype=None, device=None, **params):
        if check is not None:
            check(**params)
        shape, dt = _meta_target(self, size, dtype)
        if not (dt.is_floating_point or (complex_ok and dt.is_complex)):
            raise bad_dtype(dt) if bad_dtype else _not_implemented(kname, dt)
        return TensorMeta(shape, dt)

    op.derivative(_zeros)
    if fill is not None:
        @op.inplace_writer(takes_params=True)
        def _(dst, *, out, generator, size=None, dtype=None, device=None, **params):
            if size is not None or dtype is not None or not out.flags.c_contiguous:
                raise SlowPath
            if check is not None:
                check(**params)
            fill(generator._numpy_generator(), out, **params)
    return op


def _check_uniform(low=0.0, high=1.0):
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low:g} > "
                           f"to={high:g}")


def _draw_uniform(rng, shape, dt, low=0.0, high=1.0, complex_part=False):
    r = rng.random(shape, dtype=dt)
    if low != 0.0 or high != 1.0:
        r *= high - low
        r += low
    return r


def _fill_uniform(rng, out, low=0.0, high=1.0):
    rng.random(dtype=out.dtype, out=out)
    if low != 0.0 or high != 1.0:
        out *= high - low
        out += low


def _check_normal(mean=0.0, std=1.0):
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def _draw_normal(rng, shape, dt, mean=0.0, std=1.0, complex_part=False):
    r = rng.standard_normal(shape, dtype=dt)
    if complex_part:  # a complex normal splits its variance between real and imaginary parts
        std = std / math.sqrt(2)
    if std != 1.0:
        r *= std
    if mean != 0.0:
        r += mean
    return r


def _fill_normal(rng, out, mean=0.0, std=1.0):
    rng.standard_normal(dtype=out.dtype, out=out)
    if std != 1.0:
        out *= std
    if mean != 0.0:
        out += mean


def _continuous_only(name):
    def err(dt):
        return RuntimeError(f"{name} distribution is a continuous probability distribution. dtype must "
                            f"be a floating point but you specified {dtype_title(dt)}")
    return err


def _check_exponential(lambd=1.0):
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")


def _draw_exponential(rng, shape, dt, lambd=1.0, complex_part=False):
    r = rng.standard_exponential(shape, dtype=dt)
    if lambd != 1.0:
        r /= lambd
    return r


def _check_log_normal(mean=1.0, std=2.0):
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")


def _draw_log_normal(rng, shape, dt, mean=1.0, std=2.0, complex_part=False):
    r = rng.standard_normal(shape, dtype=dt)
    r *= std
    r += mean
    return np.exp(r, out=r)


def _check_cauchy(median=0.0, sigma=1.0):
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")


def _draw_cauchy(rng, shape, dt, median=0.0, sigma=1.0, complex_part=False):
    r = rng.standard_cauchy(shape).astype(dt, copy=False)
    return r * sigma + median


uniform = _sampler("uniform", "UniformBackward0", _draw_uniform, kname="check_uniform_bounds",
                   check=_check_uniform, complex_ok=True, fill=_fill_uniform)
normal = _sampler("normal", "NormalBackward0", _draw_normal, kname="normal_kernel_cpu",
                  check=_check_normal, complex_ok=True, fill=_fill_normal)
exponential = _sampler("exponential", "ExponentialBackward0", _draw_exponential,
                       kname="exponential_cpu", check=_check_exponential,
                       bad_dtype=_continuous_only("Exponential"))
log_normal = _sampler("log_normal", "LogNormalBackward0", _draw_log_normal, kname="log_normal_cpu",
                      check=_check_log_normal)
cauchy = _sampler("cauchy", "CauchyBackward0", _draw_cauchy, kname="cauchy_cpu",
                  check=_check_cauchy)


# ------------------------------------------------------------------ integer-valued samplers
def _int_range(npdt):
    """Default ``random_()`` range [0, hi]: every exactly representable integer of the dtype."""
    if npdt.kind == "b":
        return 1
    if npdt.kind in "iu":
        return int(np.iinfo(npdt).max)
    mantissa = {np.dtype(np.float16): 11, np.dtype(np.float32): 24}.get(npdt, 53)
    if npdt == D.bfloat16.np:
        mantissa = 8
    return 1 << mantissa


_TYPE_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short",
               "int32": "int", "int64": "long", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
               "float32": "float", "float64": "double"}


def _check_range(low, high, dt):
    if high is None:
        return
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    if dt.category == 1 or dt is D.bool:
        info_min = 0 if dt is D.bool else int(np.iinfo(dt.np).min)
        info_max = 1 if dt is D.bool else int(np.iinfo(dt.np).max)
        if not info_min <= low <= info_max:
            raise RuntimeError(f"from is out of bounds for {_TYPE_NAMES[dt.name]}")
        if not info_min <= high - 1 <= info_max:
            raise RuntimeError(f"to - 1 is out of bounds for {_TYPE_NAMES[dt.name]}")


def _random_kernel(self=None, *, low=0, high=None, generator, size=None, dtype=None, device=None):
    shape, npdt = _target(self, size, dtype)
    if dtype is not None:
        _check_range(low, high, dtype)
    if high is None:
        high = _int_range(npdt) + 1
    if npdt.kind == "c":
        raise TypeError("random_")
    r = generator._numpy_generator().integers(low, high, size=shape, dtype=np.int64)
    return r.astype(npdt)


def _random_meta(self=None, *, low=0, high=None, generator=None, size=None, dtype=None, device=None):
    shape, dt = _meta_target(self, size, dtype)
    if dt.is_complex:
        raise _not_implemented("random_from_to", dt)
    _check_range(low, high, dt)
    return TensorMeta(shape, dt)


def _random_op(name, node_name):
    def kernel(self=None, *, low=0, high=None, generator, size=None, dtype=None, device=None):
        return _random_kernel(self, low=low, high=high, generator=generator, size=size,
                              dtype=dtype, device=device)
    kernel.__name__ = name
    op = primitive(name, kind="random", node_name=node_name)(kernel)
    op.meta(_random_meta)
    op.derivative(_zeros)
    return op


random_from_to = _random_op("random_from_to", "RandomBackward0")  # x.random_(from, to), randint
random_to = _random_op("random_to", "RandomBackward1")            # x.random_(to)
random = _random_op("random", "RandomBackward2")                  # x.random_()


def _check_geometric(p):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")


@primitive("geometric", kind="random")
def geometric(self, *, p, generator):
    _check_geometric(p)
    return generator._numpy_generator().geometric(p, size=self.shape).astype(self.dtype)


@geometric.meta
def _(self, *, p, generator=None):
    _check_geometric(p)
    return TensorMeta(self.shape, self.dtype)


geometric.derivative(_zeros)


# ------------------------------------------------------------------ bernoulli
_BAD_P = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
          "improved?  If so, please report an enhancement request to PyTorch.)")


@primitive("bernoulli", kind="random")
def bernoulli(self, *, generator):
    """``bernoulli(p)``: 1 with probability ``p`` (elementwise), in ``p``'s dtype."""
    if self.dtype.kind not in "f":
        raise TypeError("bernoulli")
    p = np.asarray(self)
    if p.size and not ((p >= 0) & (p <= 1)).all():
        raise RuntimeError(_BAD_P)
    return (generator._numpy_generator().random(p.shape) < p).astype(self.dtype)


@bernoulli.meta
def _(self, *, generator=None):
    if not self.dtype.is_floating_point:
        raise _not_implemented("bernoulli_tensor_cpu_p_", self.dtype)
    return TensorMeta(self.shape, self.dtype)


bernoulli.derivative(_zeros)


def _check_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")


def bernoulli_mask(rng, shape, p):
    """A bool array of ``shape``, each element True with probability ``p`` (``0 <= p <= 1``) drawn
    from NumPy Generator ``rng``, reading one random byte per element (``random() < p`` reads eight
    in float64; dropout masks are most of a transformer step's random draws): a byte below
    ``floor(256 p)`` is True, one above False, and the ~1/256 that tie draw 64 more bits compared
    with the rest of ``256 p``. Exact up to a resolution of ``2**-72`` in ``p``."""
    if p >= 1:
        return np.ones(shape, np.bool_)
    if p <= 0:
        return np.zeros(shape, np.bool_)
    k = p * 256.0  # exact: a power-of-two scaling
    hi = int(k)
    n = math.prod(shape)
    u = _whole_blocks(rng, n)
    mask = u < hi
    rest = k - hi  # in [0, 1), exact
    if rest:
        tie = np.flatnonzero(u == hi)
        if tie.size:
            bits = _whole_blocks(rng, 8 * tie.size).view(np.uint64)
            mask[tie] = bits < int(rest * 18446744073709551616.0)  # rest * 2**64 < 2**64
    return mask.reshape(shape)


def _whole_blocks(rng, n):
    """``n`` random bytes (uint8), drawn as whole 32-byte Philox blocks: a draw that starts on a
    block boundary ends on one, so reading the generator's (seed, offset) state afterwards (which
    drops a partly read block) does not change the stream (checkpoint replays dropout masks)."""
    return np.frombuffer(rng.bytes(-(-n // 32) * 32), np.uint8)[:n]


@primitive("bernoulli_scalar", kind="random", node_name="BernoulliBackward2")
def bernoulli_scalar(self, *, p=0.5, generator):
    """``x.bernoulli_(p)`` / ``bernoulli(x, p)``: ``x``'s shape and dtype, 1 with probability ``p``."""
    _check_p(p)
    if self.dtype.kind == "c":
        raise TypeError("bernoulli")
    return bernoulli_mask(generator._numpy_generator(), self.shape, p).astype(self.dtype)


@bernoulli_scalar.meta
def _(self, *, p=0.5, generator=None):
    _check_p(p)
    if self.dtype.is_complex:
        raise _not_implemented("bernoulli_scalar_cpu_", self.dtype)
    return TensorMeta(self.shape, self.dtype)


bernoulli_scalar.derivative(_zeros)


@primitive("bernoulli_p", kind="random", node_name="BernoulliBackward1")
def bernoulli_p(self, p, *, generator):
    """``x.bernoulli_(p_tensor)``: ``p`` broadcast to ``x``'s shape."""
    p = np.broadcast_to(p, self.shape)
    if p.size and not ((p >= 0) & (p <= 1)).all():
        raise RuntimeError(_BAD_P)
    return (generator._numpy_generator().random(self.shape) < p).astype(self.dtype)


@bernoulli_p.meta
def _(self, p, *, generator=None):
    broadcast_shapes(tuple(p.shape), tuple(self.shape))
    return TensorMeta(self.shape, self.dtype)


@bernoulli_p.derivative
def _(grad):
    return _zeros(grad), None


# ------------------------------------------------------------------ normal with tensor mean/std
def _normal_tensor_op(name, node_name):
    def kernel(mean, std, *, generator):
        ref = mean if type(mean) is np.ndarray else std
        if ref.dtype.kind not in "f":
            raise TypeError("normal")
        if type(std) is not np.ndarray:
            if std < 0:
                raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        elif std.size and not (std >= 0).all():
            raise RuntimeError("normal expects all elements of std >= 0.0")
        shape = np.broadcast_shapes(np.shape(mean), np.shape(std))
        r = generator._numpy_generator().standard_normal(shape, dtype=_draw_dtype(ref.dtype))
        r *= std
        r += mean
        return _finish(r, ref.dtype)
    kernel.__name__ = name
    op = primitive(name, kind="random", node_name=node_name)(kernel)

    @op.meta
    def _(mean, std, *, generator=None):
        ref = mean if hasattr(mean, "dtype") else std
        if not ref.dtype.is_floating_point:
            raise _not_implemented("normal_kernel_cpu", ref.dtype)
        if not hasattr(std, "dtype") and std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        return TensorMeta(broadcast_shapes(tuple(getattr(mean, "shape", ())),
                                           tuple(getattr(std, "shape", ()))), ref.dtype)

    @op.derivative
    def _(grad):
        return _zeros(grad), _zeros(grad)
    return op


normal_tensor_float = _normal_tensor_op("normal_tensor_float", "NormalBackward1")
normal_float_tensor = _normal_tensor_op("normal_float_tensor", "NormalBackward2")
normal_tensor_tensor = _normal_tensor_op("normal_tensor_tensor", "NormalBackward3")


# ------------------------------------------------------------------ permutations and categorical
@primitive("randperm", kind="random")
def randperm(*, n, generator, dtype, device=None):
    if dtype is D.bool or dtype.is_complex:
        raise TypeError("randperm")
    return generator._numpy_generator().permutation(n).astype(dtype.np)


@randperm.meta
def _(*, n, generator=None, dtype, device=None):
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if dtype is D.bool or dtype.is_complex:
        raise _not_implemented("randperm", dtype)
    return TensorMeta((n,), dtype)


def _check_multinomial(shape, dtype, num_samples, replacement):
    if not dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{dtype_title(dtype)}")
    if len(shape) not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")


@primitive("multinomial", kind="random")
def multinomial(self, *, num_samples, replacement=False, generator):
    """Draw ``num_samples`` category indices per row of (unnormalised) probabilities ``self``."""
    if self.dtype.kind != "f" or self.ndim not in (1, 2) or num_samples <= 0 or (
            not replacement and num_samples > self.shape[-1]):
        raise TypeError("multinomial")
    p = np.atleast_2d(self).astype(np.float64)
    if not (np.isfinite(p) & (p >= 0)).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (p.sum(-1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = generator._numpy_generator()
    rows, k = p.shape
    if replacement:
        cdf = np.cumsum(p, axis=-1)
        cdf /= cdf[:, -1:]
        u = rng.random((rows, num_samples))
        # one searchsorted over all rows: shift row i's cdf and draws into [i, i + 1)
        shift = np.arange(rows)[:, None]
        idx = np.searchsorted((cdf + shift).ravel(), (u + shift).ravel(), side="right")
        out = np.minimum(idx.reshape(rows, num_samples) - shift * k, k - 1)
    else:
        # exponential race: the first num_samples of p / Exp(1) are a draw without replacement
        keys = p / rng.standard_exponential((rows, k))
        out = np.argsort(-keys, axis=-1, kind="stable")[:, :num_samples]
    out = out.astype(np.int64)
    return out[0] if self.ndim == 1 else out


@multinomial.meta
def _(self, *, num_samples, replacement=False, generator=None):
    _check_multinomial(tuple(self.shape), self.dtype, num_samples, replacement)
    return TensorMeta(tuple(self.shape[:-1]) + (num_samples,), D.int64)
