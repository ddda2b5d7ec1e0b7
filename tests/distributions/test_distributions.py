"""Every distribution against torch.distributions on the same parameters and values: log_prob,
entropy, mean, variance, cdf where defined; shapes of samples; rsample gradients; validation errors."""
import math

import numpy as np
import pytest
import torch

import ember
import ember.distributions as ED
import torch.distributions as TD

R = np.random.default_rng(0)
POS = R.uniform(0.5, 2.0, (3,))
POS2 = R.uniform(0.5, 2.0, (3,))
REAL = R.standard_normal((3,))
P = R.uniform(0.1, 0.9, (3,))
SIMPLEX = R.dirichlet([1.0, 2.0, 3.0], size=2)
L = np.tril(R.standard_normal((3, 3)), -1) + np.diag(R.uniform(0.5, 1.5, 3))

# name -> (constructor taking (lib, T) where T makes a tensor, values at which to evaluate)
CASES = {
    "Normal": (lambda d, T: d.Normal(T(REAL), T(POS)), R.standard_normal((4, 3))),
    "Bernoulli_probs": (lambda d, T: d.Bernoulli(probs=T(P)), R.integers(0, 2, (4, 3)) * 1.0),
    "Bernoulli_logits": (lambda d, T: d.Bernoulli(logits=T(REAL)), R.integers(0, 2, (4, 3)) * 1.0),
    "Categorical": (lambda d, T: d.Categorical(probs=T(SIMPLEX)), R.integers(0, 3, (4, 2))),
    "Categorical_logits": (lambda d, T: d.Categorical(logits=T(REAL)), R.integers(0, 3, (4,))),
    "OneHotCategorical": (lambda d, T: d.OneHotCategorical(probs=T(SIMPLEX)),
                          np.eye(3)[R.integers(0, 3, (4, 2))]),
    "Uniform": (lambda d, T: d.Uniform(T(-POS), T(POS2)), R.uniform(-0.4, 0.4, (4, 3))),
    "Beta": (lambda d, T: d.Beta(T(POS), T(POS2)), R.uniform(0.05, 0.95, (4, 3))),
    "Gamma": (lambda d, T: d.Gamma(T(POS), T(POS2)), R.uniform(0.1, 3.0, (4, 3))),
    "Dirichlet": (lambda d, T: d.Dirichlet(T(POS)), R.dirichlet([1.0, 1.0, 1.0], size=4)),
    "Exponential": (lambda d, T: d.Exponential(T(POS)), R.uniform(0.1, 3.0, (4, 3))),
    "Laplace": (lambda d, T: d.Laplace(T(REAL), T(POS)), R.standard_normal((4, 3))),
    "Poisson": (lambda d, T: d.Poisson(T(POS)), R.integers(0, 5, (4, 3)) * 1.0),
    "Binomial": (lambda d, T: d.Binomial(5, probs=T(P)), R.integers(0, 6, (4, 3)) * 1.0),
    "Binomial_logits": (lambda d, T: d.Binomial(T(np.array([3.0, 4.0, 5.0])), logits=T(REAL)),
                        R.integers(0, 4, (4, 3)) * 1.0),
    "Multinomial": (lambda d, T: d.Multinomial(4, probs=T(SIMPLEX)),
                    np.array([[[4, 0, 0], [1, 2, 1]], [[0, 0, 4], [2, 2, 0]]], dtype=float)),
    "MultivariateNormal_cov": (lambda d, T: d.MultivariateNormal(T(REAL), covariance_matrix=T(L @ L.T)),
                               R.standard_normal((4, 3))),
    "MultivariateNormal_tril": (lambda d, T: d.MultivariateNormal(T(REAL), scale_tril=T(L)),
                                R.standard_normal((4, 3))),
    "MultivariateNormal_prec": (lambda d, T: d.MultivariateNormal(T(REAL), precision_matrix=T(L @ L.T)),
                                R.standard_normal((4, 3))),
    "LogNormal": (lambda d, T: d.LogNormal(T(REAL), T(POS)), R.uniform(0.1, 3.0, (4, 3))),
    "Independent": (lambda d, T: d.Independent(d.Normal(T(REAL), T(POS)), 1), R.standard_normal((4, 3))),
    "Transformed_sigmoid_affine": (
        lambda d, T: d.TransformedDistribution(d.Normal(T(REAL), T(POS)), [
            d.transforms.SigmoidTransform(), d.transforms.AffineTransform(1.0, T(POS2))]),
        1.0 + POS2 * R.uniform(0.1, 0.9, (4, 3))),
    "Transformed_tanh": (lambda d, T: d.TransformedDistribution(d.Normal(T(REAL), T(POS)),
                                                                d.transforms.TanhTransform()),
                         R.uniform(-0.9, 0.9, (4, 3))),
    "Transformed_stickbreaking": (
        lambda d, T: d.TransformedDistribution(d.Normal(T(REAL[:2]), T(POS[:2])),
                                               d.transforms.StickBreakingTransform()),
        R.dirichlet([1.0, 1.0, 1.0], size=4)),
}


def _E(a):
    return ember.tensor(np.asarray(a, dtype=np.float64))


def _T(a):
    return torch.tensor(np.asarray(a, dtype=np.float64))


def _cmp(got, want, what):
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6, atol=1e-8,
                               err_msg=what)


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name):
    make, values = CASES[name]
    e, t = make(ED, _E), make(TD, _T)
    assert tuple(e.batch_shape) == tuple(t.batch_shape) and tuple(e.event_shape) == tuple(t.event_shape)
    is_int = name.startswith("Categorical")
    ev = ember.tensor(values) if is_int else _E(values)
    tv = torch.tensor(values) if is_int else _T(values)
    _cmp(e.log_prob(ev), t.log_prob(tv), "log_prob")
    for prop in ("mean", "variance", "stddev", "mode"):
        try:
            want = getattr(t, prop)
        except NotImplementedError:
            continue
        np.testing.assert_allclose(getattr(e, prop).detach().numpy(), want.numpy(), rtol=1e-6,
                                   atol=1e-8, err_msg=prop)
    try:
        want = t.entropy()
    except NotImplementedError:
        want = None
    if want is not None:
        _cmp(e.entropy(), want, "entropy")
    s = e.sample((5,))
    assert tuple(s.shape) == (5,) + tuple(t.batch_shape) + tuple(t.event_shape)
    assert bool(e.support.check(s).all())
    assert e.has_rsample == t.has_rsample


@pytest.mark.parametrize("name", ["Normal", "Uniform", "Exponential", "Laplace"])
def test_cdf_icdf(name):
    make, values = CASES[name]
    e, t = make(ED, _E), make(TD, _T)
    _cmp(e.cdf(_E(values)), t.cdf(_T(values)), "cdf")
    q = R.uniform(0.05, 0.95, (4, 3))
    _cmp(e.icdf(_E(q)), t.icdf(_T(q)), "icdf")


def test_repr_expand_and_enumerate_support():
    assert repr(ED.Normal(0.0, 1.0)) == repr(TD.Normal(0.0, 1.0))
    assert repr(ED.Normal(ember.zeros(2), 1.0)) == repr(TD.Normal(torch.zeros(2), 1.0))
    d = ED.Normal(_E(REAL), _E(POS)).expand((2, 3))
    assert tuple(d.batch_shape) == (2, 3) and tuple(d.sample().shape) == (2, 3)
    b = ED.Bernoulli(probs=_E(P))
    np.testing.assert_array_equal(b.enumerate_support().numpy(),
                                  TD.Bernoulli(probs=_T(P)).enumerate_support().numpy())
    c = ED.Categorical(probs=_E(SIMPLEX))
    np.testing.assert_array_equal(c.enumerate_support().numpy(),
                                  TD.Categorical(probs=_T(SIMPLEX)).enumerate_support().numpy())


def test_validate_args_errors_match_torch():
    def lib(d):
        return ember if d is ED else torch

    def msg(fn, lib):
        with pytest.raises(ValueError) as info:
            fn(lib)
        return str(info.value).split("\n")[0]
    cases = [
        lambda d: d.Normal(lib(d).tensor([0.0]), lib(d).tensor([-1.0])),
        lambda d: d.Bernoulli(probs=0.5, logits=0.0),
        lambda d: d.Normal(0.0, 1.0).log_prob(0.5),
        lambda d: d.Exponential(1.0).log_prob(lib(d).tensor(-1.0)),
    ]
    for fn in cases:
        assert msg(fn, ED).replace("ember", "torch") == msg(fn, TD)


def test_rsample_gradients_are_reparameterised():
    ember.manual_seed(0)
    loc = ember.tensor([0.5, -1.0], requires_grad=True)
    scale = ember.tensor([1.5, 0.5], requires_grad=True)
    x = ED.Normal(loc, scale).rsample((1000,))
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [1000.0, 1000.0])
    eps = (x.detach() - loc.detach()) / scale.detach()
    np.testing.assert_allclose(scale.grad.numpy(), eps.sum(0).numpy(), rtol=1e-5, atol=1e-6)
    # Gamma, Beta, Dirichlet, Exponential, Uniform: d E[x] / d param by the pathwise estimator
    conc = ember.tensor(2.0, requires_grad=True)
    rate = ember.tensor(3.0, requires_grad=True)
    ED.Gamma(conc, rate).rsample((20000,)).mean().backward()
    assert abs(conc.grad.item() - 1 / 3) < 0.02 and abs(rate.grad.item() + 2 / 9) < 0.02
    a = ember.tensor(2.0, requires_grad=True)
    b = ember.tensor(3.0, requires_grad=True)
    ED.Beta(a, b).rsample((20000,)).mean().backward()  # d/da a/(a+b) = b/(a+b)^2 = 0.12
    assert abs(a.grad.item() - 0.12) < 0.02 and abs(b.grad.item() + 0.08) < 0.02
    r = ember.tensor(2.0, requires_grad=True)
    ED.Exponential(r).rsample((20000,)).mean().backward()
    assert abs(r.grad.item() + 0.25) < 0.02
    lo = ember.tensor(0.0, requires_grad=True)
    hi = ember.tensor(2.0, requires_grad=True)
    ED.Uniform(lo, hi).rsample((20000,)).mean().backward()
    assert abs(lo.grad.item() - 0.5) < 0.02 and abs(hi.grad.item() - 0.5) < 0.02


def test_sample_statistics():
    ember.manual_seed(1)
    n = 20000
    for d, mean, var in [(ED.Poisson(ember.tensor(3.0)), 3.0, 3.0),
                         (ED.Binomial(10, probs=ember.tensor(0.3)), 3.0, 2.1),
                         (ED.Gamma(ember.tensor(2.0), ember.tensor(0.5)), 4.0, 8.0),
                         (ED.Laplace(ember.tensor(1.0), ember.tensor(2.0)), 1.0, 8.0)]:
        s = d.sample((n,))
        assert abs(s.mean().item() - mean) < 6 * math.sqrt(var / n)
        assert abs(s.var().item() - var) / var < 0.1
    m = ED.MultivariateNormal(_E(REAL), scale_tril=_E(L)).sample((n,))
    np.testing.assert_allclose(np.cov(m.numpy().T), L @ L.T, atol=0.15)
    counts = ED.Multinomial(6, probs=_E(SIMPLEX)).sample((100,))
    assert bool((counts.sum(-1) == 6).all())


def test_transforms_inverse_and_jacobian_against_torch():
    x = R.standard_normal((4, 3))
    pairs = [(ED.transforms.ExpTransform(), TD.transforms.ExpTransform()),
             (ED.transforms.SigmoidTransform(), TD.transforms.SigmoidTransform()),
             (ED.transforms.TanhTransform(), TD.transforms.TanhTransform()),
             (ED.transforms.SoftplusTransform(), TD.transforms.SoftplusTransform()),
             (ED.transforms.AffineTransform(_E(REAL), _E(POS)), TD.transforms.AffineTransform(_T(REAL), _T(POS))),
             (ED.transforms.StickBreakingTransform(), TD.transforms.StickBreakingTransform()),
             (ED.transforms.ExpTransform().inv, TD.transforms.ExpTransform().inv)]
    for e, t in pairs:
        xx = np.abs(x) + 0.1 if e.domain is ED.constraints.positive else x
        ye, yt = e(_E(xx)), t(_T(xx))
        _cmp(ye, yt, repr(e))
        _cmp(e.inv(ye), t.inv(yt), repr(e))
        _cmp(e.log_abs_det_jacobian(_E(xx), ye), t.log_abs_det_jacobian(_T(xx), yt), repr(e))
    pos = ED.biject_to(ED.constraints.positive)
    assert bool((pos(_E(x)) > 0).all())
    assert bool(ED.constraints.simplex.check(ED.biject_to(ED.constraints.simplex)(_E(x))).all())
