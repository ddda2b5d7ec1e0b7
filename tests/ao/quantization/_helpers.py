"""Shared test helpers: build the same model in torch and ember with identical weights."""
import io

import numpy as np
import torch

import ember


def copy_weights(tmodel, emodel):
    """Load torch's float state_dict into the ember twin (via a real torch checkpoint)."""
    buf = io.BytesIO()
    torch.save(tmodel.state_dict(), buf)
    buf.seek(0)
    emodel.load_state_dict(ember.load(buf, weights_only=True))


def to_torch(obj):
    buf = io.BytesIO()
    ember.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, weights_only=True)


def to_ember(obj, weights_only=True):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return ember.load(buf, weights_only=weights_only)


def inputs(shape, seed=0, scale=1.0):
    x = (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)
    return torch.from_numpy(x.copy()), ember.from_numpy(x.copy())
