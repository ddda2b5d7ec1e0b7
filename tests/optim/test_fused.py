"""``fused=True`` Adam/AdamW/SGD/Adagrad (one generated kernel per step and dtype) against torch's,
with an lr scheduler writing ``lr`` (a Python float passed to the kernel: no new kernel)."""
import numpy as np
import pytest
import torch

import ember
from ember.optim import _fused


def _run(lib, cls, kw, fused, dtype="float32", steps=5):
    rng = np.random.default_rng(0)
    ps = [lib.nn.Parameter(lib.tensor(rng.standard_normal(s).astype(dtype)))
          for s in [(5, 3), (3,), (7,)]]
    opt = getattr(lib.optim, cls)(ps, **kw, **({"fused": True} if fused else {}))
    sched = lib.optim.lr_scheduler.StepLR(opt, 2, 0.5)
    for i in range(steps):
        opt.zero_grad()
        loss = sum(((p * (i + 1)) ** 2).sum() for p in ps)
        loss.backward()
        opt.step()
        sched.step()
    return [p.detach().numpy().copy() for p in ps], opt


CASES = [("Adam", {"lr": 0.1}), ("Adam", {"lr": 0.1, "weight_decay": 0.1, "amsgrad": True}),
         ("Adam", {"lr": 0.1, "maximize": True}), ("AdamW", {"lr": 0.1, "weight_decay": 0.1}),
         ("SGD", {"lr": 0.1, "momentum": 0.9}),
         ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
         ("Adagrad", {"lr": 0.1, "weight_decay": 0.1, "lr_decay": 0.01})]


@pytest.mark.parametrize("cls,kw", CASES)
def test_fused_matches_torch(cls, kw):
    want, _ = _run(torch, cls, kw, False)
    got, _ = _run(ember, cls, kw, True)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


def test_fused_runs_one_kernel_per_dtype_and_lr_changes_reuse_it():
    n = len(_fused._KERNELS)
    _run(ember, "Adam", {"lr": 0.05}, True, "float64", steps=4)
    added = len(_fused._KERNELS) - n
    assert added <= 1  # one kernel (none if an earlier test made it), reused as lr halves
    got, opt = _run(ember, "Adam", {"lr": 0.05}, True, "float64", steps=4)
    assert len(_fused._KERNELS) - n == added
    assert isinstance(opt.param_groups[0]["lr"], float)
    want, _ = _run(torch, "Adam", {"lr": 0.05}, False, "float64", steps=4)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
