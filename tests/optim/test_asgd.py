"""ASGD against torch: float64, identical injected gradients, 200 steps, params and state within
1e-10 at every 10th step, for the defaults, every option and every pair of options."""
from __future__ import annotations

import numpy as np

from tests.optim._common import standard_suite

NAME = "ASGD"
OPTIONS = dict(lr=np.array(0.05), lambd=1e-2, alpha=0.6, t0=20.0, weight_decay=0.1, maximize=True, foreach=True)
BASE = dict(t0=20.0)
INVALID = [
    (dict(lr=-1.0), 'Invalid learning rate: -1.0'),
    (dict(weight_decay=-1.0), 'Invalid weight_decay value: -1.0'),
]

globals().update(standard_suite(NAME, OPTIONS, BASE, INVALID))
