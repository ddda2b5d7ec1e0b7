"""Random functions and methods (layer L2): ``rand``, ``randn``, ``randint``, ``randperm``, ``normal``,
``bernoulli``, ``multinomial``, the ``*_like`` forms and the in-place samplers (``uniform_``...).

Every call resolves ``generator=None`` to the default generator and hands the generator object to the
primitive, which draws from it.

Example:
    >>> import ember
    >>> g = ember.Generator().manual_seed(1)
    >>> ember.randint(0, 10, (3,), generator=g).dtype
    torch.int64
"""
from __future__ import annotations

from .. import _dtype as D
from .._device import get_default_device
from .._dispatch import dispatch
from .._dispatch_inplace import dispatch_inplace, dispatch_out
from .._primitives import random as R
from ..overrides import PLAIN_TYPES, try_torch_function
from ..random import default_generator
from ._args import TensorBase, as_device, as_dtype, size_args

__all__ = ["RandomMixin", "FUNCTIONS"]

_UNSET = object()


def _gen(generator):
    return default_generator if generator is None else generator


def _dev(device):
    return as_device(device) if device is not None else get_default_device()


def _public(fn, name=None, method=False):
    fn.__name__ = name or fn.__name__
    fn.__qualname__ = f"Tensor.{fn.__name__}" if method else fn.__name__
    fn.__module__ = "ember._tensor" if method else "ember"
    return fn


def _finish(t, requires_grad):
    if requires_grad:
        t.requires_grad_(True)
    return t


def _create(op, size, out, dtype, device, requires_grad, **params):
    params.update(size=size, dtype=dtype, device=_dev(device))
    if out is not None:
        return dispatch_out(op, out, **params)
    return _finish(dispatch(op, **params), requires_grad)


def _sizes(size, kw_size, name):
    if kw_size is not None:
        return size_args((kw_size,), name)
    if not size:
        raise TypeError(f"{name}() received an invalid combination of arguments - got (), but "
                        f"expected one of: (tuple of ints size, ...)")
    return size_args(size, name)


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False, **kw):
    """Uniform samples in [0, 1) of ``size``; ``ember.rand(2, 3).shape == (2, 3)``."""
    return _create(R.uniform, _sizes(size, kw.pop("size", None), "rand"), out,
                   as_dtype(dtype) or D.get_default_dtype(), device, requires_grad,
                   generator=_gen(generator))


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, **kw):
    """Standard normal samples of ``size``."""
    return _create(R.normal, _sizes(size, kw.pop("size", None), "randn"), out,
                   as_dtype(dtype) or D.get_default_dtype(), device, requires_grad,
                   generator=_gen(generator))


def _low_high(args, kw, name):
    low = kw.pop("low", _UNSET)
    high = kw.pop("high", _UNSET)
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        if high is _UNSET:
            high = args[0]
        else:
            low = args[0]
    if high is _UNSET:
        raise TypeError(f"{name}() missing required argument 'high'")
    low = 0 if low is _UNSET else low
    return int(low), int(high)


def randint(*args, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False, pin_memory=False, **kw):
    """Integers in [low, high) of ``size``: ``randint(high, size)`` or ``randint(low, high, size)``."""
    if size is None:
        if not args:
            raise TypeError("randint() missing required argument 'size'")
        *args, size = args
    if isinstance(size, int) or not hasattr(size, "__len__"):
        raise TypeError(f"randint(): argument 'size' (position {len(args) + 1}) must be tuple of ints, "
                        f"not {type(size).__name__}")
    low, high = _low_high(args, kw, "randint")
    if dtype is D.complex32:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    return _create(R.random_from_to, size_args((size,), "randint"), out,
                   as_dtype(dtype) or D.int64, device, requires_grad, low=low, high=high,
                   generator=_gen(generator))


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    """A random permutation of ``0 .. n-1`` (int64 by default)."""
    params = dict(n=int(n), generator=_gen(generator), dtype=as_dtype(dtype) or D.int64,
                  device=_dev(device))
    if params["n"] < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if out is not None:
        return dispatch_out(R.randperm, out, **params)
    return _finish(dispatch(R.randperm, **params), requires_grad)


def _like(input, generator, dtype, device, requires_grad, op, **params):
    dt = as_dtype(dtype) or input.dtype
    return _create(op, tuple(input.shape), None, dt, device or input.device, requires_grad,
                   generator=_gen(generator), **params)


def _float_like(op, name: str, doc: str):
    def fn(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
           memory_format=None):
        if type(input) not in PLAIN_TYPES:
            r = try_torch_function(fn, (input,), input, generator=generator, dtype=dtype, device=device,
                                   requires_grad=requires_grad)
            if r is not NotImplemented:
                return r
        return _like(input, generator, dtype, device, requires_grad, op)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


rand_like = _float_like(R.uniform, "rand_like",
                        "Uniform [0, 1) samples with ``input``'s shape, dtype and device.")
randn_like = _float_like(R.normal, "randn_like",
                         "Standard normal samples with ``input``'s shape, dtype and device.")


def randint_like(input, *args, generator=None, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=None, **kw):
    """Integers in [low, high) with ``input``'s shape: ``randint_like(x, high)`` or ``(x, low, high)``."""
    low, high = _low_high(args, kw, "randint_like")
    if type(input) not in PLAIN_TYPES:
        r = try_torch_function(randint_like, (input,), input, *args, generator=generator,
                               dtype=dtype, device=device, requires_grad=requires_grad)
        if r is not NotImplemented:
            return r
    return _like(input, generator, dtype, device, requires_grad, R.random_from_to, low=low, high=high)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False):
    """Normal samples: tensor ``mean``/``std`` (broadcast) or float ones with a ``size``."""
    if not (type(mean) in PLAIN_TYPES and type(std) in PLAIN_TYPES):
        r = try_torch_function(normal, (mean, std), mean, std, size, generator=generator, out=out,
                               dtype=dtype, device=device, requires_grad=requires_grad)
        if r is not NotImplemented:
            return r
    mt, st = isinstance(mean, TensorBase), isinstance(std, TensorBase)
    g = _gen(generator)
    if not (mt or st):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got (float, "
                            "float), but expected one of: (float mean, float std, tuple of ints size)")
        return _create(R.normal, size_args((size,), "normal"), out,
                       as_dtype(dtype) or D.get_default_dtype(), device, requires_grad,
                       mean=float(mean), std=float(std), generator=g)
    op = R.normal_tensor_tensor if mt and st else R.normal_tensor_float if mt else \
        R.normal_float_tensor
    if out is not None:
        return dispatch_out(op, out, mean, std, generator=g)
    return dispatch(op, mean, std, generator=g)


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples: 1 with probability ``input`` (elementwise), or with probability ``p``."""
    if type(input) not in PLAIN_TYPES:
        r = try_torch_function(bernoulli, (input,), input, p, generator=generator, out=out)
        if r is not NotImplemented:
            return r
    g = _gen(generator)
    if p is None:
        op, params = R.bernoulli, dict(generator=g)
    else:
        op, params = R.bernoulli_scalar, dict(p=float(p), generator=g)
    if out is not None:
        return dispatch_out(op, out, input, **params)
    return dispatch(op, input, **params)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """``num_samples`` category indices per row of probabilities ``input`` (1-D or 2-D), int64."""
    if type(input) not in PLAIN_TYPES:
        r = try_torch_function(multinomial, (input,), input, num_samples, replacement,
                               generator=generator, out=out)
        if r is not NotImplemented:
            return r
    params = dict(num_samples=int(num_samples), replacement=bool(replacement),
                  generator=_gen(generator))
    if out is not None:
        return dispatch_out(R.multinomial, out, input, **params)
    return dispatch(R.multinomial, input, **params)


# ------------------------------------------------------------------ in-place samplers
def _inplace(op, name, defaults, doc):
    """``x.<name>(*params, generator=None)`` refilling ``x`` in place."""
    keys = tuple(defaults)

    def method(self, *args, generator=None, **kw):
        if type(self) not in PLAIN_TYPES:
            r = try_torch_function(method, (self,), self, *args, generator=generator, **kw)
            if r is not NotImplemented:
                return r
        params = dict(defaults)
        for k, v in zip(keys, args):
            params[k] = v
        for k, v in kw.items():
            if k not in params:
                raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
            params[k] = v
        params = {k: float(v) for k, v in params.items()}
        return dispatch_inplace(op, self, generator=_gen(generator), **params)
    method.__doc__ = doc
    return _public(method, name, method=True)


normal_ = _inplace(R.normal, "normal_", {"mean": 0.0, "std": 1.0}, "Fill with normal samples.")
exponential_ = _inplace(R.exponential, "exponential_", {"lambd": 1.0},
                        "Fill with exponential samples of rate ``lambd``.")
log_normal_ = _inplace(R.log_normal, "log_normal_", {"mean": 1.0, "std": 2.0},
                       "Fill with samples whose log is normal(mean, std).")
cauchy_ = _inplace(R.cauchy, "cauchy_", {"median": 0.0, "sigma": 1.0}, "Fill with Cauchy samples.")


def _from_to(kw):
    # torch spells these ``from``/``to`` (``from`` is a keyword in Python, so they arrive in kwargs)
    return kw.pop("from", kw.pop("low", _UNSET)), kw.pop("to", kw.pop("high", _UNSET))


def uniform_(self, *args, generator=None, **kw):
    """Fill with uniform samples in [from, to)."""
    if type(self) not in PLAIN_TYPES:
        r = try_torch_function(uniform_, (self,), self, *args, generator=generator, **kw)
        if r is not NotImplemented:
            return r
    lo, hi = _from_to(kw)
    if kw:
        raise TypeError(f"uniform_() got an unexpected keyword argument '{next(iter(kw))}'")
    args = list(args) + [None] * (2 - len(args))
    low = float(args[0] if args[0] is not None else (0.0 if lo is _UNSET else lo))
    high = float(args[1] if args[1] is not None else (1.0 if hi is _UNSET else hi))
    return dispatch_inplace(R.uniform, self, generator=_gen(generator), low=low, high=high)


_public(uniform_, "uniform_", method=True)


def random_(self, *args, generator=None, **kw):
    """``random_()``: integers in [0, 2**mantissa] (floats) or the dtype's range; ``random_(to)``:
    [0, to); ``random_(from, to)``: [from, to)."""
    if type(self) not in PLAIN_TYPES:
        r = try_torch_function(random_, (self,), self, *args, generator=generator, **kw)
        if r is not NotImplemented:
            return r
    lo, hi = _from_to(kw)
    if len(args) == 2:
        lo, hi = args
    elif len(args) == 1:
        if hi is _UNSET and lo is _UNSET:
            hi = args[0]
        elif hi is _UNSET:
            hi = args[0]
        else:
            lo = args[0]
    g = _gen(generator)
    if lo is _UNSET and (hi is _UNSET or hi is None):
        return dispatch_inplace(R.random, self, low=0, high=None, generator=g, dtype=self.dtype)
    if lo is _UNSET:
        return dispatch_inplace(R.random_to, self, low=0, high=int(hi), generator=g,
                                dtype=self.dtype)
    hi = None if hi is _UNSET or hi is None else int(hi)
    return dispatch_inplace(R.random_from_to, self, low=int(lo), high=hi, generator=g,
                            dtype=self.dtype)


_public(random_, "random_", method=True)


def geometric_(self, p, *, generator=None):
    """Fill with geometric samples (trials until the first success, success probability ``p``)."""
    if type(self) not in PLAIN_TYPES:
        r = try_torch_function(geometric_, (self,), self, p, generator=generator)
        if r is not NotImplemented:
            return r
    return dispatch_inplace(R.geometric, self, p=float(p), generator=_gen(generator))


_public(geometric_, "geometric_", method=True)


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1: 1 with probability ``p`` (a float or a tensor broadcast to ``self``)."""
    if type(self) not in PLAIN_TYPES:
        r = try_torch_function(bernoulli_, (self, p), self, p, generator=generator)
        if r is not NotImplemented:
            return r
    g = _gen(generator)
    if isinstance(p, TensorBase):
        return dispatch_inplace(R.bernoulli_p, self, p, generator=g)
    return dispatch_inplace(R.bernoulli_scalar, self, p=float(p), generator=g)


_public(bernoulli_, "bernoulli_", method=True)


class RandomMixin:
    __slots__ = ()
    uniform_ = uniform_
    normal_ = normal_
    random_ = random_
    exponential_ = exponential_
    geometric_ = geometric_
    log_normal_ = log_normal_
    cauchy_ = cauchy_
    bernoulli_ = bernoulli_

    def bernoulli(self, p=None, *, generator=None):
        """0/1 samples: 1 with probability ``self`` (elementwise), or ``p`` when given."""
        return bernoulli(self, p, generator=generator)

    def multinomial(self, num_samples, replacement=False, *, generator=None):
        """``num_samples`` category indices per row of probabilities ``self``."""
        return multinomial(self, num_samples, replacement, generator=generator)


for _f in (rand, randn, randint, randperm, rand_like, randn_like, randint_like, normal, bernoulli,
           multinomial):
    _public(_f)
del _f

FUNCTIONS = dict(rand=rand, randn=randn, randint=randint, randperm=randperm, rand_like=rand_like,
                 randn_like=randn_like, randint_like=randint_like, normal=normal,
                 bernoulli=bernoulli, multinomial=multinomial)
