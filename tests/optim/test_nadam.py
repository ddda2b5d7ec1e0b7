"""NAdam against torch: float64, identical injected gradients, 200 steps, params and state within
1e-10 at every 10th step, for the defaults, every option and every pair of options."""
from __future__ import annotations

import numpy as np

from tests.optim._common import standard_suite

NAME = "NAdam"
OPTIONS = dict(lr=np.array(0.01), weight_decay=0.1, momentum_decay=0.01, decoupled_weight_decay=True, maximize=True, foreach=True, betas=(0.8, 0.99))
BASE = dict(lr=0.01)
INVALID = [
    (dict(lr=-1.0), 'Invalid learning rate: -1.0'),
    (dict(momentum_decay=-0.1), 'Invalid momentum_decay value: -0.1'),
    (dict(betas=(0.9, 1.0)), 'Invalid beta parameter at index 1: 1.0'),
]

globals().update(standard_suite(NAME, OPTIONS, BASE, INVALID))
