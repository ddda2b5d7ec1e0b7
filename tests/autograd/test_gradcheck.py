"""``gradcheck``/``gradgradcheck``: accept correct gradients, reject wrong ones as torch does."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import ember

RNG = np.random.default_rng(0)
A = RNG.uniform(0.5, 2.0, (2, 3))
B = RNG.uniform(-1.0, 1.0, (3,))
Z = RNG.uniform(-1, 1, (3,)) + 1j * RNG.uniform(-1, 1, (3,))


def _inputs(lib, *arrays):
    return tuple(lib.tensor(a, requires_grad=True) for a in arrays)


GOOD = {
    "mul_broadcast": (lambda a, b: a * b + a.exp(), (A, B)),
    "reduce": (lambda a, b: (a * a).sum() * b, (A, B)),
    "multi_output": (lambda a, b: (a.sin(), (a * b).sum()), (A, B)),
    "pow": (lambda a, b: a ** 3 / (b * b + 1), (A, B)),
}


@pytest.mark.parametrize("name", sorted(GOOD))
@pytest.mark.parametrize("check", ["gradcheck", "gradgradcheck"])
def test_correct_gradients_pass(name, check):
    fn, arrays = GOOD[name]
    for lib in (ember, torch):
        assert getattr(lib.autograd, check)(fn, _inputs(lib, *arrays)) is True


def _wrong(lib):
    class Wrong(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3
    return Wrong


def test_wrong_gradient_detected_like_torch():
    results = {}
    for lib in (ember, torch):
        x, = _inputs(lib, B)
        w = _wrong(lib)
        assert lib.autograd.gradcheck(w.apply, (x,), raise_exception=False) is False
        with pytest.raises(RuntimeError) as info:
            lib.autograd.gradcheck(w.apply, (x,))
        results[lib.__name__] = (type(info.value).__name__, isinstance(info.value, RuntimeError),
                                 str(info.value).split("\n")[0])
    assert results["ember"] == results["torch"]


def test_detach_in_function_detected():
    for lib in (ember, torch):
        x, = _inputs(lib, A)
        assert lib.autograd.gradcheck(lambda t: t.detach() * 2 + t, (x,), raise_exception=False) is False


def test_wrong_second_derivative_detected():
    """A backward that is right once but not differentiable correctly fails gradgradcheck."""
    def make(lib):
        class Sq(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * 2 * x.detach()   # drops the dependence of the gradient on x
        return Sq
    for lib in (ember, torch):
        x, = _inputs(lib, B)
        sq = make(lib)
        assert lib.autograd.gradcheck(sq.apply, (x,)) is True
        assert lib.autograd.gradgradcheck(sq.apply, (x,), raise_exception=False) is False


def test_complex_inputs():
    fns = [lambda z: (z * z.conj()).real, lambda z: z * z, lambda z: (z * z).exp().sum(),
           lambda z: z.abs()]
    for fn in fns:
        for lib in (ember, torch):
            z, = _inputs(lib, Z)
            assert lib.autograd.gradcheck(fn, (z,)) is True
            assert lib.autograd.gradgradcheck(fn, (z,)) is True


def test_complex_wrong_convention_detected():
    def make(lib):
        class NoConj(lib.autograd.Function):
            @staticmethod
            def forward(ctx, z):
                ctx.save_for_backward(z)
                return z * z

            @staticmethod
            def backward(ctx, g):
                z, = ctx.saved_tensors
                return g * 2 * z   # should be g * conj(2 z)
        return NoConj
    for lib in (ember, torch):
        z, = _inputs(lib, Z)
        assert lib.autograd.gradcheck(make(lib).apply, (z,), raise_exception=False) is False


def test_float32_warns_and_no_grad_input_raises():
    for lib in (ember, torch):
        x = lib.tensor(B.astype(np.float32), requires_grad=True)
        with pytest.warns(UserWarning, match="is not a double precision"):
            lib.autograd.gradcheck(lambda t: t * 2, (x,), atol=1e-2, rtol=1e-2)
        with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
            lib.autograd.gradcheck(lambda t: t * 2, (lib.tensor(B),))


def test_eps_atol_rtol_are_used():
    for lib in (ember, torch):
        x, = _inputs(lib, B)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # a huge step makes the cube's central difference inexact: the tolerance decides
            assert not lib.autograd.gradcheck(lambda t: t ** 3, (x,), eps=0.3, raise_exception=False)
            assert lib.autograd.gradcheck(lambda t: t ** 3, (x,), eps=0.3, atol=0.2, rtol=0)


def test_inputs_restored_after_check():
    x, = _inputs(ember, A)
    before = x.detach().numpy().copy()
    ember.autograd.gradcheck(lambda t: t.sin(), (x,))
    np.testing.assert_array_equal(x.detach().numpy(), before)
    assert x.grad is None


def test_non_differentiable_output_ok():
    for lib in (ember, torch):
        x, = _inputs(lib, B)
        assert lib.autograd.gradcheck(lambda t: (t * 2, (t > 0).long()), (x,)) is True
