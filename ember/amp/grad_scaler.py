"""GradScaler: loss scaling for float16 training, with torch's state machine and update rule.

``scale(loss)`` multiplies by the scale; ``step(opt)`` unscales the gradients (once per optimizer per
iteration), skips ``opt.step()`` when any gradient is inf/NaN; ``update()`` halves the scale after a
skipped step and doubles it after ``growth_interval`` clean ones.

Example:
    >>> import ember
    >>> scaler = ember.amp.GradScaler("cpu", init_scale=4.0)
    >>> scaler.scale(ember.tensor(1.5))
    tensor(6.)
"""
from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Iterable
from enum import Enum

import numpy as np

from .. import _dtype as D
from .._creation import full
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    """Where one optimizer is within the current iteration."""
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _blank_record() -> dict:
    # per-optimizer bookkeeping, keyed like torch's so code poking at it keeps working
    return {"stage": OptState.READY, "found_inf_per_device": {}}


_NOT_SCALED_HINT = ("This may indicate your script did not use scaler.scale(loss or outputs) "
                    "earlier in the iteration.")
_BAD_NEW_SCALE = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                  "torch.FloatTensor with requires_grad=False.")


class GradScaler:
    """Dynamic loss scaler (``device`` 'cpu'; 'cuda' warns and disables itself, as torch's CPU build)."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True):
        self._device = device
        self._enabled = enabled
        if enabled and device == "cuda":
            self._enabled = False
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
        if not self._enabled:
            return
        if not growth_factor > 1.0:
            raise AssertionError("The growth factor must be > 1.0.")
        if not backoff_factor < 1.0:
            raise AssertionError("The backoff factor must be < 1.0.")
        # scale and growth tracker are tensors created on first use of scale()
        self._scale = self._growth_tracker = None
        self._init_scale, self._init_growth_tracker = init_scale, 0
        self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
        self._growth_interval = growth_interval
        self._reset_records()

    def _reset_records(self) -> None:
        self._per_optimizer_states = defaultdict(_blank_record)

    def _require_started(self, action: str):
        for attr in ("_scale", "_growth_tracker"):
            if getattr(self, attr) is None:
                raise AssertionError(f"Attempted {action} but {attr} is None.  {_NOT_SCALED_HINT}")
        return self._scale, self._growth_tracker

    def scale(self, outputs):
        """Multiply a tensor (or an iterable of tensors) by the scale factor."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = full((), self._init_scale, dtype=D.float32)
            self._growth_tracker = full((), self._init_growth_tracker, dtype=D.int32)
        factor = self._scale

        def scaled(item):
            if isinstance(item, Tensor):
                return item * factor
            if not isinstance(item, Iterable):
                raise ValueError("outputs must be a Tensor or an iterable of Tensors")
            lazy = map(scaled, item)
            return type(item)(lazy) if isinstance(item, (list, tuple)) else lazy
        return scaled(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        grads = [p.grad for g in optimizer.param_groups for p in g["params"] if p.grad is not None]
        with no_grad():
            for grad in grads:
                if grad.dtype is D.float16 and not allow_fp16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                if not bool(grad.isfinite().all()):
                    found_inf.fill_(1.0)
                grad.mul_(inv_scale.to(grad.dtype))
        return {"cpu": found_inf}

    def unscale_(self, optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale and record whether any is inf/NaN."""
        if not self._enabled:
            return
        self._require_started("unscale_")
        record = self._per_optimizer_states[id(optimizer)]
        stage = record["stage"]
        if stage is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last "
                               "update().")
        if stage is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # the reciprocal is taken in double precision, then rounded once to float32
        inverse = self._scale.double().reciprocal().float()
        flag = full((), 0.0, dtype=D.float32)
        record["found_inf_per_device"] = self._unscale_grads_(optimizer, inverse, flag, False)
        record["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscale (unless done) and call ``optimizer.step`` unless a gradient was inf/NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._require_started("step")
        record = self._per_optimizer_states[id(optimizer)]
        if record["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if record["stage"] is OptState.READY:
            self.unscale_(optimizer)
        flags = record["found_inf_per_device"]
        if not flags:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        skipped = any(f.item() for f in flags.values())
        outcome = None if skipped else optimizer.step(*args, **kwargs)
        record["stage"] = OptState.STEPPED
        return outcome

    def _grow_or_back_off(self, scale, tracker, saw_inf: bool) -> None:
        if saw_inf:
            scale.mul_(self._backoff_factor)
            tracker.fill_(0)
            return
        streak = int(tracker.item()) + 1
        if streak < self._growth_interval:
            tracker.fill_(streak)
            return
        # product formed in float32 like the scale itself; an overflow keeps the old scale
        grown = np.float32(scale.item()) * np.float32(self._growth_factor)
        if math.isfinite(grown):
            scale.fill_(float(grown))
        tracker.fill_(0)

    def update(self, new_scale=None) -> None:
        """Back off after a skipped step, grow after ``growth_interval`` clean steps, or set ``new_scale``."""
        if not self._enabled:
            return
        scale, tracker = self._require_started("update")
        if new_scale is None:
            flags = [f for rec in self._per_optimizer_states.values()
                     for f in rec["found_inf_per_device"].values()]
            if not flags:
                raise AssertionError("No inf checks were recorded prior to update.")
            self._grow_or_back_off(scale, tracker, any(f.item() for f in flags))
        elif isinstance(new_scale, float):
            scale.fill_(new_scale)
        else:
            if new_scale.requires_grad or new_scale.numel() != 1:
                raise AssertionError(_BAD_NEW_SCALE)
            scale.copy_(new_scale.reshape(()))
        self._reset_records()

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        live = self._growth_tracker
        return self._init_growth_tracker if live is None else int(live.item())

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return dict(scale=self.get_scale(), growth_factor=self._growth_factor,
                    backoff_factor=self._backoff_factor, growth_interval=self._growth_interval,
                    _growth_tracker=self._get_growth_tracker())

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if not state_dict:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        saved_scale, saved_tracker = state_dict["scale"], state_dict["_growth_tracker"]
        self._init_scale, self._init_growth_tracker = float(saved_scale), int(saved_tracker)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        # live tensors (if scale() already ran) take the values in place
        if self._scale is not None:
            self._scale.fill_(saved_scale)
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(saved_tracker)

    def __getstate__(self):
        snapshot = dict(vars(self))
        if self._enabled:
            if self._per_optimizer_states:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning of an "
                                     "iteration, or at the end after scaler.update().")
            snapshot["_per_optimizer_states"] = {}  # per-iteration records never travel
        return snapshot

    def __setstate__(self, state):
        vars(self).update(state)
        if self._enabled:
            self._reset_records()


class _DeprecatedDeviceGradScaler(GradScaler):
    """Base of torch's deprecated ``torch.<device>.amp.GradScaler`` aliases: warns, then builds a
    ``GradScaler(_device, ...)``. Subclasses set ``_device``."""

    _device = "cpu"

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True):
        device = self._device
        warnings.warn(f"`torch.{device}.amp.GradScaler(args...)` is deprecated. Please use "
                      f"`torch.amp.GradScaler('{device}', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__(device, init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
