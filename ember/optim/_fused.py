"""``fused=True`` optimizer steps: one generated Numba kernel per step and dtype over the flat
buffers of ``_flat.FlatBucket`` (Adam/AdamW, SGD with momentum, Adagrad).

The kernel source is generated per algorithm, dtype and flags (amsgrad, maximize, weight-decay
kind, nesterov) and loaded through ``ember._inductor.codecache`` (disk cache, Numba's own cache).
Hyper-parameters (``lr`` included: it stays a Python float in ``param_groups``, schedulers write
it) are kernel arguments, cast to the dtype as the eager path's NumPy ops do; the arithmetic is
the eager flat path's, operation for operation, without fastmath, so results agree with it to the
last bit in practice. Gradients are gathered into the flat gradient buffer, the kernel updates the
state in place and writes the update (or the new parameter values, with weight decay), which is
then added (copied) back per parameter. Returns False where it does not apply (Numba missing,
parameters at different step counts, complex or non-float dtypes): the caller's path runs.

Example:
    >>> import ember
    >>> w = ember.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = ember.optim.Adam([w], lr=0.1, fused=True)
    >>> (w * w).sum().backward(); opt.step()
    >>> w
    tensor([ 0.9000, -1.9000], requires_grad=True)
"""
from __future__ import annotations

from .._inductor import codecache
from .._tensor_methods import foreach as F

__all__ = ["adam_flat", "sgd_flat", "adagrad_flat"]

_KERNELS: dict = {}
_FLOATS = ("float32", "float64")


def _kernel(key: tuple, src: str):
    k = _KERNELS.get(key)
    if k is None:
        k = _KERNELS[key] = codecache.load_source(src).step
    return k


def _uniform_step(b):
    sv = b.flat["step"]._data
    return float(sv[0]) if sv.size and (sv == sv[0]).all() else None


def _adam_source(dt: str, amsgrad: bool, maximize: bool, wd_kind: str) -> str:
    # every array is its own argument and the result is stored through the name it overwrites
    # (g without weight decay, else p): two names for one array keep LLVM from vectorising
    c = f"np.{dt}"
    lines = [
        "import numba as nb", "import numpy as np", "",
        "@nb.njit(cache=True, error_model='numpy')",
        "def step(g, avg, sq, mx, p, w1, beta2, w2, bc2_sqrt, eps, step_size, wd, decay):",
        f"    w1, beta2, w2 = {c}(w1), {c}(beta2), {c}(w2)",
        f"    bc2_sqrt, eps, step_size = {c}(bc2_sqrt), {c}(eps), {c}(step_size)",
        f"    wd, decay = {c}(wd), {c}(decay)",
        "    for i in range(g.shape[0]):",
        "        gi = -g[i]" if maximize else "        gi = g[i]",
    ]
    if wd_kind == "l2":
        lines.append("        gi = gi + wd * p[i]")
    lines += [
        "        a = avg[i]",
        "        a = a + (gi - a) * w1",
        "        avg[i] = a",
        "        s = sq[i] * beta2 + (gi * gi) * w2",
        "        sq[i] = s",
    ]
    if amsgrad:
        lines += ["        m = mx[i]", "        if s > m or s != s:", "            m = s",
                  "        mx[i] = m", "        s = m"]
    lines.append("        d = np.sqrt(s) / bc2_sqrt + eps")
    if wd_kind == "decoupled":
        lines.append("        p[i] = p[i] * decay + (a / d) * step_size")
    elif wd_kind == "l2":
        lines.append("        p[i] = p[i] + (a / d) * step_size")
    else:
        lines.append("        g[i] = (a / d) * step_size")
    return "\n".join(lines) + "\n"


def _dtype_name(b):
    name = b.grad._data.dtype.name
    return name if name in _FLOATS else None


def adam_flat(ps: list, gs: list, b, group: dict, lr, wd, eps) -> bool:
    """One fused Adam/AdamW step over bucket ``b`` (see the module doc); False: not applicable."""
    dt = _dtype_name(b)
    s0 = _uniform_step(b)
    if dt is None or s0 is None or not codecache.numba_available() or not isinstance(lr, (int, float)):
        return False
    beta1, beta2 = group["betas"]
    amsgrad, maximize = bool(group["amsgrad"]), bool(group["maximize"])
    wd_kind = "none" if wd == 0 else ("decoupled" if group["decoupled_weight_decay"] else "l2")
    key = ("adam", dt, amsgrad, maximize, wd_kind)
    k = _kernel(key, _adam_source(dt, amsgrad, maximize, wd_kind))
    F._foreach_copy_(b.grad_views, gs)
    F._foreach_add_([b.flat["step"]], 1)
    s = s0 + 1
    if wd_kind != "none":
        F._foreach_copy_(b.scratch_views, ps)
    g, p = b.grad._data, b.scratch._data
    # mx and p are only read when used (amsgrad / weight decay): any same-dtype array stands in
    mx = b.flat["max_exp_avg_sq"]._data if amsgrad else b.flat["exp_avg_sq"]._data
    k(g, b.flat["exp_avg"]._data, b.flat["exp_avg_sq"]._data, mx, p, 1 - beta1, beta2,
      1 - beta2, (1 - beta2 ** s) ** 0.5, eps, (lr / (1 - beta1 ** s)) * -1, wd, 1 - lr * wd)
    _bump(b)
    if wd_kind != "none":
        F._foreach_copy_(ps, b.scratch_views)
    else:
        F._foreach_add_(ps, b.grad_views)
    return True


_SGD = """import numba as nb
import numpy as np

@nb.njit(cache=True, error_model='numpy')
def step(g, buf, momentum, damp, nesterov):
    momentum, damp = np.{dt}(momentum), np.{dt}(damp)
    for i in range(g.shape[0]):
        m = buf[i] * momentum + g[i] * damp
        buf[i] = m
        if nesterov:
            g[i] = g[i] + m * momentum
        else:
            g[i] = m
"""


def sgd_flat(ps: list, gs: list, b, group: dict, lr) -> bool:
    """One fused SGD-with-momentum step (gradients already hold maximize / weight decay)."""
    dt = _dtype_name(b)
    if dt is None or not codecache.numba_available() or not isinstance(lr, (int, float)):
        return False
    k = _kernel(("sgd", dt), _SGD.format(dt=dt))
    F._foreach_copy_(b.grad_views, gs)
    k(b.grad._data, b.flat["momentum_buffer"]._data, group["momentum"], 1 - group["dampening"],
      bool(group["nesterov"]))
    _bump(b)
    F._foreach_add_(ps, b.grad_views, alpha=-lr)
    return True


_ADAGRAD = """import numba as nb
import numpy as np

@nb.njit(cache=True, error_model='numpy')
def step(g, p, sums, maximize, use_wd, wd, eps, clr):
    wd, eps, clr = np.{dt}(wd), np.{dt}(eps), np.{dt}(clr)
    for i in range(g.shape[0]):
        gi = -g[i] if maximize else g[i]
        if use_wd:
            gi = gi + p[i] * wd
        s = sums[i] + gi * gi
        sums[i] = s
        g[i] = (gi / (np.sqrt(s) + eps)) * clr
"""


def adagrad_flat(ps: list, gs: list, b, group: dict, lr, wd, eps) -> bool:
    """One fused Adagrad step over bucket ``b``."""
    dt = _dtype_name(b)
    s0 = _uniform_step(b)
    if dt is None or s0 is None or not codecache.numba_available() or not isinstance(lr, (int, float)):
        return False
    k = _kernel(("adagrad", dt), _ADAGRAD.format(dt=dt))
    F._foreach_copy_(b.grad_views, gs)
    F._foreach_add_([b.flat["step"]], 1)
    if wd != 0:
        F._foreach_copy_(b.scratch_views, ps)
    k(b.grad._data, b.scratch._data, b.flat["sum"]._data, bool(group["maximize"]), wd != 0, wd,
      eps, -lr / (1 + s0 * group["lr_decay"]))
    _bump(b)
    F._foreach_add_(ps, b.grad_views)
    return True


def _bump(b) -> None:
    """The state buffers were written through their arrays: advance their version counters."""
    for t in b.flat.values():
        if t._vc is not None:
            t._vc.value += 1
