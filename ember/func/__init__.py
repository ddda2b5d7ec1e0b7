"""``ember.func``: function transforms in torch.func's spirit (grad, grad_and_value, vmap,
functional_call, jacrev, jacfwd, hessian, vjp, jvp), built on the autograd engine.

``vmap`` maps over a dim by calling ``func`` once per slice and stacking the results: the same
answers as a batched transform, without its speed.

Example:
    >>> import ember
    >>> from ember.func import grad, vmap
    >>> grad(lambda x: (x ** 3).sum())(ember.tensor([1.0, 2.0]))
    tensor([ 3., 12.])
    >>> vmap(lambda v: v.dot(v))(ember.ones(4, 3))
    tensor([3., 3., 3., 3.])
"""
from __future__ import annotations

import functools
import threading

from .._tensor import Tensor
from .._tensor_methods.shape_copy import stack
from ..autograd import grad as _autograd_grad
from ..autograd import functional as _F
from ..autograd.grad_mode import enable_grad

__all__ = ["grad", "grad_and_value", "vmap", "functional_call", "jacrev", "jacfwd", "hessian", "vjp",
           "jvp"]


class _Level(threading.local):
    depth = 0


_LEVEL = _Level()


def _tree_map(fn, x):
    if isinstance(x, Tensor):
        return fn(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_tree_map(fn, e) for e in x)
    if isinstance(x, dict):
        return {k: _tree_map(fn, v) for k, v in x.items()}
    return x


def _leaves(x):
    if isinstance(x, Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for e in x for t in _leaves(e)]
    if isinstance(x, dict):
        return [t for v in x.values() for t in _leaves(v)]
    return []


def _unflatten(x, it):
    if isinstance(x, Tensor):
        return next(it)
    if isinstance(x, (list, tuple)):
        return type(x)(_unflatten(e, it) for e in x)
    if isinstance(x, dict):
        return {k: _unflatten(v, it) for k, v in x.items()}
    return x


def grad_and_value(func, argnums=0, has_aux=False):
    """Like ``grad`` but returns ``(gradients, value)`` (``((gradients), (value, aux))`` with aux)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        args = list(args)
        _LEVEL.depth += 1
        try:
            with enable_grad():
                def prep(t):
                    return t.view_as(t) if t.requires_grad else t.detach().requires_grad_(True)
                for n in nums:
                    args[n] = _tree_map(prep, args[n])
                out = func(*args, **kwargs)
                aux = None
                if has_aux:
                    if not (isinstance(out, tuple) and len(out) == 2):
                        raise RuntimeError("grad_and_value(f)(*args): output of function f should be "
                                           "a tuple: (output, aux) if has_aux is True")
                    out, aux = out
                if not isinstance(out, Tensor) or out.numel() != 1:
                    raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                       "scalar Tensor")
                leaves = [t for n in nums for t in _leaves(args[n])]
                nested = _LEVEL.depth > 1
                gs = _autograd_grad(out, leaves, create_graph=nested, allow_unused=True,
                                    materialize_grads=True)
        finally:
            _LEVEL.depth -= 1
        if not nested:
            gs = tuple(g.detach() for g in gs)
            out = out.detach()
            aux = _tree_map(lambda t: t.detach(), aux)
        it = iter(gs)
        per_arg = tuple(_unflatten(args[n], it) for n in nums)
        result = per_arg[0] if isinstance(argnums, int) else per_arg
        return (result, (out, aux)) if has_aux else (result, out)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar ``func`` with respect to argument(s) ``argnums`` (composable)."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Map ``func`` over dim ``in_dims`` of its inputs, stacking outputs at ``out_dims``."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. "
                           f"Got {randomness}")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(f"vmap(func, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                             f"compatible with the structure of `inputs`. in_dims has structure "
                             f"{len(dims)} but inputs has {len(args)}.")
        sizes = {a.shape[d] for a, d in zip(args, dims) if d is not None and isinstance(a, Tensor)}
        if not sizes:
            raise ValueError("vmap(func)(<inputs>): at least one input must be a Tensor mapped over "
                             "a dimension (in_dims not None)")
        if len(sizes) > 1:
            raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sorted(sizes)} for the mapped dimension")
        n = sizes.pop()
        results = []
        for i in range(n):
            call = [a.select(d, i) if d is not None and isinstance(a, Tensor) else a
                    for a, d in zip(args, dims)]
            results.append(func(*call, **kwargs))
        first = results[0]
        leaves = [_leaves(r) for r in results]
        od = out_dims if isinstance(out_dims, (list, tuple)) else (out_dims,) * len(leaves[0])
        stacked = [stack([leaves[i][k] for i in range(n)], od[k]) for k in range(len(leaves[0]))]
        return _unflatten(first, iter(stacked))
    return wrapper


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """Call ``module`` with some parameters/buffers replaced by the given tensors (by dotted name)."""
    if isinstance(parameter_and_buffer_dicts, (list, tuple)):
        merged = {}
        for d in parameter_and_buffer_dicts:
            for k, v in d.items():
                if k in merged:
                    raise ValueError(f"{k} appeared in multiple dictionaries; behavior of "
                                     "functional call is ambiguous")
                merged[k] = v
        parameter_and_buffer_dicts = merged
    args = () if args is None else (args if isinstance(args, tuple) else (args,))
    kwargs = kwargs or {}
    if strict:
        expected = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
        missing = sorted(expected - set(parameter_and_buffer_dicts))
        unexpected = sorted(set(parameter_and_buffer_dicts) - expected)
        if missing or unexpected:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                               f"Unexpected key(s): {unexpected}.\n\tMissing key(s): {missing}.")
    saved = []
    try:
        for name, value in parameter_and_buffer_dicts.items():
            *path, attr = name.split(".")
            mod = module
            for p in path:
                mod = getattr(mod, p)
            for store in ("_parameters", "_buffers"):
                d = mod.__dict__.get(store)
                if d is not None and attr in d:
                    saved.append((d, attr, d[attr]))
                    d[attr] = value
                    break
            else:
                saved.append((mod, attr, getattr(mod, attr, None)))
                object.__setattr__(mod, attr, value)
        return module(*args, **kwargs)
    finally:
        for holder, attr, old in reversed(saved):
            if isinstance(holder, dict):
                holder[attr] = old
            else:
                object.__setattr__(holder, attr, old)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The Jacobian by reverse mode, with respect to argument ``argnums``."""
    def wrapper(*args):
        def f(x):
            a = list(args)
            a[argnums] = x
            return func(*a)
        return _F.jacobian(f, args[argnums])
    return wrapper


jacfwd = jacrev


def hessian(func, argnums=0):
    """The Hessian of a scalar function with respect to argument ``argnums``."""
    def wrapper(*args):
        def f(x):
            a = list(args)
            a[argnums] = x
            return func(*a)
        return _F.hessian(f, args[argnums])
    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` returns a tuple per primal."""
    with enable_grad():
        ps = tuple(p.detach().requires_grad_(True) for p in primals)
        out = func(*ps)
        aux = None
        if has_aux:
            out, aux = out

    def vjp_fn(*cotangents):
        outs = _leaves(out)
        cts = _leaves(cotangents)
        return _autograd_grad(outs, ps, cts, retain_graph=True, allow_unused=True,
                              materialize_grads=True)
    res = _tree_map(lambda t: t.detach(), out)
    return (res, vjp_fn, aux) if has_aux else (res, vjp_fn)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J @ tangents)``."""
    out, t = _F.jvp(func, tuple(primals), tuple(tangents), strict=strict)
    return out, t
