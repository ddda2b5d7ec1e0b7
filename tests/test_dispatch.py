"""The primitive-level interception point: dispatch modes see every primitive call, a meta mode
runs programs on shapes alone, and kernels are reached only through ``ember._dispatch``."""
from __future__ import annotations

import sys
import threading

import numpy as np

import ember
from ember._primitives._registry import _KERNELS, ARRAY_K, REGISTRY
from ember.utils._python_dispatch import (TorchDispatchMode, _get_current_dispatch_mode,
                                          _len_torch_dispatch_stack)


def _program(lib=ember):
    """A small training-like step: creation, views, pointwise, reduction, matmul, in-place, backward."""
    x = lib.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3), requires_grad=True)
    w = lib.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4), requires_grad=True)
    h = (x @ w).exp() * 0.5 + 1
    h = h.t()[1:].sum(0)
    y = x * 2
    y[:, 0].mul_(3)
    loss = h.sum() + (y * y).mean()
    loss.backward()
    with lib.no_grad():
        w -= 0.1 * w.grad
    return loss.detach(), x.grad, w


class _KernelSpy:
    """Wraps every registered kernel at both doors: ``op.kernel`` (dispatch's) and the kernels
    ``ARRAY_K`` binds (the raw backward's, ``_registry._KERNELS``); counts calls and records the
    calls that came through neither door: ``op.kernel`` called from anywhere but ``_dispatch``, a
    registered kernel called from anywhere but a derivative running on ``K=ARRAY_K`` (or
    ``ARRAY_K``'s own helpers in ``_registry``). Two callers are doors by design: a kernel running
    another op's kernel (``addmm``'s kernel is ``mm``'s plus an update: dispatch already saw
    ``addmm``), and the optimizers' ``ArrayOps``, which run only when no mode watches."""

    def __init__(self):
        self.calls = []
        self.raw_calls = []
        self.side_doors = []
        self.depth = 0  # > 0 while a kernel runs: kernels composing kernels are not side doors
        self.saved = {}
        self.saved_raw = {}

    def __enter__(self):
        for name, op in REGISTRY.items():
            self.saved[name] = op.kernel
            op.kernel = self._wrap(name, op.kernel)
        self.saved_raw = dict(_KERNELS)
        for name, kernel in self.saved_raw.items():
            _KERNELS[name] = self._wrap_raw(name, kernel)
        self._unbind_array_k()  # ARRAY_K binds kernels on first use: rebind to the spies
        return self

    def __exit__(self, *exc):
        for name, kernel in self.saved.items():
            REGISTRY[name].kernel = kernel
        _KERNELS.update(self.saved_raw)
        self._unbind_array_k()

    @staticmethod
    def _unbind_array_k():
        for name in [n for n in vars(ARRAY_K) if n in REGISTRY]:
            delattr(ARRAY_K, name)

    def _wrap(self, name, kernel):
        def spy(*args, **kwargs):
            caller = sys._getframe(1)
            module = caller.f_globals.get("__name__")
            inner = self.depth > 0
            array_ops = module == "ember.optim._raw" and caller.f_code.co_qualname.startswith("ArrayOps.")
            if module != "ember._dispatch" and not inner and not array_ops:
                self.side_doors.append(f"{name} called from {module}:{caller.f_code.co_name}")
            if not inner:
                self.calls.append(name)
            self.depth += 1
            try:
                return kernel(*args, **kwargs)
            finally:
                self.depth -= 1
        return spy

    def _wrap_raw(self, name, kernel):
        def spy(*args, **kwargs):
            caller = sys._getframe(1)
            module = caller.f_globals.get("__name__")
            if caller.f_locals.get("K") is not ARRAY_K and module != "ember._primitives._registry":
                self.side_doors.append(f"{name} called raw from {module}:{caller.f_code.co_name}")
            self.raw_calls.append(name)
            return kernel(*args, **kwargs)
        return spy


class LoggingMode(TorchDispatchMode):
    def __init__(self):
        self.log = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.log.append(func.name)
        return func(*args, **(kwargs or {}))


def test_no_side_doors_to_kernels():
    with _KernelSpy() as spy:
        loss, xg, w = _program()
    assert spy.calls, "the program ran no kernel at all"
    assert spy.raw_calls, "the backward ran no raw kernel: the spy misses ARRAY_K's door"
    assert not spy.side_doors, "kernels reached outside _dispatch:\n" + "\n".join(spy.side_doors)
    # and the program computed the same thing as without the spy
    ref = _program()
    np.testing.assert_allclose(loss.numpy(), ref[0].numpy(), rtol=1e-6)


def _optimizer_program():
    """Optimizer steps on every fast update path (flat, foreach, per-parameter) plus ops whose kernels
    compose other kernels (addmm, baddbmm)."""
    m = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.ReLU(), ember.nn.Linear(8, 2))
    for opt_cls in (ember.optim.Adam, ember.optim.AdamW, ember.optim.SGD, ember.optim.RMSprop,
                    ember.optim.Adagrad):
        for kw in ({}, {"foreach": False}, {"foreach": True}):
            opt = opt_cls(m.parameters(), lr=0.01, **kw)
            for _ in range(2):
                opt.zero_grad()
                m(ember.randn(3, 4)).pow(2).mean().backward()
                opt.step()
    a = ember.randn(2, 3, 3, requires_grad=True)
    (ember.addmm(a[0], a[0], a[1]).sum() + ember.baddbmm(a, a, a).sum()).backward()


def test_no_side_doors_in_optimizer_steps():
    with _KernelSpy() as spy:
        _optimizer_program()
    assert spy.calls and spy.raw_calls
    assert not spy.side_doors, "kernels reached outside _dispatch:\n" + "\n".join(spy.side_doors)


def test_kernel_spy_catches_side_doors():
    a = np.ones(3, np.float32)
    with _KernelSpy() as spy:
        REGISTRY["neg"].kernel(a)
        _KERNELS["neg"](a)
        ARRAY_K.neg(a)  # outside a derivative: no K local here
    assert [d.split(" from ")[0] for d in spy.side_doors] == ["neg called", "neg called raw",
                                                               "neg called raw"]
    assert all(d.endswith(":test_kernel_spy_catches_side_doors") for d in spy.side_doors)


def test_logging_mode_sees_every_primitive_call():
    with _KernelSpy() as spy:
        with LoggingMode() as mode:
            _program()
    assert mode.log, "the mode saw nothing"
    # every kernel run was first seen by the mode, in the same order
    assert mode.log == spy.calls


def test_logging_mode_sees_backward_ops():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    with LoggingMode() as mode:
        y.backward()
    assert mode.log, "backward ran no primitive under the mode"
    np.testing.assert_allclose(x.grad.numpy(), (np.exp([1.0, 2.0]) * (1 + np.array([1.0, 2.0]))),
                               rtol=1e-6)


def test_mode_stack_nesting_and_exit():
    outer, inner = LoggingMode(), LoggingMode()
    a = ember.ones(2)
    with outer:
        with inner:
            assert _get_current_dispatch_mode() is inner
            assert _len_torch_dispatch_stack() == 2
            a + 1
        a * 3
    assert _len_torch_dispatch_stack() == 0
    assert inner.log == ["add"]
    assert outer.log == ["add", "mul"]  # inner's func(...) call reaches the outer mode


def test_mode_can_replace_results():
    class Zeroing(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            return out * 0 if func.name == "exp" else out
    with Zeroing():
        r = ember.tensor([1.0, 2.0]).exp() + 1
    np.testing.assert_array_equal(r.numpy(), [1.0, 1.0])


def test_mode_stack_is_thread_local():
    seen = {}

    def worker():
        seen["len"] = _len_torch_dispatch_stack()
        seen["val"] = (ember.ones(2) + 1).tolist()

    with LoggingMode() as mode:
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert seen == {"len": 0, "val": [2.0, 2.0]}
    assert mode.log == []


class MetaMode(TorchDispatchMode):
    """Runs every primitive on 'meta' copies of its cpu inputs: shapes and dtypes only."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        def meta(a):
            if isinstance(a, ember.Tensor) and not a.is_meta:
                m = a.to("meta")
                if a.requires_grad:
                    m.requires_grad_()
                return m
            if isinstance(a, (list, tuple)):
                return type(a)(meta(x) for x in a)
            return a
        return func(*[meta(a) for a in args], **(kwargs or {}))


def test_meta_mode_gives_real_shapes_and_dtypes():
    def prog():
        x = ember.tensor(np.ones((2, 3), np.float32))
        w = ember.tensor(np.ones((3, 4), np.float64))
        y = (x.exp() * 2 + 1).t()
        z = y.unsqueeze(0) - w[:, :2]
        return z, z.sum(1), x[:, 1:] < 0
    real = prog()
    with MetaMode():
        fake = prog()
    for r, f in zip(real, fake):
        assert f.is_meta and f.device.type == "meta"
        assert f.shape == r.shape and f.dtype == r.dtype


def test_meta_tensors_run_without_mode():
    x = ember.empty(2, 3, device="meta")
    y = (x * 2).sum(0)
    assert y.is_meta and y.shape == (3,)
