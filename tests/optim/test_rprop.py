"""Rprop against torch: float64, identical injected gradients, 200 steps, params and state within
1e-10 at every 10th step, for the defaults, every option and every pair of options."""
from __future__ import annotations

import numpy as np

from tests.optim._common import standard_suite

NAME = "Rprop"
OPTIONS = dict(lr=np.array(0.05), etas=(0.3, 1.5), step_sizes=(1e-3, 0.2), maximize=True, foreach=True)
BASE = dict()
INVALID = [
    (dict(lr=-1.0), 'Invalid learning rate: -1.0'),
    (dict(etas=(1.5, 2.0)), 'Invalid eta values: 1.5, 2.0'),
]

globals().update(standard_suite(NAME, OPTIONS, BASE, INVALID))
