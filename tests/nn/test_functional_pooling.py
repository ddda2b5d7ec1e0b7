"""nn.functional pooling against torch: values, indices, gradients, gradcheck, meta, errors."""
import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F

from ._helpers import TF, assert_close, check_grads, compare, same_error, to_ember

MAX_CASES = [  # (name, shape, kwargs)
    ("max_pool1d", (2, 3, 9), dict(kernel_size=3, stride=2, padding=1)),
    ("max_pool1d", (3, 8), dict(kernel_size=2, dilation=2, ceil_mode=True)),
    ("max_pool2d", (2, 3, 8, 8), dict(kernel_size=2)),
    ("max_pool2d", (2, 3, 7, 9), dict(kernel_size=3, stride=2, padding=1)),
    ("max_pool2d", (2, 3, 7, 9), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1), dilation=(2, 1),
                                      ceil_mode=True)),
    ("max_pool2d", (3, 5, 5), dict(kernel_size=2, ceil_mode=True)),
    ("max_pool3d", (2, 2, 5, 6, 5), dict(kernel_size=2, stride=(1, 2, 2), padding=1)),
    ("max_pool3d", (2, 4, 4, 5), dict(kernel_size=(2, 3, 2), ceil_mode=True)),
]


@pytest.mark.parametrize("name,shape,kw", MAX_CASES)
def test_max_pool_values_indices_grads(name, shape, kw):
    torch.manual_seed(0)
    compare(name, [torch.randn(shape)], dict(kw, return_indices=True))
    compare(name, [torch.randn(shape)], kw, dtypes=(torch.float64,))


def test_max_pool_ties_pick_first_like_torch():
    x = torch.tensor([[[[1., 1., 2., 2.], [1., 1., 2., 2.], [0., 3., 3., 0.], [3., 3., 0., 0.]]]])
    for kw in (dict(kernel_size=2), dict(kernel_size=2, stride=1), dict(kernel_size=3, padding=1, stride=1)):
        compare("max_pool2d", [x], dict(kw, return_indices=True))


def test_max_pool_grad_fn_gradcheck_and_double_backward():
    x = ember.randn(1, 2, 4, 4, requires_grad=True)
    assert F.max_pool2d(x, 2).grad_fn.name() == "MaxPool2DWithIndicesBackward0"
    torch.manual_seed(1)
    check_grads(lambda x: F.max_pool2d(x, 3, stride=1, padding=1), torch.randn(1, 2, 4, 5))
    check_grads(lambda x: F.max_pool3d(x, 2, ceil_mode=True), torch.randn(1, 1, 3, 3, 3))
    check_grads(lambda x: F.max_pool1d(x, 2), torch.randn(2, 2, 6))


AVG_CASES = [
    ("avg_pool1d", (2, 3, 9), dict(kernel_size=3, stride=2, padding=1)),
    ("avg_pool1d", (2, 3, 9), dict(kernel_size=4, stride=3, padding=2, ceil_mode=True,
                                   count_include_pad=False)),
    ("avg_pool2d", (2, 3, 8, 8), dict(kernel_size=2)),
    ("avg_pool2d", (2, 3, 7, 9), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
    ("avg_pool2d", (2, 3, 7, 9), dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 1), ceil_mode=True)),
    ("avg_pool2d", (3, 7, 9), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                   count_include_pad=False)),
    ("avg_pool2d", (2, 3, 6, 6), dict(kernel_size=3, padding=1, divisor_override=2)),
    ("avg_pool3d", (2, 2, 5, 6, 5), dict(kernel_size=2, stride=(1, 2, 2), padding=1)),
    ("avg_pool3d", (2, 2, 5, 6, 5), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                         count_include_pad=False)),
]


@pytest.mark.parametrize("name,shape,kw", AVG_CASES)
def test_avg_pool(name, shape, kw):
    torch.manual_seed(2)
    compare(name, [torch.randn(shape)], kw)


def test_avg_pool_gradcheck_and_grad_fn():
    torch.manual_seed(3)
    check_grads(lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True,
                                       count_include_pad=False), torch.randn(1, 2, 5, 6))
    check_grads(lambda x: F.avg_pool3d(x, 2, divisor_override=3), torch.randn(1, 1, 4, 3, 4))
    assert F.avg_pool2d(ember.ones(1, 1, 4, 4, requires_grad=True), 2).grad_fn.name() == "AvgPool2DBackward0"


@pytest.mark.parametrize("name,shape,out", [
    ("adaptive_avg_pool1d", (2, 3, 10), 4), ("adaptive_avg_pool1d", (3, 7), 7),
    ("adaptive_avg_pool2d", (2, 3, 7, 9), (3, 4)), ("adaptive_avg_pool2d", (2, 3, 7, 9), 1),
    ("adaptive_avg_pool2d", (3, 5, 6), (None, 4)), ("adaptive_avg_pool2d", (2, 3, 4, 4), 6),
    ("adaptive_avg_pool3d", (2, 2, 5, 6, 7), (2, 3, 4)), ("adaptive_avg_pool3d", (2, 3, 4, 5), 1),
])
def test_adaptive_avg_pool(name, shape, out):
    torch.manual_seed(4)
    compare(name, [torch.randn(shape), out])


@pytest.mark.parametrize("name,shape,out", [
    ("adaptive_max_pool1d", (2, 3, 10), 4), ("adaptive_max_pool2d", (2, 3, 7, 9), (3, 4)),
    ("adaptive_max_pool2d", (3, 5, 6), (None, 4)), ("adaptive_max_pool2d", (2, 3, 4, 4), 6),
    ("adaptive_max_pool3d", (2, 2, 5, 6, 7), (2, 3, 4)),
])
def test_adaptive_max_pool(name, shape, out):
    torch.manual_seed(5)
    compare(name, [torch.randn(shape), out], dict(return_indices=True))


def test_adaptive_gradcheck():
    torch.manual_seed(6)
    check_grads(lambda x: F.adaptive_avg_pool2d(x, (2, 3)), torch.randn(1, 2, 5, 7))
    check_grads(lambda x: F.adaptive_max_pool2d(x, (3, 2)), torch.randn(1, 2, 5, 7))
    check_grads(lambda x: F.adaptive_avg_pool3d(x, 2), torch.randn(1, 1, 3, 4, 5))


def test_lp_pool():
    torch.manual_seed(7)
    x = torch.rand(2, 3, 8, 8) + 0.1
    compare("lp_pool2d", [x, 2, 2])
    compare("lp_pool2d", [x, 3, (3, 2), (2, 1)])
    compare("lp_pool1d", [x[0], 2, 3, 2, True])
    compare("lp_pool3d", [torch.rand(1, 2, 4, 4, 4) + 0.1, 1.5, 2])


def test_max_unpool():
    torch.manual_seed(8)
    for nd, shape in ((1, (2, 3, 8)), (2, (2, 3, 6, 8)), (3, (1, 2, 4, 4, 6))):
        x = torch.randn(shape)
        out, idx = getattr(TF, f"max_pool{nd}d")(x, 2, return_indices=True)
        compare(f"max_unpool{nd}d", [out, idx, 2])
    x = torch.randn(1, 1, 5, 5)
    out, idx = TF.max_pool2d(x, 2, return_indices=True)
    compare("max_unpool2d", [out, idx, 2], dict(output_size=(5, 5)))
    compare("max_unpool2d", [out, idx, 2], dict(output_size=(1, 1, 5, 5)))


@pytest.mark.parametrize("name,shape,args,kw", [
    ("max_pool2d", (1, 2, 2, 2), (3,), {}), ("max_pool2d", (1, 2, 4, 4), (2,), dict(padding=2)),
    ("avg_pool2d", (1, 2, 2, 2), (3,), {}), ("max_pool2d", (2, 2), (2,), {}),
    ("avg_pool2d", (1, 2, 4, 4), (2,), dict(padding=2)), ("avg_pool2d", (1, 2, 4, 4), (2,), dict(stride=0)),
    ("max_pool2d", (1, 2, 4, 4), (2,), dict(stride=0)), ("max_pool2d", (1, 2, 4, 4), (2,), dict(dilation=0)),
    ("max_pool3d", (2, 5, 5), (2,), {}), ("max_pool1d", (2, 3, 5, 5), (2,), {}),
    ("adaptive_avg_pool2d", (5,), (2,), {}), ("adaptive_max_pool2d", (5,), (2,), {}),
    ("adaptive_avg_pool1d", (5,), (2,), {}), ("adaptive_avg_pool2d", (2, 0, 4), (2,), {}),
])
def test_pool_errors(name, shape, args, kw):
    same_error(name, [torch.randn(shape), *args], kw)


def test_pool_meta_shapes():
    m = ember.empty(2, 3, 9, 9, device="meta")
    assert tuple(F.max_pool2d(m, 3, 2, 1, ceil_mode=True).shape) == tuple(
        TF.max_pool2d(torch.empty(2, 3, 9, 9), 3, 2, 1, ceil_mode=True).shape)
    assert tuple(F.avg_pool2d(m, 2).shape) == (2, 3, 4, 4)
    assert tuple(F.adaptive_avg_pool2d(m, (2, 5)).shape) == (2, 3, 2, 5)
    out, idx = F.max_pool2d(m, 2, return_indices=True)
    assert idx.dtype is ember.int64


def test_max_pool_indices_are_torch_indices():
    torch.manual_seed(9)
    x = torch.randn(2, 3, 11, 10)
    _, ti = TF.max_pool2d(x, 3, 2, 1, dilation=2, return_indices=True)
    _, ei = F.max_pool2d(to_ember(x), 3, 2, 1, dilation=2, return_indices=True)
    assert np.array_equal(ei.numpy(), ti.numpy())
    assert_close(ei, ti)


def test_max_pool_nan_like_torch():
    x = torch.randn(1, 2, 4, 6)
    x[0, 0, 1, 1] = float("nan")
    x[0, 1, 0, 0] = x[0, 1, 1, 1] = float("nan")
    for kw in (dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1)):
        compare("max_pool2d", [x], dict(kw, return_indices=True), grad=False)
        t, ti = TF.max_pool2d(x, return_indices=True, **kw)
        e, ei = F.max_pool2d(to_ember(x), return_indices=True, **kw)
        assert np.array_equal(ei.numpy(), ti.numpy())
        assert np.array_equal(np.isnan(e.numpy()), np.isnan(t.numpy()))
