"""RMSprop against torch: float64, identical injected gradients, 200 steps, params and state within
1e-10 at every 10th step, for the defaults, every option and every pair of options."""
from __future__ import annotations

import numpy as np

from tests.optim._common import standard_suite

NAME = "RMSprop"
OPTIONS = dict(lr=np.array(0.01), alpha=0.9, eps=1e-3, weight_decay=0.1, momentum=0.9, centered=True, maximize=True, foreach=True)
BASE = dict()
INVALID = [
    (dict(lr=-1.0), 'Invalid learning rate: -1.0'),
    (dict(momentum=-1.0), 'Invalid momentum value: -1.0'),
    (dict(alpha=-1.0), 'Invalid alpha value: -1.0'),
]

globals().update(standard_suite(NAME, OPTIONS, BASE, INVALID))
