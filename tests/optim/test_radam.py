"""RAdam against torch: float64, identical injected gradients, 200 steps, params and state within
1e-10 at every 10th step, for the defaults, every option and every pair of options."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
from tests.optim._common import (config_id, pairwise, resume_from_torch, resume_round_trip,
                                 run_compare, tensor_lr_ok)

NAME = "RAdam"
OPTIONS = dict(lr=np.array(0.01), weight_decay=0.1, decoupled_weight_decay=True, maximize=True, foreach=True, betas=(0.8, 0.9), eps=1e-3)
BASE = dict(lr=0.01)
CONFIGS = [c for c in pairwise(OPTIONS) if tensor_lr_ok(c)]


@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_matches_torch(cfg):
    run_compare(NAME, dict(BASE, **cfg))


def test_param_groups_match_torch():
    groups = [([0], dict(lr=0.2)), ([1, 2], dict(foreach=True))]
    run_compare(NAME, BASE, groups=groups, steps=60)


@pytest.mark.parametrize("cfg", [{}, {"foreach": True}], ids=config_id)
def test_resume_from_torch_state_dict(cfg):
    resume_from_torch(NAME, dict(BASE, **cfg))


def test_resume_round_trip():
    resume_round_trip(NAME, BASE)


def test_flags_accepted_and_defaults_match():
    t = getattr(torch.optim, NAME)([torch.zeros(1, requires_grad=True)]).defaults
    e = getattr(ember.optim, NAME)([ember.zeros(1, requires_grad=True)]).defaults
    assert t == e
    flags = {k: True for k in ("capturable", "differentiable") if k in e}
    opt = getattr(ember.optim, NAME)([ember.zeros(1, requires_grad=True)], **flags)
    assert all(opt.param_groups[0][k] is True for k in flags)


@pytest.mark.parametrize("kwargs, msg", [
    (dict(lr=-1.0), 'Invalid learning rate: -1.0'),
    (dict(eps=-1.0), 'Invalid epsilon value: -1.0'),
    (dict(weight_decay=-1.0), 'Invalid weight_decay value: -1.0'),
])
def test_invalid_arguments(kwargs, msg):
    for lib in (torch, ember):
        with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            getattr(lib.optim, NAME)([lib.zeros(2, requires_grad=True)], **kwargs)
