"""Random number generators (layer L2): ``Generator``, the default generator, ``manual_seed``,
``fork_rng``.

A generator draws from NumPy's Philox, a counter-based bit generator, so its whole state is a pair
``(seed, offset)``: the Philox key is the seed and the counter is the offset. Restoring a state, forking
a stream per DataLoader worker or replaying a draw for recomputation only needs those two numbers.
Streams are not torch's numbers; statistics and reproducibility are what tests check.

Example:
    >>> import ember
    >>> g = ember.Generator().manual_seed(0)
    >>> a = ember.rand(3, generator=g)
    >>> s = g.get_state()
    >>> b = ember.rand(3, generator=g)
    >>> bool((ember.rand(3, generator=g.set_state(s)) == b).all())
    True
"""
from __future__ import annotations

import contextlib
import os

import numpy as np

from . import _dtype as D
from ._device import device as Device
from ._dispatch import wrap
from ._tensor_base import TensorBase

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "fork_rng", "thread_safe_generator"]

_MASK = (1 << 64) - 1
_DEFAULT_SEED = 67280421310721  # torch's seed for a fresh Generator()
_STATE_BYTES = 16               # uint64 seed, uint64 offset (little-endian)


def _seed_value(seed) -> int:
    """torch's range check: anything in [-2**63, 2**64) wraps to an unsigned 64-bit seed."""
    seed = int(seed)
    if not -(1 << 63) <= seed <= _MASK:
        raise ValueError("Overflow when unpacking long long")
    return seed & _MASK


def _nondeterministic_seed() -> int:
    return int.from_bytes(os.urandom(8), "little") & ((1 << 63) - 1)


class Generator:
    """A random stream: ``Generator(device='cpu')``; pass it as ``generator=`` to random ops."""

    __slots__ = ("_seed", "_bits", "_rng", "_device", "__weakref__")

    def __init__(self, device="cpu"):
        dev = Device(device)
        if dev.type == "cuda":
            raise RuntimeError("Cannot get CUDA generator without ATen_cuda library.")
        if dev.type != "cpu":
            raise RuntimeError(f"{dev.type.upper()} device type not an accelerator.")
        self._device = dev
        self._reset(_DEFAULT_SEED, 0)

    def _reset(self, seed: int, offset: int) -> None:
        self._seed = seed
        self._bits = np.random.Philox(key=np.array([seed, 0], np.uint64),
                                      counter=np.array([offset & _MASK, offset >> 64, 0, 0], np.uint64))
        self._rng = np.random.Generator(self._bits)

    def _numpy_generator(self) -> np.random.Generator:
        """The NumPy Generator kernels draw from (every draw advances the Philox counter)."""
        return self._rng

    @property
    def device(self) -> Device:
        return self._device

    def manual_seed(self, seed) -> "Generator":
        """Seed the stream and rewind it to offset 0; returns self."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        self._reset(_seed_value(seed), 0)
        return self

    def seed(self) -> int:
        """Seed from the OS's entropy and return the seed."""
        s = _nondeterministic_seed()
        self._reset(s, 0)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_offset(self) -> int:
        """Philox blocks consumed so far; a partly used block counts as consumed (see ``get_state``)."""
        st = self._bits.state
        c = st["state"]["counter"]
        offset = int(c[0]) | (int(c[1]) << 64)
        if st["buffer_pos"] != 4 or st["has_uint32"]:
            # drop the unread rest of the current block so the stream from here on is exactly what
            # (seed, offset) replays
            self._reset(self._seed, offset)
        return offset

    def set_offset(self, offset: int) -> "Generator":
        self._reset(self._seed, int(offset))
        return self

    def get_state(self) -> "TensorBase":
        """The state as a uint8 tensor (seed and offset, 16 bytes)."""
        offset = self.get_offset()
        raw = np.array([self._seed, offset & _MASK], dtype="<u8").view(np.uint8).copy()
        return wrap(raw, D.uint8)

    def set_state(self, new_state) -> "Generator":
        """Restore a state from ``get_state``; returns self."""
        if not isinstance(new_state, TensorBase) or new_state.dtype is not D.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = np.ascontiguousarray(new_state.detach().numpy()).reshape(-1)
        if raw.size != _STATE_BYTES:
            raise RuntimeError(f"Expected a PhiloxGeneratorState of size {_STATE_BYTES} but found the "
                               f"input RNG state size to be {raw.size}")
        seed, offset = (int(v) for v in raw.view("<u8"))
        self._reset(seed, offset)
        return self

    def clone_state(self) -> "Generator":
        g = Generator(self._device)
        g._reset(self._seed, self.get_offset())
        return g

    def __getstate__(self):
        return {"seed": self._seed, "offset": self.get_offset(), "device": str(self._device)}

    def __setstate__(self, state):
        self._device = Device(state["device"])
        self._reset(state["seed"], state["offset"])

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {hex(id(self))}>"


default_generator = Generator()
default_generator.seed()  # torch seeds its default generator nondeterministically at startup


def manual_seed(seed) -> Generator:
    """Seed the default generator (``ember.manual_seed(0)``); returns it."""
    return default_generator.manual_seed(_seed_value(seed))


def seed() -> int:
    """Seed the default generator from the OS's entropy; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> "TensorBase":
    """The default generator's state as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type=None):
    """Run the ``with`` block, then put the default generator's state back as it was.

    Example:
        >>> import ember
        >>> before = ember.get_rng_state()
        >>> with ember.random.fork_rng():
        ...     _ = ember.rand(4)
        >>> bool((ember.get_rng_state() == before).all())
        True
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def thread_safe_generator() -> "Generator | None":
    """The generator a DataLoader thread worker should draw from, or None (use the global one).

    torch returns a thread-local generator inside its DataLoader thread workers and None in the
    main process and in process workers; ember's workers are processes, so this is always None.

    Example:
        >>> thread_safe_generator() is None
        True
    """
    return None
