"""RAdam against torch: float64, identical injected gradients, 200 steps, params and state within
1e-10 at every 10th step, for the defaults, every option and every pair of options."""
from __future__ import annotations

import numpy as np

from tests.optim._common import standard_suite

NAME = "RAdam"
OPTIONS = dict(lr=np.array(0.01), weight_decay=0.1, decoupled_weight_decay=True, maximize=True, foreach=True, betas=(0.8, 0.9), eps=1e-3)
BASE = dict(lr=0.01)
INVALID = [
    (dict(lr=-1.0), 'Invalid learning rate: -1.0'),
    (dict(eps=-1.0), 'Invalid epsilon value: -1.0'),
    (dict(weight_decay=-1.0), 'Invalid weight_decay value: -1.0'),
]

globals().update(standard_suite(NAME, OPTIONS, BASE, INVALID))
