"""kl_divergence for the registered pairs against torch's, and the registry's errors."""
import numpy as np
import pytest
import torch

import ember.distributions as ED
import torch.distributions as TD
import ember

R = np.random.default_rng(3)
A, B = R.uniform(0.5, 2.0, (2, 3)), R.uniform(0.5, 2.0, (2, 3))
M1, M2 = R.standard_normal((2, 3)), R.standard_normal((2, 3))
P1, P2 = R.uniform(0.1, 0.9, (2, 3)), R.uniform(0.1, 0.9, (2, 3))
S1, S2 = R.dirichlet([1, 2, 3], 2), R.dirichlet([2, 2, 1], 2)
L1 = np.tril(R.standard_normal((3, 3)), -1) + np.diag(R.uniform(0.5, 1.5, 3))
L2 = np.tril(R.standard_normal((3, 3)), -1) + np.diag(R.uniform(0.5, 1.5, 3))

PAIRS = {
    "Normal": lambda d, T: (d.Normal(T(M1), T(A)), d.Normal(T(M2), T(B))),
    "Bernoulli": lambda d, T: (d.Bernoulli(T(P1)), d.Bernoulli(T(P2))),
    "Categorical": lambda d, T: (d.Categorical(T(S1)), d.Categorical(T(S2))),
    "OneHotCategorical": lambda d, T: (d.OneHotCategorical(T(S1)), d.OneHotCategorical(T(S2))),
    "Beta": lambda d, T: (d.Beta(T(A), T(B)), d.Beta(T(B), T(A))),
    "Gamma": lambda d, T: (d.Gamma(T(A), T(B)), d.Gamma(T(B), T(A))),
    "Dirichlet": lambda d, T: (d.Dirichlet(T(A)), d.Dirichlet(T(B))),
    "Exponential": lambda d, T: (d.Exponential(T(A)), d.Exponential(T(B))),
    "Laplace": lambda d, T: (d.Laplace(T(M1), T(A)), d.Laplace(T(M2), T(B))),
    "Poisson": lambda d, T: (d.Poisson(T(A)), d.Poisson(T(B))),
    "Binomial": lambda d, T: (d.Binomial(5, T(P1)), d.Binomial(5, T(P2))),
    "Uniform": lambda d, T: (d.Uniform(T(-A), T(A)), d.Uniform(T(-A - B), T(A + 0.5))),
    "Uniform_inf": lambda d, T: (d.Uniform(T(-A), T(A)), d.Uniform(T(-A + 0.1), T(A))),
    "MultivariateNormal": lambda d, T: (d.MultivariateNormal(T(M1), scale_tril=T(L1)),
                                        d.MultivariateNormal(T(M2), covariance_matrix=T(L2 @ L2.T))),
    "Independent": lambda d, T: (d.Independent(d.Normal(T(M1), T(A)), 1),
                                 d.Independent(d.Normal(T(M2), T(B)), 1)),
    "LogNormal": lambda d, T: (d.LogNormal(T(M1), T(A)), d.LogNormal(T(M2), T(B))),
    "Uniform_Normal": lambda d, T: (d.Uniform(T(-A), T(A)), d.Normal(T(M2), T(B))),
    "Exponential_Gamma": lambda d, T: (d.Exponential(T(A)), d.Gamma(T(B), T(A))),
    "Gamma_Exponential": lambda d, T: (d.Gamma(T(B), T(A)), d.Exponential(T(A))),
    "Normal_Laplace": lambda d, T: (d.Normal(T(M1), T(A)), d.Laplace(T(M2), T(B))),
    "Beta_Uniform": lambda d, T: (d.Beta(T(A), T(B)), d.Uniform(T(A * 0 - 0.5), T(A * 0 + 1.5))),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_kl_matches_torch(name):
    ep, eq = PAIRS[name](ED, lambda a: ember.tensor(np.asarray(a, np.float64)))
    tp, tq = PAIRS[name](TD, lambda a: torch.tensor(np.asarray(a, np.float64)))
    np.testing.assert_allclose(ED.kl_divergence(ep, eq).numpy(), TD.kl_divergence(tp, tq).numpy(),
                               rtol=1e-6, atol=1e-9)


def test_missing_pair_and_registration():
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type "
                                                  "Poisson and q type Normal"):
        ED.kl_divergence(ED.Poisson(1.0), ED.Normal(0.0, 1.0))

    class MyNormal(ED.Normal):
        pass

    # a subclass inherits its parent's entry; a more specific registration wins
    assert ED.kl_divergence(MyNormal(0.0, 1.0), ED.Normal(1.0, 1.0)).item() == pytest.approx(0.5)

    @ED.register_kl(MyNormal, ED.Normal)
    def _kl(p, q):
        return ember.tensor(42.0)
    assert ED.kl_divergence(MyNormal(0.0, 1.0), ED.Normal(1.0, 1.0)).item() == 42.0
