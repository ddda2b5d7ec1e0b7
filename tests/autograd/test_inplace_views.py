"""Version counters, in-place ops on views rewriting the base's history (torch's CopySlices), and
the saved-tensor checks that guard them, compared with torch."""
from __future__ import annotations

import numpy as np
import pytest

from ._util import both, same_error

A = [[1.0, -2.0, 3.0, 0.5], [4.0, 0.25, -1.0, 2.0], [-3.0, 1.5, 2.5, -0.5]]
W = np.arange(12.0, dtype=np.float32).reshape(3, 4) - 5


def _w(lib):
    return lib.tensor(W)


def ver(t) -> int:
    """The version number (torch's ``t._version``, an int in both libraries)."""
    return t._version


# ------------------------------------------------------------------ version counters
def test_version_counter_shared_by_views_and_detach():
    def run(lib):
        x = lib.tensor(A)
        v, d = x[0], x.detach()
        out = [ver(x)]
        v.add_(1)
        out.append((ver(x), ver(v), ver(d)))
        d.mul_(2)
        out.append((ver(x), ver(v), ver(d)))
        x[1] = 0.0
        out.append((ver(x), ver(v), ver(d)))
        x.copy_(lib.ones(3, 4))
        out.append(ver(x))
        return out
    both(run)


def test_dot_data_has_fresh_counter():
    def run(lib):
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        y = p.sin()  # saves p
        before = ver(p)
        p.data.sub_(0.5)  # fresh counter: the saved-tensor check does not fire
        d = p.data
        y.sum().backward()
        return before, ver(p), ver(d), p.grad, y.grad_fn.name()
    both(run, rtol=1e-5)


def test_optimizer_style_update_through_data():
    def run(lib):
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        for _ in range(3):
            loss = (p * p).sum()
            loss.backward()
            p.data -= 0.1 * p.grad
            p.grad.zero_()
        return p, ver(p)
    both(run)


def test_no_grad_inplace_on_leaf_bumps_version():
    def run(lib):
        p = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.no_grad():
            p.mul_(2)
            p[0] = 5.0
        return p, ver(p), p.is_leaf, p.requires_grad
    both(run)


# ------------------------------------------------------------------ in-place on views
def test_inplace_on_column_of_nonleaf():
    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        y = x * 1
        y[:, 0].mul_(2)
        (y * _w(lib)).sum().backward()
        return x.grad, type(y.grad_fn).__name__, y.grad_fn.name()
    both(run)


def test_inplace_on_view_uses_other_tensor():
    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        z = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.sin()
        y[:, 1].mul_(z)
        (y * _w(lib)).sum().backward()
        return x.grad, z.grad
    both(run, rtol=1e-5)


def test_inplace_on_view_of_saved_output_raises():
    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        y = x.exp()   # exp saves its output, which the view write changes
        y[:, 1].mul_(lib.tensor([1.0, 2.0, 3.0], requires_grad=True))
        (y * _w(lib)).sum().backward()
    same_error(run)


def test_setitem_into_nonleaf_rewrites_history():
    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        v = lib.tensor([7.0, 8.0, 9.0, 10.0], requires_grad=True)
        y = x * 2
        y[1] = v * 3
        (y * _w(lib)).sum().backward()
        return x.grad, v.grad
    both(run)


def test_inplace_on_view_of_view_and_base_grad():
    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        y = x + 0
        v = y.t()[1:3]
        v.mul_(3)
        (y * _w(lib)).sum().backward()
        return x.grad, ver(y)
    both(run)


def test_view_history_after_base_inplace():
    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        y = x * 1
        v = y[0]
        y.mul_(2)  # v now sees y's new history
        (v * lib.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
        return x.grad
    both(run)


def test_relu_like_inplace_after_op():
    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        y = x * 2 - 1
        y.clamp_(min=0)
        (y * _w(lib)).sum().backward()
        return x.grad
    both(run)


def test_inplace_on_leaf_view_raises():
    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        x[0].mul_(2)
    same_error(run)


def test_inplace_on_leaf_view_under_no_grad_ok():
    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        with lib.no_grad():
            x[0].mul_(2)
        (x * 1).sum().backward()
        return x, x.grad, x.is_leaf
    both(run)


def test_saved_base_modified_through_view_raises():
    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        y = x * 1
        z = y.sin()   # saves y
        y[0].add_(1)
        z.sum().backward()
    same_error(run)


def test_saved_output_modified_through_view_raises():
    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        y = x.exp()   # saves its output
        y[0].add_(1)
        y.sum().backward()
    same_error(run)


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_"])
def test_inplace_binary_chain(op):
    def run(lib):
        x = lib.tensor(A, requires_grad=True)
        y = x.sin()
        getattr(y, op)(lib.tensor([1.5, 2.0, -3.0, 0.5]))
        getattr(y, op)(0.5)
        (y * _w(lib)).sum().backward()
        return x.grad, ver(y)
    both(run, rtol=1e-5)


def test_detach_then_inplace_is_seen_by_saved_check():
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.detach().zero_()
        y.sum().backward()
    same_error(run)
