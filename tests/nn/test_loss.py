"""Loss modules against torch: values and input gradients for every reduction and option."""
import warnings

import pytest
import torch

import ember
from ember import nn

from ._helpers import assert_close, to_ember

REDUCTIONS = ["mean", "sum", "none"]


def _compare(name, kwargs, inputs, grad_idx=(0,), rtol=1e-5, atol=1e-6, ekwargs=None):
    tm = getattr(torch.nn, name)(**kwargs)
    ekw = ekwargs if ekwargs is not None else {k: to_ember(v) if isinstance(v, torch.Tensor) else v
                                               for k, v in kwargs.items()}
    em = getattr(nn, name)(**ekw)
    assert repr(em) == repr(tm)
    tin = [x.clone().requires_grad_(i in grad_idx) for i, x in enumerate(inputs)]
    ein = [to_ember(x) for x in tin]
    tout, eout = tm(*tin), em(*ein)
    assert_close(eout, tout, rtol=rtol, atol=atol)
    g = torch.randn(tout.shape, dtype=tout.dtype)
    tout.backward(g)
    eout.backward(to_ember(g))
    for i in grad_idx:
        assert_close(ein[i].grad, tin[i].grad, rtol=rtol, atol=atol)


def _randn(*shape):
    return torch.randn(*shape, dtype=torch.float64)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss"])
def test_regression_losses(name, reduction):
    torch.manual_seed(0)
    _compare(name, {"reduction": reduction}, [_randn(4, 5), _randn(4, 5)], grad_idx=(0, 1))


def test_smooth_l1_beta_and_huber_delta():
    torch.manual_seed(0)
    _compare("SmoothL1Loss", {"beta": 0.5}, [_randn(6), _randn(6)], grad_idx=(0, 1))
    _compare("SmoothL1Loss", {"beta": 0.0}, [_randn(6), _randn(6)])
    _compare("HuberLoss", {"delta": 0.3}, [_randn(6), _randn(6)], grad_idx=(0, 1))


def test_mse_broadcast_warning():
    with pytest.warns(UserWarning, match="Using a target size"):
        ember.nn.functional.mse_loss(ember.ones(3, 1), ember.ones(3))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("opts", [{}, {"weight": "w"}, {"ignore_index": 1}, {"label_smoothing": 0.2},
                                  {"weight": "w", "ignore_index": 2, "label_smoothing": 0.1},
                                  {"ignore_index": -1}])
def test_cross_entropy_indices(reduction, opts):
    torch.manual_seed(0)
    opts = {k: (torch.rand(5, dtype=torch.float64) + 0.5 if v == "w" else v) for k, v in opts.items()}
    target = torch.tensor([0, 1, 2, 4, 1, 3])
    if opts.get("ignore_index") == -1:
        target[2] = -1
    _compare("CrossEntropyLoss", {"reduction": reduction, **opts}, [_randn(6, 5) * 3, target])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cross_entropy_spatial_and_unbatched(reduction):
    torch.manual_seed(0)
    _compare("CrossEntropyLoss", {"reduction": reduction, "label_smoothing": 0.1},
             [_randn(2, 4, 3, 2), torch.randint(0, 4, (2, 3, 2))])
    _compare("CrossEntropyLoss", {"reduction": reduction}, [_randn(4), torch.tensor(2)])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("opts", [{}, {"weight": "w"}, {"label_smoothing": 0.3}])
def test_cross_entropy_probabilities(reduction, opts):
    torch.manual_seed(0)
    opts = {k: (torch.rand(5, dtype=torch.float64) + 0.5 if v == "w" else v) for k, v in opts.items()}
    probs = torch.softmax(_randn(6, 5), 1)
    _compare("CrossEntropyLoss", {"reduction": reduction, **opts}, [_randn(6, 5), probs],
             grad_idx=(0, 1))


def test_cross_entropy_float32_extreme_logits():
    x = torch.tensor([[1000.0, -1000.0, 0.0], [0.0, 0.0, 0.0]])
    _compare("CrossEntropyLoss", {}, [x, torch.tensor([1, 2])])


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss(reduction):
    torch.manual_seed(0)
    logp = torch.log_softmax(_randn(5, 4), 1)
    _compare("NLLLoss", {"reduction": reduction, "weight": torch.rand(4, dtype=torch.float64)},
             [logp, torch.tensor([0, 3, 3, 1, 2])])
    _compare("NLLLoss", {"reduction": reduction, "ignore_index": 3},
             [logp, torch.tensor([0, 3, 3, 1, 2])])


def test_nll_errors():
    F = ember.nn.functional
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        F.nll_loss(ember.zeros(2, 3), ember.tensor([0, 7]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(2\) to match target batch_size"):
        F.cross_entropy(ember.zeros(2, 3), ember.tensor([0, 1, 2]))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce(reduction):
    torch.manual_seed(0)
    p = torch.rand(4, 3, dtype=torch.float64) * 0.98 + 0.01
    t = torch.rand(4, 3, dtype=torch.float64)
    _compare("BCELoss", {"reduction": reduction}, [p, t], grad_idx=(0, 1))
    _compare("BCELoss", {"reduction": reduction, "weight": torch.rand(3, dtype=torch.float64)}, [p, t])


def test_bce_log_clamp():
    p = torch.tensor([0.0, 1.0, 0.5])
    t = torch.tensor([1.0, 0.0, 1.0])
    em, tm = nn.BCELoss(reduction="none"), torch.nn.BCELoss(reduction="none")
    assert_close(em(to_ember(p), to_ember(t)), tm(p, t))
    with pytest.raises(ValueError, match="Using a target size"):
        em(ember.ones(2), ember.ones(3))


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_with_logits(reduction):
    torch.manual_seed(0)
    x = _randn(4, 3) * 5
    x[0, 0] = 200.0
    x[0, 1] = -200.0
    t = torch.rand(4, 3, dtype=torch.float64)
    _compare("BCEWithLogitsLoss", {"reduction": reduction}, [x, t], grad_idx=(0, 1))
    _compare("BCEWithLogitsLoss", {"reduction": reduction,
                                   "pos_weight": torch.rand(3, dtype=torch.float64) * 3,
                                   "weight": torch.rand(3, dtype=torch.float64)}, [x, t],
             grad_idx=(0, 1))


def test_loss_buffers_and_state_dict():
    w = ember.ones(3)
    m = nn.CrossEntropyLoss(weight=w)
    assert m.weight is w and list(m.state_dict()) == ["weight"]
    assert list(nn.BCEWithLogitsLoss().state_dict()) == []
    assert repr(nn.CrossEntropyLoss()) == "CrossEntropyLoss()"


def test_bad_reduction_and_legacy_args():
    with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
        nn.MSELoss(reduction="bad")(ember.ones(2), ember.ones(2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = nn.MSELoss(size_average=False)
    assert m.reduction == "sum"
