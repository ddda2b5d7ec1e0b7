"""``kl_divergence(p, q)`` and the ``register_kl`` registry (most specific registered pair wins).

Example:
    >>> import ember
    >>> from ember.distributions import Normal, kl_divergence
    >>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0))
    tensor(0.5000)
"""
from __future__ import annotations

import math
import warnings

from .. import linalg
from .._shape import broadcast_shapes as _bshape
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .dirichlet import Dirichlet
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .transforms import _log1p_exp
from .uniform import Uniform
from .utils import _sum_rightmost

__all__ = ["kl_divergence", "register_kl"]

_EULER = 0.57721566490153286061
_registry: dict = {}   # (type_p, type_q) -> fn, as registered
_resolved: dict = {}   # (type(p), type(q)) -> fn or None, filled lazily


def register_kl(type_p, type_q):
    """Decorator registering ``fn(p, q)`` as ``KL(p || q)`` for instances of the given types.

    Example:
        >>> import ember
        >>> from ember.distributions import Normal, kl_divergence, register_kl
        >>> class MyNormal(Normal): pass
        >>> @register_kl(MyNormal, Normal)
        ... def _kl(p, q): return ember.tensor(0.0)
        >>> kl_divergence(MyNormal(0.0, 1.0), Normal(3.0, 1.0))
        tensor(0.)
    """
    for t, label in ((type_p, "type_p"), (type_q, "type_q")):
        if not isinstance(t, type):
            raise TypeError(f"Expected {label} to be a Distribution subclass but got {t}")

    def decorator(fn):
        _registry[(type_p, type_q)] = fn
        _resolved.clear()  # a new pair may change which function is most specific
        return fn
    return decorator


def _resolve(tp, tq):
    """The function of the most specific registered pair covering ``(tp, tq)``, or None.

    Specificity is measured by position in each type's MRO. Ranking p first and ranking q first
    can disagree; then the pair is ambiguous and torch's warning is given (p-first wins)."""
    mro_p, mro_q = tp.__mro__, tq.__mro__
    ranks = {}
    for (sp, sq) in _registry:
        if sp in mro_p and sq in mro_q:
            ranks[(sp, sq)] = (mro_p.index(sp), mro_q.index(sq))
    if not ranks:
        return None
    by_p = min(ranks, key=lambda k: ranks[k])
    by_q = min(ranks, key=lambda k: ranks[k][::-1])
    if _registry[by_p] is not _registry[by_q]:
        warnings.warn(f"Ambiguous kl_divergence({tp.__name__}, {tq.__name__}). Please register_kl"
                      f"({by_p[0].__name__}, {by_q[1].__name__})", RuntimeWarning, stacklevel=3)
    return _registry[by_p]


def kl_divergence(p, q):
    """``KL(p || q)`` for a registered pair of distribution types, batched over ``batch_shape``."""
    key = (type(p), type(q))
    if key not in _resolved:
        _resolved[key] = _resolve(*key)
    fn = _resolved[key]
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} "
                                  f"and q type {type(q).__name__}")
    return fn(p, q)


def _inf_where(value, mask):
    return value.masked_fill(mask, math.inf)


def _zero_where(value, mask):
    return value.masked_fill(mask, 0.0)


# ----------------------------------------------------------------------------- same family

def _normal_pair(p, q):
    ratio_sq = (p.scale / q.scale).pow(2)
    shift_sq = ((p.loc - q.loc) / q.scale).pow(2)
    return (ratio_sq - ratio_sq.log() + shift_sq - 1) * 0.5


def _bernoulli_pair(p, q):
    # log p = -softplus(-logit), log(1 - p) = -softplus(logit); 0*log0 counts as 0
    on = p.probs * (_log1p_exp(q.logits.neg()) - _log1p_exp(p.logits.neg()))
    on = _zero_where(_inf_where(on, q.probs.eq(0)), p.probs.eq(0))
    off = (1 - p.probs) * (_log1p_exp(q.logits) - _log1p_exp(p.logits))
    off = _zero_where(_inf_where(off, q.probs.eq(1)), p.probs.eq(1))
    return on + off


def _categorical_kl(pp, pl, qp, ql):
    terms = pp * (pl - ql)
    terms = _inf_where(terms, qp.eq(0).expand_as(terms))
    return _zero_where(terms, pp.eq(0).expand_as(terms)).sum(-1)


def _categorical_pair(p, q):
    return _categorical_kl(p.probs, p.logits, q.probs, q.logits)


def _onehotcategorical_pair(p, q):
    return _categorical_kl(p.probs, p.logits, q.probs, q.logits)


def _binomial_pair(p, q):
    # only the equal-count case has a closed form; fewer trials in q gives infinity
    if bool(p.total_count.lt(q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not "
                                  "implemented")
    per_trial = p.probs * (p.logits - q.logits) + p.probs.neg().log1p() - q.probs.neg().log1p()
    return _inf_where(p.total_count * per_trial, p.total_count.gt(q.total_count))


def _poisson_pair(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) + q.rate - p.rate


def _exponential_pair(p, q):
    r = q.rate / p.rate
    return r - r.log() - 1


def _gamma_pair(p, q):
    a, b, c, d = p.concentration, p.rate, q.concentration, q.rate
    return (c * (b / d).log() + c.lgamma() - a.lgamma() + (a - c) * a.digamma()
            + (d - b) * a / b)


def _beta_pair(p, q):
    a1, b1, a2, b2 = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    s1, s2 = a1 + b1, a2 + b2
    log_norms = (a2.lgamma() + b2.lgamma() - s2.lgamma()) - (a1.lgamma() + b1.lgamma() - s1.lgamma())
    return (log_norms + (a1 - a2) * a1.digamma() + (b1 - b2) * b1.digamma()
            + (s2 - s1) * s1.digamma())


def _dirichlet_pair(p, q):
    a, b = p.concentration, q.concentration
    a0, b0 = a.sum(-1), b.sum(-1)
    expected_log = a.digamma() - a0.digamma().unsqueeze(-1)
    return (a0.lgamma() - b0.lgamma() + (b.lgamma() - a.lgamma()).sum(-1)
            + ((a - b) * expected_log).sum(-1))


def _laplace_pair(p, q):
    gap = (p.loc - q.loc).abs()
    r = p.scale / q.scale
    return gap / q.scale + r * (gap / p.scale).neg().exp() - r.log() - 1


def _uniform_pair(p, q):
    value = ((q.high - q.low) / (p.high - p.low)).log()
    return _inf_where(value, q.low.gt(p.low).logical_or(q.high.lt(p.high)))


def _multivariatenormal_pair(p, q):
    if tuple(p.event_shape) != tuple(q.event_shape):
        raise ValueError("KL-divergence between two Multivariate Normals with different event "
                         "shapes cannot be computed")
    n = p.event_shape[0]
    Lp, Lq, diff = p.scale_tril, q.scale_tril, q.loc - p.loc
    batch = tuple(_bshape(tuple(Lp.shape[:-2]), tuple(Lq.shape[:-2]), tuple(diff.shape[:-1])))
    Lq = Lq.expand(batch + (n, n))
    log_det_ratio = (Lq.diagonal(0, -2, -1).log().sum(-1)
                     - Lp.diagonal(0, -2, -1).log().sum(-1))
    trace = linalg.solve_triangular(Lq, Lp.expand(batch + (n, n)), upper=False).pow(2).sum((-2, -1))
    maha = linalg.solve_triangular(Lq, diff.expand(batch + (n,)).unsqueeze(-1), upper=False)
    return log_det_ratio + (trace + maha.squeeze(-1).pow(2).sum(-1) - n) * 0.5


def _independent_pair(p, q):
    k = p.reinterpreted_batch_ndims
    if q.reinterpreted_batch_ndims != k:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), k)


def _transformeddistribution_pair(p, q):
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)  # equal bijections cancel


# ----------------------------------------------------------------------------- mixed families

def _uniform_normal(p, q):
    width = p.high - p.low
    mid_gap = (p.high + p.low) / 2 - q.loc
    log_ratio = (q.scale * math.sqrt(2 * math.pi) / width).log()
    return log_ratio + (width.pow(2) / 12 + mid_gap.pow(2)) / (2 * q.scale.pow(2))


def _uniform_gamma(p, q):
    width = p.high - p.low
    k, r = q.concentration, q.rate
    mean_log_x = (p.high.xlogy(p.high) - p.low.xlogy(p.low)) / width - 1
    value = (k.lgamma() - k * r.log() - width.log() + (1 - k) * mean_log_x
             + r * (p.high + p.low) / 2)
    return _inf_where(value, p.low.lt(0))


def _exponential_gamma(p, q):
    k = q.concentration
    r = q.rate / p.rate
    return r - k * r.log() + k.lgamma() + k * _EULER - (1 + _EULER)


def _gamma_exponential(p, q):
    return q.rate * p.mean - q.rate.log() - p.entropy()


def _beta_uniform(p, q):
    value = (q.high - q.low).log() - p.entropy()
    return _inf_where(value, q.low.gt(0).logical_or(q.high.lt(1)))


def _normal_laplace(p, q):
    d = p.loc - q.loc
    s = p.scale
    # E_p|x - m_q| for a normal p: s*sqrt(2/pi)*exp(-d^2/2s^2) + d*erf(d/(s*sqrt 2))
    mean_abs = (s * math.sqrt(2 / math.pi) * (d / s).pow(2).mul(-0.5).exp()
                + d * (d / (s * math.sqrt(2))).erf())
    return mean_abs / q.scale - (s / q.scale).log() - 0.5 * (1 + math.log(0.5 * math.pi))


# registration table: (type of p, type of q, function)
for _tp, _tq, _fn in [
        (Normal, Normal, _normal_pair),
        (Bernoulli, Bernoulli, _bernoulli_pair),
        (Categorical, Categorical, _categorical_pair),
        (OneHotCategorical, OneHotCategorical, _onehotcategorical_pair),
        (Binomial, Binomial, _binomial_pair),
        (Poisson, Poisson, _poisson_pair),
        (Exponential, Exponential, _exponential_pair),
        (Gamma, Gamma, _gamma_pair),
        (Beta, Beta, _beta_pair),
        (Dirichlet, Dirichlet, _dirichlet_pair),
        (Laplace, Laplace, _laplace_pair),
        (Uniform, Uniform, _uniform_pair),
        (MultivariateNormal, MultivariateNormal, _multivariatenormal_pair),
        (Independent, Independent, _independent_pair),
        (TransformedDistribution, TransformedDistribution, _transformeddistribution_pair),
        (Uniform, Normal, _uniform_normal),
        (Uniform, Gamma, _uniform_gamma),
        (Exponential, Gamma, _exponential_gamma),
        (Gamma, Exponential, _gamma_exponential),
        (Beta, Uniform, _beta_uniform),
        (Normal, Laplace, _normal_laplace),
]:
    register_kl(_tp, _tq)(_fn)
del _tp, _tq, _fn
