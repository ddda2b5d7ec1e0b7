"""Adadelta against torch: float64, identical injected gradients, 200 steps, params and state within
1e-10 at every 10th step, for the defaults, every option and every pair of options."""
from __future__ import annotations

import numpy as np

from tests.optim._common import standard_suite

NAME = "Adadelta"
OPTIONS = dict(lr=np.array(0.5), rho=0.8, eps=1e-3, weight_decay=0.1, maximize=True, foreach=True)
BASE = dict()
INVALID = [
    (dict(lr=-1.0), 'Invalid learning rate: -1.0'),
    (dict(rho=1.5), 'Invalid rho value: 1.5'),
]

globals().update(standard_suite(NAME, OPTIONS, BASE, INVALID))
