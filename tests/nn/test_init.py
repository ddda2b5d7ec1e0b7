"""nn.init against torch: gains, fans, and the statistics of each initialiser."""
import math

import pytest
import torch

import ember
from ember import nn
from ember.nn import init


def _stats(t):
    v = t.reshape(-1).tolist()
    mean = sum(v) / len(v)
    return mean, math.sqrt(sum((x - mean) ** 2 for x in v) / len(v)), min(v), max(v)


@pytest.mark.parametrize("nl,param", [("linear", None), ("sigmoid", None), ("tanh", None),
                                      ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2),
                                      ("selu", None), ("conv2d", None)])
def test_calculate_gain(nl, param):
    assert init.calculate_gain(nl, param) == torch.nn.init.calculate_gain(nl, param)


def test_gain_and_fan_errors():
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        init.calculate_gain("foo")
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(ember.zeros(3))
    assert init._calculate_fan_in_and_fan_out(ember.zeros(4, 3, 2, 5)) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.zeros(4, 3, 2, 5))


def test_fills():
    w = nn.Parameter(ember.empty(3, 4))
    assert init.constant_(w, 2.5) is w and w.tolist() == [[2.5] * 4] * 3 and w.grad_fn is None
    assert init.zeros_(w).sum().item() == 0 and init.ones_(w).sum().item() == 12
    assert init.eye_(w).tolist() == torch.nn.init.eye_(torch.empty(3, 4)).tolist()
    d = init.dirac_(ember.empty(2, 2, 3))
    assert d.tolist() == torch.nn.init.dirac_(torch.empty(2, 2, 3)).tolist()


N = (200, 300)


@pytest.mark.parametrize("fn,kwargs,expect_std,bound", [
    ("uniform_", {"a": -2.0, "b": 4.0}, 6 / math.sqrt(12), (-2.0, 4.0)),
    ("normal_", {"mean": 1.0, "std": 0.5}, 0.5, None),
    ("xavier_uniform_", {"gain": 2.0}, 2 * math.sqrt(2 / 500), (-2 * math.sqrt(6 / 500),
                                                                  2 * math.sqrt(6 / 500))),
    ("xavier_normal_", {}, math.sqrt(2 / 500), None),
    ("kaiming_uniform_", {"a": math.sqrt(5)}, 1 / math.sqrt(3 * 300), (-1 / math.sqrt(300),
                                                                        1 / math.sqrt(300))),
    ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}, math.sqrt(2 / 200), None),
    ("kaiming_normal_", {"nonlinearity": "relu"}, math.sqrt(2 / 300), None),
    ("trunc_normal_", {"std": 1.0, "a": -1.0, "b": 1.5}, None, (-1.0, 1.5)),
])
def test_statistics(fn, kwargs, expect_std, bound):
    t = getattr(init, fn)(nn.Parameter(ember.empty(*N)), **kwargs)
    ref = getattr(torch.nn.init, fn)(torch.empty(*N), **kwargs)
    mean, std, lo, hi = _stats(t)
    rmean, rstd = ref.mean().item(), ref.std().item()
    assert abs(mean - rmean) < 0.05 * max(1.0, abs(rmean)) + 3 * rstd / math.sqrt(t.numel())
    assert abs(std - rstd) < 0.03 * rstd
    if expect_std is not None:
        assert abs(std - expect_std) < 0.03 * expect_std
    if bound is not None:
        assert bound[0] <= lo and hi <= bound[1]
    assert t.requires_grad and t.grad_fn is None   # filled in place under no_grad


def test_orthogonal():
    w = init.orthogonal_(ember.empty(3, 5), gain=2.0)
    gram = w.matmul(w.t()).tolist()
    for i in range(3):
        for j in range(3):
            assert abs(gram[i][j] - (4.0 if i == j else 0.0)) < 1e-4
