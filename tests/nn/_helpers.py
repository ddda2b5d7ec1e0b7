"""Shared helpers for tests/nn: copy torch tensors/weights into ember and compare results."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck

torch.set_num_threads(1)
TF = torch.nn.functional


def to_ember(t, requires_grad=None):
    """An ember tensor with ``t``'s values and dtype (a leaf)."""
    arr = t.detach().cpu().numpy().copy()
    e = ember.tensor(arr.tolist() if arr.ndim == 0 else arr, dtype=getattr(ember, str(t.dtype)[6:]))
    rg = t.requires_grad if requires_grad is None else requires_grad
    if rg:
        e.requires_grad_()
    return e


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().tolist() if t.dtype.name != "bfloat16" else t.float().tolist())


def assert_close(e, t, rtol=1e-5, atol=1e-6):
    """ember result ``e`` equals torch result ``t`` (shape, dtype name and values)."""
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    assert str(e.dtype) == str(t.dtype), (e.dtype, t.dtype)
    np.testing.assert_allclose(to_np(e), to_np(t), rtol=rtol, atol=atol)


def copy_module_params(em, tm):
    """Copy every parameter and buffer of torch module ``tm`` into ember module ``em`` (same names)."""
    sd = {k: to_ember(v, requires_grad=False) for k, v in tm.state_dict().items()}
    em.load_state_dict(sd)


def compare(name, args, kwargs=None, dtypes=(torch.float32, torch.float64), grad=True, rtol=None,
            atol=None, outputs=None):
    """Run ``F.<name>`` in ember and torch on the same inputs (Tensors in ``args``); compare the
    outputs, then the gradients of every floating input for a random output gradient."""
    kwargs = kwargs or {}
    for dt in dtypes:
        targs = [a.to(dt).detach().requires_grad_(grad) if isinstance(a, torch.Tensor) and
                 a.is_floating_point() else a for a in args]
        eargs = [to_ember(a) if isinstance(a, torch.Tensor) else a for a in targs]
        tout = getattr(TF, name)(*targs, **kwargs)
        eout = getattr(F, name)(*eargs, **kwargs)
        touts = tout if isinstance(tout, tuple) else (tout,)
        eouts = eout if isinstance(eout, tuple) else (eout,)
        r = rtol if rtol is not None else (1e-4 if dt == torch.float32 else 1e-10)
        a = atol if atol is not None else (1e-5 if dt == torch.float32 else 1e-10)
        for e, t in zip(eouts, touts):
            assert_close(e, t, rtol=r, atol=a)
        if not grad:
            continue
        g = torch.randn_like(touts[0])
        torch.autograd.backward(touts[0], g)
        ember.autograd.backward(eouts[0], to_ember(g))
        for ea, ta in zip(eargs, targs):
            if isinstance(ta, torch.Tensor) and ta.requires_grad:
                assert_close(ea.grad, ta.grad, rtol=r, atol=a)


def check_grads(fn, *inputs, gradgrad=True):
    """gradcheck (and gradgradcheck) of ``fn`` on float64 ember copies of torch ``inputs``."""
    eins = [to_ember(t.double(), requires_grad=True) if t.is_floating_point() else to_ember(t)
            for t in inputs]
    assert gradcheck(fn, eins)
    if gradgrad:
        assert gradgradcheck(fn, eins)


def torch_error(fn, *args, **kw):
    with pytest.raises(Exception) as info:
        fn(*args, **kw)
    return type(info.value), str(info.value)


def same_error(name, targs, kwargs=None):
    """ember raises torch's exception type and message for ``F.<name>``."""
    kwargs = kwargs or {}
    typ, msg = torch_error(getattr(TF, name), *targs, **kwargs)
    eargs = [to_ember(a) if isinstance(a, torch.Tensor) else a for a in targs]
    with pytest.raises(typ) as info:
        getattr(F, name)(*eargs, **kwargs)
    assert str(info.value) == msg


def compare_functional(name, tensors, rtol=1e-5, atol=1e-6, **kw):
    """``F.<name>`` and torch's on copies of ``tensors`` (keyword tensors too): values, then the
    gradients of the inputs that require grad for a random output gradient."""
    tt = [t.detach().clone().requires_grad_(t.requires_grad) if isinstance(t, torch.Tensor) else t
          for t in tensors]
    et = [to_ember(t) if isinstance(t, torch.Tensor) else t for t in tt]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ekw = {k: to_ember(v) if isinstance(v, torch.Tensor) else v for k, v in kw.items()}
        out_t, out_e = getattr(TF, name)(*tt, **kw), getattr(F, name)(*et, **ekw)
    assert_close(out_e, out_t, rtol, atol)
    if out_t.requires_grad:
        g = torch.randn(out_t.shape, dtype=out_t.dtype)
        out_t.backward(g)
        out_e.backward(to_ember(g))
        for a, b in zip(et, tt):
            if isinstance(b, torch.Tensor) and b.requires_grad:
                assert_close(a.grad, b.grad, rtol, atol)


def randn64(*shape, grad=True):
    """A float64 torch normal sample (requiring grad by default)."""
    return torch.randn(*shape, dtype=torch.float64, requires_grad=grad)
