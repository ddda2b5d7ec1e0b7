"""Distribution samplers (layer L2): ``poisson``, ``binomial``, ``_standard_gamma`` (differentiable
by implicit reparameterisation) and ``_sample_dirichlet`` (normalised gammas, so it is differentiable
too); every call honours ``generator=``.

Example:
    >>> import ember
    >>> g = ember.Generator().manual_seed(0)
    >>> ember.poisson(ember.full((3,), 4.), generator=g).shape
    torch.Size([3])
"""
from __future__ import annotations

from .._dispatch import dispatch
from .._primitives import random_dist as RD
from ..overrides import public
from ..random import default_generator

__all__ = ["FUNCTIONS"]


def _gen(generator):
    return default_generator if generator is None else generator


@public
def poisson(input, generator=None):
    """Poisson samples with rates ``input`` (same shape and dtype)."""
    return dispatch(RD.poisson, input, generator=_gen(generator))


@public
def binomial(count, prob, generator=None):
    """Binomial samples: successes in ``count`` trials of probability ``prob`` (broadcast)."""
    return dispatch(RD.binomial, count, prob, generator=_gen(generator))


@public
def _standard_gamma(input, generator=None):
    """Gamma(``input``, 1) samples; the gradient flows to ``input`` (reparameterised)."""
    return dispatch(RD.standard_gamma, input, generator=_gen(generator))


@public
def _standard_gamma_grad(input, output):
    """``d output / d input`` of ``_standard_gamma`` samples."""
    return dispatch(RD.standard_gamma_grad, input, output)


@public
def _sample_dirichlet(input, generator=None):
    """Dirichlet samples over the last dim: gammas normalised to sum to one."""
    g = _standard_gamma(input, generator)
    return g / g.sum(-1, keepdim=True)


FUNCTIONS = dict(poisson=poisson, binomial=binomial, _standard_gamma=_standard_gamma,
                 _standard_gamma_grad=_standard_gamma_grad, _sample_dirichlet=_sample_dirichlet)
