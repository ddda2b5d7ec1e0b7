"""clip_grad_norm_ / clip_grad_value_ against torch."""
import math

import pytest
import torch

import ember
from ember import nn
from ember.nn.utils import clip_grad_norm_, clip_grad_value_

from ._helpers import assert_close, to_ember


def _pairs():
    torch.manual_seed(0)
    tps = [torch.nn.Parameter(torch.randn(3, 4)), torch.nn.Parameter(torch.randn(5))]
    for p in tps:
        p.grad = torch.randn(p.shape) * 3
    eps = [nn.Parameter(to_ember(p, requires_grad=False)) for p in tps]
    for e, t in zip(eps, tps):
        e.grad = to_ember(t.grad)
    return eps, tps


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, math.inf])
@pytest.mark.parametrize("max_norm", [0.5, 1000.0])
def test_clip_grad_norm(norm_type, max_norm):
    eps, tps = _pairs()
    total_e = clip_grad_norm_(eps, max_norm, norm_type)
    total_t = torch.nn.utils.clip_grad_norm_(tps, max_norm, norm_type)
    assert_close(total_e, total_t, rtol=1e-5)
    for e, t in zip(eps, tps):
        assert_close(e.grad, t.grad, rtol=1e-5)


def test_clip_grad_value_and_nonfinite():
    eps, tps = _pairs()
    clip_grad_value_(eps, 0.7)
    torch.nn.utils.clip_grad_value_(tps, 0.7)
    for e, t in zip(eps, tps):
        assert_close(e.grad, t.grad)
    eps[0].grad[0, 0] = float("inf")
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_(eps, 1.0, error_if_nonfinite=True)
