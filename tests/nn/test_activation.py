"""Activation modules and functions against torch: forward, input gradient, repr."""
import pytest
import torch

import ember
from ember import nn

from ._helpers import assert_close, to_ember

CASES = [
    ("ReLU", (), {}), ("ReLU6", (), {}), ("Hardtanh", (-0.5, 0.7), {}), ("LeakyReLU", (0.2,), {}),
    ("ELU", (), {"alpha": 0.7}), ("SELU", (), {}), ("CELU", (), {"alpha": 1.3}),
    ("GELU", (), {}), ("GELU", (), {"approximate": "tanh"}), ("SiLU", (), {}), ("Mish", (), {}),
    ("Softplus", (), {}), ("Softplus", (), {"beta": 2.0, "threshold": 3.0}), ("Sigmoid", (), {}),
    ("Tanh", (), {}), ("LogSigmoid", (), {}), ("Hardsigmoid", (), {}), ("Hardswish", (), {}),
    ("Softsign", (), {}), ("Tanhshrink", (), {}), ("Threshold", (0.1, 20.0), {}), ("GLU", (), {}),
    ("Softmax", (), {"dim": 1}), ("LogSoftmax", (), {"dim": 1}), ("Softmin", (), {"dim": 0}),
    ("Softmax", (), {"dim": -1}), ("LogSoftmax", (), {"dim": 0}),
]


def _input(dtype=torch.float64):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 6, generator=g, dtype=dtype) * 4
    x[0, 0] = 30.0   # beyond softplus' threshold and exp overflow in float32
    x[0, 1] = -30.0
    return x


@pytest.mark.parametrize("name,args,kwargs", CASES, ids=[f"{c[0]}{i}" for i, c in enumerate(CASES)])
def test_module_forward_backward(name, args, kwargs):
    for dtype in (torch.float32, torch.float64):
        tx = _input(dtype).requires_grad_()
        ex = to_ember(tx)
        tm = getattr(torch.nn, name)(*args, **kwargs)
        em = getattr(nn, name)(*args, **kwargs)
        assert repr(em) == repr(tm)
        tout, eout = tm(tx), em(ex)
        tol = dict(rtol=1e-5, atol=1e-6) if dtype == torch.float32 else dict(rtol=1e-7, atol=1e-12)
        if name == "CELU" and dtype == torch.float64:
            tol = dict(rtol=1e-6, atol=1e-12)  # torch rounds 1/alpha to float32 in celu
        # (torch's hardsigmoid/hardswish backward also use float32 constants, hence rtol 1e-7)
        assert_close(eout, tout, **tol)
        g = torch.randn(tout.shape, dtype=dtype, generator=torch.Generator().manual_seed(1))
        tout.backward(g)
        eout.backward(to_ember(g))
        assert_close(ex.grad, tx.grad, **tol)
        assert all(v == v for v in ex.grad.reshape(-1).tolist())  # no NaN from unused branches


def test_inplace_variants_match():
    for name in ("ReLU", "ReLU6", "LeakyReLU", "ELU", "SiLU", "Hardtanh"):
        tx = _input(torch.float32)
        ex = to_ember(tx)
        tout = getattr(torch.nn, name)(inplace=True)(tx)
        em = getattr(nn, name)(inplace=True)
        assert repr(em) == repr(getattr(torch.nn, name)(inplace=True))
        eout = em(ex)
        assert eout is ex or eout.data_ptr() == ex.data_ptr()
        assert_close(ex, tx)
        assert_close(eout, tout)



@pytest.mark.parametrize("name,args", [("ReLU", ()), ("ReLU6", ()), ("LeakyReLU", (0.2,)), ("ELU", ()),
                                       ("SELU", ()), ("CELU", ()), ("SiLU", ()), ("Mish", ()),
                                       ("Hardswish", ()), ("Hardsigmoid", ()), ("Hardtanh", ()),
                                       ("Threshold", (0.1, 2.0)), ("RReLU", ())])
def test_inplace_after_an_op_backward_matches(name, args):
    """``conv -> LeakyReLU(inplace=True)`` as in a DCGAN: the in-place write must not break backward."""
    tx = _input(torch.float64).requires_grad_()
    ex = to_ember(tx.detach()).requires_grad_()
    tm, em = getattr(torch.nn, name)(*args, inplace=True), getattr(nn, name)(*args, inplace=True)
    tm.eval(), em.eval()   # RReLU: the deterministic slope
    tout, eout = tm(tx * 1.5), em(ex * 1.5)
    assert_close(eout, tout, rtol=1e-7, atol=1e-12)
    g = torch.randn(tout.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    (tout * g).sum().backward()
    (eout * to_ember(g)).sum().backward()
    assert_close(ex.grad, tx.grad, rtol=1e-7, atol=1e-12)


def test_reprs():
    assert repr(nn.Softmax()) == "Softmax(dim=None)"
    assert repr(nn.Dropout(0.3)) == repr(torch.nn.Dropout(0.3))
    assert repr(nn.Threshold(0.1, 2.0, True)) == repr(torch.nn.Threshold(0.1, 2.0, True))


def test_functional_softmax_dtype_and_default_dim():
    tx = _input(torch.float32)
    ex = to_ember(tx)
    assert_close(ember.nn.functional.softmax(ex, dim=1, dtype=ember.float64),
                 torch.nn.functional.softmax(tx, dim=1, dtype=torch.float64))
    with pytest.warns(UserWarning) if False else _nullcontext():
        assert_close(ember.nn.functional.log_softmax(ex, 1), torch.nn.functional.log_softmax(tx, 1))


def test_gelu_bad_approximate():
    with pytest.raises(RuntimeError):
        ember.nn.functional.gelu(ember.ones(2), approximate="fast")


def test_glu_odd_dim():
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        ember.nn.functional.glu(ember.ones(2, 3))


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
