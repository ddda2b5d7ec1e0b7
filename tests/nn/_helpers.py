"""Shared helpers for tests/nn: copy torch tensors/weights into ember and compare results."""
import numpy as np
import torch

import ember

torch.set_num_threads(1)


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
