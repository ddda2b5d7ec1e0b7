"""In-place writes into views autograd treats specially, compared with torch: complex/real
reinterpreting views (view_as_complex / view_as_real, whose history CopySlices must replay with the
dtype change) and the outputs of functions returning several views (split, chunk, unbind), which
torch refuses to let you modify in place while autograd records."""
from __future__ import annotations

import pytest

from ._util import both, same_error


# ------------------------------------------------------------------ dtype-changing views
def test_inplace_into_view_as_complex_of_nonleaf():
    def run(lib):
        x = lib.tensor([[1., 2.], [3., 4.], [5., 6.]], dtype=lib.float64, requires_grad=True)
        y = x * 1.0
        c = lib.view_as_complex(y)
        c.mul_(lib.tensor(2 + 1j, dtype=lib.complex128))
        w = lib.tensor([[1., 10.], [100., 1000.], [1e4, 1e5]], dtype=lib.float64)
        (y * w).sum().backward()
        return x.grad, y, y.grad_fn.name(), c.grad_fn.name()
    both(run)


def test_inplace_into_slice_of_view_as_complex():
    def run(lib):
        x = lib.tensor([[1., 2.], [3., 4.], [5., 6.]], dtype=lib.float64, requires_grad=True)
        c = lib.view_as_complex(x * 1.0)
        c[1:].mul_(lib.tensor(2 + 1j, dtype=lib.complex128))
        w = lib.tensor([1 + 2j, 3 + 4j, 5 + 6j], dtype=lib.complex128)
        lib.view_as_real(c * w).sum().backward()
        return x.grad, c
    both(run)


def test_inplace_into_column_of_view_as_real():
    def run(lib):
        z = lib.tensor([1 + 2j, 3 + 4j], dtype=lib.complex128, requires_grad=True)
        zz = z * 1
        lib.view_as_real(zz)[:, 1].mul_(3)  # scale the imaginary parts
        (lib.view_as_real(zz) * lib.tensor([[1., 2.], [3., 4.]], dtype=lib.float64)).sum().backward()
        return z.grad, zz
    both(run)


# ------------------------------------------------------------------ outputs of multi-view functions
def _mk(lib):
    return lib.ones(4, 3, requires_grad=True) * 1


REFUSED = {
    "split": lambda lib: _mk(lib).split(2)[0].mul_(2),
    "split one piece": lambda lib: _mk(lib).split(4)[0].mul_(2),
    "split dim 1": lambda lib: _mk(lib).split(2, dim=1)[1].add_(1),
    "chunk": lambda lib: _mk(lib).chunk(2)[1].add_(1),
    "split_with_sizes": lambda lib: _mk(lib).split([1, 3])[0].mul_(2),
    "torch.split": lambda lib: lib.split(_mk(lib), [1, 3])[1].mul_(2),
    "unbind": lambda lib: _mk(lib).unbind(0)[0].mul_(2),
    "slice of unbind": lambda lib: _mk(lib).unbind(0)[0][1:].mul_(2),
    "view of unbind": lambda lib: _mk(lib).unbind(0)[0].view(3).mul_(2),
    "setitem into unbind": lambda lib: _mk(lib).unbind(0)[0].__setitem__(0, 5.0),
    "copy_": lambda lib: _mk(lib).split(2)[0].copy_(lib.zeros(2, 3)),
    "zero_": lambda lib: _mk(lib).split(2)[0].zero_(),
    "of a leaf": lambda lib: lib.ones(4, 3, requires_grad=True).split(2)[0].mul_(2),
    "of a transposed": lambda lib: _mk(lib).t().split(2)[0].mul_(2),
    "no grad base, grad operand": lambda lib: lib.ones(4, 3).split(2)[0].mul_(
        lib.ones(2, 3, requires_grad=True)),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_inplace_into_multi_view_output_refused(case):
    same_error(REFUSED[case])  # same class and message (torch must raise)


def _no_grad_write(lib):
    parts = _mk(lib).split(2)
    with lib.no_grad():
        parts[0].mul_(2)
    return parts[0]


ALLOWED = {
    "tensor_split": lambda lib: _mk(lib).tensor_split(2)[0].mul_(2),
    "unsafe_split": lambda lib: _mk(lib).unsafe_split(2)[0].mul_(2),
    "unsafe_chunk": lambda lib: _mk(lib).unsafe_chunk(2)[1].mul_(2),
    "no autograd": lambda lib: lib.ones(4, 3).split(2)[0].mul_(2),
    "written under no_grad": _no_grad_write,
    "detached": lambda lib: _mk(lib).split(2)[0].detach().mul_(2),
    "integer": lambda lib: lib.ones(4, 3, dtype=lib.int64).chunk(2)[0].mul_(2),
}


@pytest.mark.parametrize("case", sorted(ALLOWED))
def test_inplace_into_multi_view_output_allowed(case):
    both(ALLOWED[case])


def test_unsafe_chunk_inplace_gradient():
    def run(lib):
        x = lib.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        a, b = (x * 1).unsafe_chunk(2)
        a.mul_(3)
        (a * 2 + b).sum().backward()
        return x.grad
    both(run)


def test_sibling_of_multi_view_after_base_write_refused():
    def base_written(lib):
        x = _mk(lib)
        parts = x.split(2)
        x.mul_(2)
        parts[0].sum()

    def sibling_written_without_grad(lib):
        parts = _mk(lib).split(2)
        with lib.no_grad():
            parts[0].mul_(2)
        parts[1].sum()
    same_error(base_written)
    same_error(sibling_written_without_grad)


def test_multi_view_outputs_still_differentiate():
    def run(lib):
        x = lib.arange(12.0).reshape(4, 3).requires_grad_()
        a, b = (x * 1).chunk(2)
        u = (x * 2).unbind(1)
        (a.sum() * 2 + (b * b).sum() + (u[0] * u[2]).sum()).backward()
        return x.grad
    both(run)
