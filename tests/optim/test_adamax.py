"""Adamax against torch: float64, identical injected gradients, 200 steps, params and state within
1e-10 at every 10th step, for the defaults, every option and every pair of options."""
from __future__ import annotations

import numpy as np

from tests.optim._common import standard_suite

NAME = "Adamax"
OPTIONS = dict(lr=np.array(0.01), weight_decay=0.1, maximize=True, foreach=True, betas=(0.8, 0.99), eps=1e-3)
BASE = dict(lr=0.01)
INVALID = [
    (dict(lr=-1.0), 'Invalid learning rate: -1.0'),
    (dict(betas=(-0.1, 0.9)), 'Invalid beta parameter at index 0: -0.1'),
]

globals().update(standard_suite(NAME, OPTIONS, BASE, INVALID))
