"""``gradcheck`` / ``gradgradcheck`` (layer L2): autograd's gradients against finite differences.

The analytical Jacobian comes from one ``autograd.grad`` per output element (and, for a complex
output, per real/imaginary part); the numerical one from central differences, perturbing each input
element in place. Complex numbers follow torch's convention: the gradient of a real ``L`` with
respect to ``z`` is ``dL/dRe(z) + 1j * dL/dIm(z)``.

Example:
    >>> import ember
    >>> x = ember.tensor([1., 2.], dtype=ember.float64, requires_grad=True)
    >>> ember.autograd.gradcheck(lambda t: (t * t).sum(), (x,))
    True
"""
from __future__ import annotations

import warnings

import numpy as np

from .._tensor_base import TensorBase
from ._backward_api import grad as autograd_grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck/gradgradcheck when a check fails (and ``raise_exception`` is True)."""


def _as_tuple(x) -> tuple:
    return (x,) if isinstance(x, TensorBase) else tuple(x)


def _diff_inputs(inputs) -> list:
    return [(i, t) for i, t in enumerate(inputs) if isinstance(t, TensorBase) and t.requires_grad]


def _outputs(func, inputs) -> tuple:
    return _as_tuple(func(*inputs))


def _numerical(func, inputs, diff, outputs, eps):
    """``num[i][o]``: (numel_in, numel_out * parts) complex/real matrix for input i, output o."""
    tensor_outs = [k for k, o in enumerate(outputs) if isinstance(o, TensorBase)]
    result = []
    for _, inp in diff:
        arr = inp.data.numpy()
        cplx_in = arr.dtype.kind == "c"
        cols = {k: [] for k in tensor_outs}
        for idx in np.ndindex(arr.shape):
            orig = arr[idx].copy()
            parts = []
            for step in ((eps, 1j * eps) if cplx_in else (eps,)):
                arr[idx] = orig + step
                # snapshot now: an output may be a view of the input being perturbed
                plus = {k: _np(o) for k, o in enumerate(_outputs(func, inputs)) if k in tensor_outs}
                arr[idx] = orig - step
                minus = {k: _np(o) for k, o in enumerate(_outputs(func, inputs)) if k in tensor_outs}
                arr[idx] = orig
                parts.append({k: (plus[k] - minus[k]).reshape(-1) / (2 * eps)
                              for k in tensor_outs})
            for k in tensor_outs:
                d_re = parts[0][k]
                d_im = parts[1][k] if cplx_in else None
                cols[k].append(_to_grad_rows(d_re, d_im, _np(outputs[k]).dtype.kind == "c"))
        result.append({k: np.array(cols[k]).reshape(arr.size, -1) for k in tensor_outs})
    return result


def _to_grad_rows(d_re, d_im, cplx_out):
    """For each output element (and each part of a complex one), the gradient wrt one input entry."""
    vals = []
    for j in range(d_re.size):
        for g in ((1, 1j) if cplx_out else (1,)):
            # grad_output g means L = Re(conj(g) * y)
            lr = (np.conj(g) * d_re[j]).real
            if d_im is None:
                vals.append(lr)
            else:
                vals.append(lr + 1j * (np.conj(g) * d_im[j]).real)
    return vals


def _np(t):
    return np.array(t.detach().numpy(), copy=True)


def _analytical(outputs, diff, nondet_tol):
    """``ana[i][o]`` with the layout of ``_numerical``; also checks backward is reentrant."""
    result = [dict() for _ in diff]
    reentrant = True
    tensors = [t for _, t in diff]
    for k, out in enumerate(outputs):
        if not isinstance(out, TensorBase):
            continue
        cplx_out = out.is_complex()
        n = out.numel()
        cols = [[] for _ in diff]
        for j in range(n):
            for g in ((1, 1j) if cplx_out else (1,)):
                if not out.requires_grad:
                    for c, t in zip(cols, tensors):
                        c.append(np.zeros(t.numel(), _np(t).dtype))
                    continue
                go = np.zeros(n, _np(out).dtype)
                go[j] = g
                go_t = out.detach().new_tensor(go.reshape(out.shape))
                grads = autograd_grad((out,), tensors, (go_t,), retain_graph=True, allow_unused=True)
                again = autograd_grad((out,), tensors, (go_t,), retain_graph=True, allow_unused=True)
                for c, t, gr, gr2 in zip(cols, tensors, grads, again):
                    a = np.zeros(t.numel(), _np(t).dtype) if gr is None else _np(gr).reshape(-1)
                    b = np.zeros_like(a) if gr2 is None else _np(gr2).reshape(-1)
                    if np.max(np.abs(a - b), initial=0.0) > nondet_tol:
                        reentrant = False
                    c.append(a)
        for i, (c, t) in enumerate(zip(cols, tensors)):
            result[i][k] = np.array(c).T.reshape(t.numel(), -1) if c else np.zeros((t.numel(), 0))
    return result, reentrant


def _fmt(m, like):
    """``m`` (a NumPy Jacobian) printed as a tensor made by ``like.new_tensor``."""
    return repr(like.new_tensor(np.ascontiguousarray(m)))


def _fail(msg, raise_exception):
    if raise_exception:
        raise GradcheckError(msg)
    return False


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked=None) -> bool:
    """Check the gradients of ``func(*inputs)`` against finite differences (use float64 inputs)."""
    if check_forward_ad or check_batched_forward_grad:
        raise NotImplementedError("gradcheck: forward-mode AD is not implemented in ember")
    inputs = _as_tuple(inputs)
    diff = _diff_inputs(inputs)
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none "
                         "of the them have requires_grad=True.")
    for i, t in diff:
        if t.dtype.name not in ("float64", "complex128"):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point "
                          "or complex. This check will likely fail if all the inputs are not of double "
                          "precision floating point or complex. ", stacklevel=2)
    outputs = _outputs(func, inputs)
    if not check_backward_ad:
        return True
    num = _numerical(func, inputs, diff, outputs, eps)
    ana, reentrant = _analytical(outputs, diff, nondet_tol)
    for k, out in enumerate(outputs):
        if not isinstance(out, TensorBase):
            continue
        for i, ((pos, _), n_i, a_i) in enumerate(zip(diff, num, ana)):
            n, a = n_i[k], a_i[k]
            if not out.requires_grad:
                if not np.allclose(n, 0, rtol=rtol, atol=atol):
                    return _fail(f"Numerical gradient for function expected to be zero", raise_exception)
                continue
            if n.shape != a.shape or not np.allclose(a, n, rtol=rtol, atol=atol):
                return _fail(f"Jacobian mismatch for output {k} with respect to input {pos},\n"
                             f"numerical:{_fmt(n, out)}\nanalytical:{_fmt(a, out)}\n", raise_exception)
    if not reentrant:
        return _fail("Backward is not reentrant, i.e., running backward with same input and "
                     "grad_output multiple times gives different values, although analytical gradient "
                     "matches numerical gradient.The tolerance for nondeterminism was "
                     f"{nondet_tol}.", raise_exception)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    """Check second derivatives: gradcheck of ``(inputs, grad_outputs) -> vjp`` built with
    ``create_graph=True``."""
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        outs = _outputs(func, inputs)
        grad_outputs = []
        for o in outs:
            if not (isinstance(o, TensorBase) and o.requires_grad):
                continue
            shape = tuple(o.shape)
            v = rng.standard_normal(shape)
            if o.is_complex():
                v = v + 1j * rng.standard_normal(shape)
            grad_outputs.append(o.detach().new_tensor(v, requires_grad=True))
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def new_func(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = [o for o in _outputs(func, ins) if isinstance(o, TensorBase) and o.requires_grad]
        diff = [t for t in ins if isinstance(t, TensorBase) and t.requires_grad]
        grads = autograd_grad(outs, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode)
