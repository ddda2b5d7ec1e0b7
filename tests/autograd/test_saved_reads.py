"""What backward version-checks: only the saved inputs that a needed gradient reads (torch saves no
others), declared per derivative with ``derivative(reads=...)``. Each case is run with ember and torch:
one input requires grad, one input is written in place after the op, then backward either raises
torch's error in both or gives the same gradient in both."""
from __future__ import annotations

import contextlib
import re

import numpy as np
import pytest
import torch

import ember
from ember._dispatch import general_path_only
from ember._primitives._registry import REGISTRY
from ember.autograd import grad_mode

from ._util import assert_same, to_np

# anomaly mode's warnings (entering it, the forward traceback of a failing node)
pytestmark = [pytest.mark.filterwarnings("ignore:Error detected in"),
              pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")]

F = "float64"
# name -> (call, input shapes, dtype)
OPS = {
    "mul": (lambda m, a, b: a * b, [(3,), (3,)]),
    "mul_broadcast": (lambda m, a, b: a * b, [(2, 3), (3,)]),
    "div": (lambda m, a, b: a / b, [(3,), (3,)]),
    "mm": (lambda m, a, b: a @ b, [(3, 3), (3, 2)]),
    "bmm": (lambda m, a, b: a.bmm(b), [(2, 3, 3), (2, 3, 2)]),
    "matmul_batched": (lambda m, a, b: a @ b, [(2, 3, 3), (3, 2)]),
    "matmul_vec": (lambda m, a, b: a @ b, [(3,), (3, 2)]),
    "mv": (lambda m, a, b: a.mv(b), [(2, 3), (3,)]),
    "dot": (lambda m, a, b: a.dot(b), [(3,), (3,)]),
    "vdot": (lambda m, a, b: a.vdot(b), [(3,), (3,)]),
    "outer": (lambda m, a, b: m.outer(a, b), [(3,), (2,)]),
    "addmm": (lambda m, i, a, b: m.addmm(i, a, b, beta=0.5, alpha=2.0), [(3, 2), (3, 3), (3, 2)]),
    "addmv": (lambda m, i, a, b: m.addmv(i, a, b), [(2,), (2, 3), (3,)]),
    "addr": (lambda m, i, a, b: m.addr(i, a, b), [(3, 2), (3,), (2,)]),
    "baddbmm": (lambda m, i, a, b: m.baddbmm(i, a, b), [(2, 3, 2), (2, 3, 3), (2, 3, 2)]),
    "addcmul": (lambda m, i, a, b: m.addcmul(i, a, b, value=0.5), [(3,), (3,), (3,)]),
    "addcdiv": (lambda m, i, a, b: m.addcdiv(i, a, b), [(3,), (3,), (3,)]),
    "lerp": (lambda m, a, b, w: m.lerp(a, b, w), [(3,), (3,), (3,)]),
    "hypot": (lambda m, a, b: m.hypot(a, b), [(3,), (3,)]),
    "fmod": (lambda m, a, b: m.fmod(a, b), [(3,), (3,)]),
    "remainder": (lambda m, a, b: m.remainder(a, b), [(3,), (3,)]),
    "copysign": (lambda m, a, b: m.copysign(a, b), [(3,), (3,)]),
    # undeclared derivatives keep checking every saved input
    "atan2": (lambda m, a, b: m.atan2(a, b), [(3,), (3,)]),
    "maximum": (lambda m, a, b: m.maximum(a, b), [(3,), (3,)]),
}


@contextlib.contextmanager
def _torch_path(name):
    """torch under the same anomaly mode or saved-tensor hooks as ember's ``_path(name)``."""
    with contextlib.ExitStack() as stack:
        if name == "anomaly":
            stack.enter_context(torch.autograd.detect_anomaly(check_nan=False))
        elif name == "saved_hooks":
            stack.enter_context(torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t))
        yield


@contextlib.contextmanager
def _path(name):
    """ember's recording path: the fast path's inlined recording (``fast``), the general path's lean
    ``record`` (``general``: every op through ``dispatch``), anomaly mode (general ``record`` with a
    trace) or saved-tensor hooks (``SavedTensor`` objects). The process-wide "special recording
    was used" flag is restored, so test order does not decide the path."""
    prev = grad_mode.SPECIAL_RECORDING[0]
    grad_mode.SPECIAL_RECORDING[0] = False
    grad_mode._update_lean()
    try:
        with contextlib.ExitStack() as stack:
            if name == "general":
                stack.enter_context(general_path_only())
            elif name == "anomaly":
                stack.enter_context(ember.autograd.detect_anomaly(check_nan=False))
            elif name == "saved_hooks":
                stack.enter_context(ember.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t))
            yield
    finally:
        grad_mode.SPECIAL_RECORDING[0] = prev
        grad_mode._update_lean()


def _values(shapes, seed):
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.5, 1.5, s) for s in shapes]


def _run(m, name, need, write, create_graph=False, path=None):
    """``need``: the input that requires grad; ``write``: the input written in place after the op.
    Returns the input's gradient (and with ``create_graph`` the gradient of its sum), or the error."""
    call, shapes = OPS[name]
    leaf = None
    ins = []
    for k, v in enumerate(_values(shapes, 7)):
        t = m.tensor(v)
        if k == need:
            leaf = t.requires_grad_()
            t = t.clone()  # not a leaf: it may be written in place
        ins.append(t)
    with _path(path) if m is ember else _torch_path(path):
        y = call(m, *ins)
        ins[write].add_(0.25)
        try:
            (g,) = m.autograd.grad((y * y).sum(), leaf, create_graph=create_graph)
        except RuntimeError as e:
            return type(e).__name__, str(e)
        if create_graph:
            (gg,) = m.autograd.grad(g.sum(), leaf, allow_unused=True)
            return to_np(g), None if gg is None else to_np(gg)
    return to_np(g)


# torch's matmul saves a batch folded to a matrix or a vector unsqueezed to one (a view), so its
# message names that shape; ember's matmul is one primitive
_SAVES_A_FOLDED_VIEW = {"matmul_batched", "matmul_vec"}
_SHAPE = re.compile(r" \[\d+(, \d+)*\]\]")

_PAIRS = [(name, need, write) for name, (_, shapes) in OPS.items()
          for need in range(len(shapes)) for write in range(len(shapes))]


@pytest.mark.parametrize("path", ["fast", "general", "anomaly", "saved_hooks"])
def test_write_after_op_matches_torch(path):
    """Writing an input no needed gradient reads is no error (same gradient as torch); writing one a
    needed gradient reads raises torch's error and message; on every recording path."""
    raised = 0
    for name, need, write in _PAIRS:
        mine = _run(ember, name, need, write, path=path)
        ref = _run(torch, name, need, write, path=path)
        if isinstance(ref, tuple):
            raised += 1
            if name in _SAVES_A_FOLDED_VIEW:
                mine, ref = _SHAPE.sub("", mine[1]), _SHAPE.sub("", ref[1])
            assert mine == ref, f"{name}: input {need} needs grad, input {write} written: {mine} vs {ref}"
        else:
            assert not isinstance(mine, tuple), f"{name}: input {need} needs grad, input {write} written: {mine}"
            assert_same(mine, ref, rtol=1e-10, atol=1e-12, path=f"{name} need {need} write {write}")
    assert (0 < raised < len(_PAIRS)) == (path != "saved_hooks")  # hooks: torch checks nothing


@pytest.mark.parametrize("name", ["mul", "div", "mm", "addmm", "addcdiv", "lerp", "hypot", "fmod"])
def test_double_backward_after_write_matches_torch(name):
    """create_graph=True: the derivative runs on Tensors; the gradient and its own gradient agree."""
    n = len(OPS[name][1])
    for need in range(n):
        for write in range(n):
            mine = _run(ember, name, need, write, create_graph=True, path="fast")
            ref = _run(torch, name, need, write, create_graph=True)
            if isinstance(ref, tuple) and isinstance(ref[0], str):
                assert mine == ref, name
            else:
                assert_same(mine, ref, rtol=1e-10, atol=1e-12, path=f"{name} need {need} write {write}")


def _brief_cases(m):
    x = m.randn(3, requires_grad=True)
    c = m.randn(3)
    a = x.clone()
    y = a * c
    a.add_(1)
    y.sum().backward()
    g1 = x.grad
    x = m.randn(3, 3, requires_grad=True)
    c = m.randn(3, 3)
    a = x.clone()
    y = a @ c
    a.add_(1)
    y.sum().backward()
    g2 = x.grad
    z = m.randn(3, dtype=m.complex64, requires_grad=True)
    zz = z.clone()
    w = zz.real * 2
    zz.imag.add_(1)
    w.sum().backward()
    return g1 is not None, g2 is not None, to_np(z.grad)


@pytest.mark.parametrize("path", ["fast", "general", "saved_hooks"])
def test_unread_inputs_written_in_place(path):
    with _path(path):
        mine = _brief_cases(ember)
    assert_same(mine, _brief_cases(torch))


def _still_raises(kind):
    def run(m):
        x = m.tensor([0.5, 1.0, 2.0], requires_grad=True)
        c = m.tensor([1.5, 2.5, 3.5])
        a = x.clone()
        if kind == "read_input":
            y = a * c
            c.add_(1)
        elif kind == "saved_output":
            y = a.exp()
            y.add_(1)
        else:  # the same tensor on both sides: each gradient reads the other
            y = a * a
            a.add_(1)
        y.sum().backward()
    return run


@pytest.mark.parametrize("path", ["fast", "general", "anomaly"])  # (with hooks torch checks nothing)
@pytest.mark.parametrize("kind", ["read_input", "saved_output", "self_times_self"])
def test_read_values_written_in_place_still_raise(kind, path):
    errors = []
    for m in (ember, torch):
        try:
            with _path(path) if m is ember else _torch_path(path):
                _still_raises(kind)(m)
        except RuntimeError as e:
            errors.append(str(e))
    assert len(errors) == 2 and errors[0] == errors[1]


def test_pack_hook_sees_only_what_a_needed_gradient_reads():
    """Saved-tensor hooks pack only the saved values torch saves (``a * c``: only ``c``)."""
    def run(m):
        packed = []
        x = m.tensor([1.0, 2.0], requires_grad=True)
        c = m.tensor([3.0, 4.0])
        with m.autograd.graph.saved_tensors_hooks(lambda t: packed.append(to_np(t)) or t, lambda t: t):
            y = (x * c) @ c
        y.backward()
        return packed, to_np(x.grad)
    with _path(None):
        mine = run(ember)
    assert_same(mine, run(torch))


def test_raw_backward_reads_unchecked_arrays():
    """The array backward (no graph of the backward) takes an unchecked saved input as its array."""
    with _path("fast"):
        x = ember.tensor([1.0, 2.0], requires_grad=True)
        c = ember.tensor([3.0, 4.0])
        y = x * c
        node = y.grad_fn
        assert node._versions == (None, 0)  # ``x`` is read by no needed gradient
        kept = node._saved[0]
        assert type(kept) is tuple and kept[0] is x._data and kept[2] is None
        assert node._saved[1] is c
        g = node.raw([np.ones(2)])
        np.testing.assert_array_equal(g[0], [3.0, 4.0])
        assert g[1] is None
        via_tensors = node.saved[0].unpack(node)  # (the Tensor path's unpacking)
        assert via_tensors._data is x._data and not via_tensors.requires_grad
        assert via_tensors._version_cell() is not x._version_cell()  # no shared counter


def test_reads_must_name_every_input_and_saved_names():
    op = REGISTRY["mul"]
    fn, readers = op.backward, op.save_readers
    with pytest.raises(TypeError, match="must name every input"):
        op.derivative(fn, reads={"a": ("b",)})
    with pytest.raises(TypeError, match="saved names"):
        op.derivative(fn, reads={"a": ("c",), "b": ("a",)})
    assert op.backward is fn and op.save_readers == readers  # a refused declaration changes nothing


def _inplace(kind):
    def run(m):
        x = m.tensor([0.5, 1.0, 2.0], requires_grad=True)
        w = m.tensor([1.5, -2.5, 3.0], requires_grad=True)
        c = m.tensor([1.5, 2.5, 3.5])
        if kind == "self_needs":  # self's old value is read by no needed gradient: not copied
            a = x.clone()
            a.mul_(c)
            a.add_(1)
        elif kind == "self_needs_write_other":
            a = x.clone()
            a.mul_(c)
            c.add_(1)  # read by self's gradient: raises
        elif kind == "other_needs":  # w's gradient reads self's old value (a copy of it is saved)
            a = c.clone()
            a.mul_(w)
        else:  # both
            a = x.clone()
            a.div_(w)
        (a * a).sum().backward()
        return to_np(x.grad), to_np(w.grad)
    return run


@pytest.mark.parametrize("path", ["fast", "general"])
@pytest.mark.parametrize("kind", ["self_needs", "self_needs_write_other", "other_needs", "both"])
def test_inplace_ops_match_torch(kind, path):
    results = []
    for m in (ember, torch):
        try:
            with _path(path) if m is ember else contextlib.nullcontext():
                results.append(_inplace(kind)(m))
        except RuntimeError as e:
            results.append(("error", str(e)))
    if isinstance(results[1][0], str):
        assert results[0] == results[1]
    else:
        assert_same(results[0], results[1], rtol=1e-12, atol=1e-12)
