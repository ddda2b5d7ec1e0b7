"""Settings of the kernel generator, read on every compile (torch's ``torch._inductor.config``).

``debug``: print the generated wrapper and kernels (also on with ``EMBER_DEBUG=2``).
``fuse_transcendentals``: ``"auto"`` keeps full-size exp/log/tanh/sigmoid/erf nodes as NumPy ufunc
calls (Numba's versions measured 2.5-6x slower here, no SVML) unless Numba reports SVML; ``True``
fuses them into the Numba kernels; ``False`` never does.
``transcendental_min_numel``: below this many elements a transcendental node fuses anyway (a ufunc
call costs more than the maths).
``use_numba``: ``False`` runs every kernel as generated NumPy code.
``compile_workers``: compile new kernels in a worker process (``None``: on outside pytest with
a spare core; ``EMBER_COMPILE_WORKERS`` overrides); ``worker_min_kernels`` new kernels in one
graph start it; ``compile_worker_timeout`` seconds per kernel before it is killed (the kernel then
compiles in this process); ``compile_worker_idle`` seconds without work before it exits.
``quick_load``: load cached Numba machine code without Numba's full registry refresh
(``codecache._quick_load``).
``cache_dir``: the kernel cache (default ``$EMBER_CACHE``, else ``~/.cache/ember``).

Example:
    >>> from ember._inductor import config
    >>> config.fuse_transcendentals
    'auto'
"""
from __future__ import annotations

import os

debug = int(os.environ.get("EMBER_DEBUG", "0") or 0) >= 2
fuse_transcendentals = "auto"
transcendental_min_numel = 4096
use_numba = True
reuse_buffers = True  # a kernel may write its output into a dead input of the same shape
boundscheck = os.environ.get("EMBER_BOUNDSCHECK", "0") == "1"
compile_workers = None
quick_load = True
worker_min_kernels = 4  # a worker's start-up (Numba import) costs ~4 kernel compilations
compile_worker_timeout = 120.0
compile_worker_idle = 60.0
cache_dir = None  # None: $EMBER_CACHE, else the user cache dir


def get_cache_dir() -> str:
    """The kernel cache root: ``config.cache_dir``, ``$EMBER_CACHE`` or ``~/.cache/ember``."""
    if cache_dir:
        return str(cache_dir)
    env = os.environ.get("EMBER_CACHE")
    if env:
        return env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ember")
