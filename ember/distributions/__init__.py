"""``ember.distributions``: probability distributions with torch.distributions' API.

Example:
    >>> import ember
    >>> from ember.distributions import Normal
    >>> m = Normal(ember.tensor([0.0]), ember.tensor([1.0]))
    >>> m.log_prob(ember.tensor([0.0]))
    tensor([-0.9189])
"""
from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .constraint_registry import biject_to, transform_to
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .transforms import __all__ as _transforms_all
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Dirichlet", "Distribution",
           "ExponentialFamily", "Exponential", "Gamma", "Independent", "Laplace", "LogNormal",
           "Multinomial", "MultivariateNormal", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "Poisson", "TransformedDistribution", "Uniform",
           "biject_to", "kl_divergence", "register_kl", "transform_to", "constraints", "transforms",
           *_transforms_all]
