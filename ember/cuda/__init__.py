"""ember.cuda: the API of torch's CPU-only build (no CUDA device is ever available).

Queries answer as torch's CPU build does (``is_available()`` False, ``device_count()`` 0), seeding
is a no-op, and anything needing a device raises torch's ``AssertionError``.

Example:
    >>> import ember
    >>> ember.cuda.is_available(), ember.cuda.device_count()
    (False, 0)
"""
from __future__ import annotations

__all__ = ["is_available", "device_count", "is_initialized", "init", "manual_seed", "manual_seed_all",
           "seed", "seed_all", "initial_seed", "synchronize", "current_device", "set_device",
           "get_device_name", "get_device_capability", "get_device_properties", "get_rng_state",
           "set_rng_state", "get_rng_state_all", "set_rng_state_all", "empty_cache",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_peak_memory_stats", "is_bf16_supported", "device", "device_of", "stream",
           "current_stream", "default_stream"]

_NOT_COMPILED = "Torch not compiled with CUDA enabled"


def _lazy_fail(*args, **kwargs):
    raise AssertionError(_NOT_COMPILED)


def is_available() -> bool:
    """Always False: ember runs on the CPU."""
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def manual_seed(seed: int) -> None:
    """A no-op, as in torch when CUDA is absent (``ember.manual_seed`` seeds the CPU)."""


def manual_seed_all(seed: int) -> None:
    """A no-op, as in torch when CUDA is absent."""


def seed() -> None:
    pass


def seed_all() -> None:
    pass


def empty_cache() -> None:
    pass


def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def memory_reserved(device=None) -> int:
    return 0


def max_memory_reserved(device=None) -> int:
    return 0


init = synchronize = current_device = set_device = get_device_name = _lazy_fail
get_device_capability = get_device_properties = get_rng_state = set_rng_state = _lazy_fail
get_rng_state_all = set_rng_state_all = initial_seed = reset_peak_memory_stats = _lazy_fail
current_stream = default_stream = _lazy_fail


class device:
    """Context manager selecting a CUDA device; a no-op for ``None`` or a negative index."""

    def __init__(self, device):
        idx = getattr(device, "index", device)
        if isinstance(idx, str):
            idx = int(idx.split(":")[1]) if ":" in idx else 0
        self.idx = -1 if idx is None else idx

    def __enter__(self):
        if self.idx >= 0:
            _lazy_fail()

    def __exit__(self, *exc):
        return False


class device_of(device):
    """Context manager selecting the device of a tensor (no-op for CPU tensors)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if getattr(obj, "is_cuda", False) else -1)


class stream:
    """Context manager selecting a stream; a no-op for ``None``."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:
            _lazy_fail()

    def __exit__(self, *exc):
        return False


def __getattr__(name):
    # ember.cuda.amp sits beside ember.amp (a peer): imported on first use, not with ember.cuda
    if name == "amp":
        import importlib
        return importlib.import_module(".amp", __name__)
    raise AttributeError(f"module 'ember.cuda' has no attribute '{name}'")
