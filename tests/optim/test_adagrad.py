"""Adagrad against torch: float64, identical injected gradients, 200 steps, params and state within
1e-10 at every 10th step, for the defaults, every option and every pair of options."""
from __future__ import annotations

import numpy as np

from tests.optim._common import standard_suite

NAME = "Adagrad"
OPTIONS = dict(lr=np.array(0.05), lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5, eps=1e-3, maximize=True, foreach=True)
BASE = dict(lr=0.05)
INVALID = [
    (dict(lr=-1.0), 'Invalid learning rate: -1.0'),
    (dict(lr_decay=-1.0), 'Invalid lr_decay value: -1.0'),
    (dict(initial_accumulator_value=-1.0), 'Invalid initial_accumulator_value value: -1.0'),
]

globals().update(standard_suite(NAME, OPTIONS, BASE, INVALID))
