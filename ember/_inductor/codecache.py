"""The kernel cache: generated source on disk, loaded as real modules so Numba's own cache works.

A kernel module's source is written once to ``<cache>/kernels/<versions>/k_<sha256[:16]>.py`` (temp
file + ``os.replace``, so concurrent processes never read half a file), where ``<versions>`` names
Python, Numba and the codegen version. It is imported under a unique name registered in
``sys.modules`` *before* it runs, which Numba's ``cache=True`` needs to find the module again in
the next process; its compiled machine code then lands in the ``__pycache__`` next to it. An
in-memory map from source hash to module makes identical kernels load once per process.

``numba_available()`` is False when Numba cannot be imported (or ``config.use_numba`` is off); the
generated NumPy variant of each kernel then runs.

Example:
    >>> mod = load_source("def f(x):\\n    return x + 1\\n")
    >>> mod.f(1)
    2
"""
from __future__ import annotations

import gc
import hashlib
import importlib.util
import marshal
import os
import sys
import tempfile
import warnings

from . import config

CODEGEN_VERSION = "1"
_MODULES: dict = {}
_NUMBA = []
# counters the tests and benchmarks read (torch has torch._inductor.metrics)
stats = {"modules_written": 0, "modules_loaded": 0, "numba_fallbacks": 0, "quick_loads": 0}


def numba_available() -> bool:
    """Whether generated kernels compile with Numba in this process."""
    if not config.use_numba:
        return False
    if not _NUMBA:
        try:
            import numba  # noqa: F401  (optional at run time: NumPy code runs without it)
            _NUMBA.append(True)
        except ImportError:
            _NUMBA.append(False)
    return _NUMBA[0]


def _version_tag() -> str:
    py = f"py{sys.version_info[0]}{sys.version_info[1]}"
    nb = "nonumba"
    if numba_available():
        import numba
        nb = "numba" + numba.__version__
    return f"{py}-{nb}-ember-codegen-v{CODEGEN_VERSION}"


def kernel_dir() -> str:
    """The directory holding this process's kernel files (created on demand)."""
    d = os.path.join(config.get_cache_dir(), "kernels", _version_tag())
    os.makedirs(d, exist_ok=True)
    return d


def source_key(src: str) -> str:
    """The hash naming a kernel module: its source and the versions it was generated for."""
    return hashlib.sha256((_version_tag() + "\n" + src).encode()).hexdigest()[:16]


def _write_atomic(path: str, src) -> None:
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
    try:
        with os.fdopen(fd, "wb" if isinstance(src, bytes) else "w") as f:
            f.write(src)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _code_object(path: str, src: str):
    """The compiled ``src`` of the kernel file ``path``, kept next to it as ``.code`` (marshal;
    behind the interpreter's bytecode magic number), so a warm start compiles no kernel source even
    under ``PYTHONDONTWRITEBYTECODE`` (which stops the import system's own ``.pyc`` files)."""
    cpath, magic = path[:-3] + ".code", importlib.util.MAGIC_NUMBER
    try:
        with open(cpath, "rb") as f:
            data = f.read()
        if data[:len(magic)] == magic:
            return marshal.loads(data[len(magic):])
    except (OSError, ValueError, EOFError, TypeError):
        pass
    code = compile(src, path, "exec")
    try:
        _write_atomic(cpath, magic + marshal.dumps(code))
    except OSError:
        pass
    return code


def load_source(src: str):
    """The module holding ``src`` (written to the cache when new, imported once per process)."""
    key = source_key(src)
    mod = _MODULES.get(key)
    if mod is not None:
        return mod
    path = os.path.join(kernel_dir(), f"k_{key}.py")
    if not os.path.exists(path):
        _write_atomic(path, src)
        stats["modules_written"] += 1
    name = f"ember_kernels.k_{key}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # before exec: Numba's cache locates the module by name
    try:
        exec(_code_object(path, src), mod.__dict__)  # noqa: S102  (our generated kernel)
    except BaseException:
        del sys.modules[name]
        raise
    stats["modules_loaded"] += 1
    _MODULES[key] = mod
    if config.quick_load and sys.modules.get("numba") is not None:
        for v in list(mod.__dict__.values()):
            quick_loading(v)
    return mod


_QUICK: list = []  # [True] once Numba's runtime is set up for quick loads; [False]: off


def quick_loading(disp) -> bool:
    """Let the Numba dispatcher ``disp`` (``cache=True``) load machine code from the disk cache
    *without* Numba's full target refresh; True when installed.

    Numba refreshes its target context before every cache lookup; the first refresh in a process
    imports every implementation registry (and SciPy's linalg for BLAS): ~0.35 s of CPU here,
    although loading cached machine code needs only the runtime (NRT) and the C helpers, set up
    when the context is created. The dispatcher's own cache object gets a ``load_overload`` that
    loads without the refresh; on a miss (or any error: Numba internals changed) it calls Numba's
    original method, which refreshes and so prepares the compilation that follows. Only ember's
    own dispatchers are touched; Numba itself is not patched.
    """
    cache = getattr(disp, "_cache", None)
    if cache is None or not hasattr(cache, "_cache_file") or "load_overload" in vars(cache):
        return False
    original = cache.load_overload

    def load_overload(sig, target_context):
        cres = None
        if not _QUICK or _QUICK[0]:
            try:
                if not _QUICK:
                    from numba.core.runtime import rtsys
                    rtsys.initialize(target_context)
                    _QUICK.append(True)
                with cache._guard_against_spurious_io_errors():
                    cres = cache._load_overload(sig, target_context)
            except Exception as e:  # noqa: BLE001
                _QUICK[:] = [False]
                warnings.warn(f"ember._inductor: quick loading of cached kernels is off "
                              f"({type(e).__name__}: {e}); Numba's own cache path runs",
                              RuntimeWarning, stacklevel=2)
        if cres is None:
            return original(sig, target_context)
        stats["quick_loads"] += 1
        return cres
    cache.load_overload = load_overload
    return True


def quick_load_eager_kernels() -> None:
    """``quick_loading`` for the Numba kernels of ember's eager ops (layer norm, ...), which a
    compiled graph may call as externs."""
    if not config.quick_load or not numba_available():
        return
    import importlib
    for name in ("ember._primitives._nn_kernels", "ember._quantized._int8_kernels"):
        mod = sys.modules.get(name)
        if mod is None and name.endswith("_nn_kernels"):
            mod = importlib.import_module(name)
        for v in list(vars(mod).values()) if mod is not None else ():
            quick_loading(v)


class Kernel:
    """A generated kernel: the Numba function, and the NumPy function run when Numba is missing or
    the Numba one fails to compile (one warning, then NumPy for that kernel). The NumPy module is
    loaded only when it runs (one module import less per kernel on the Numba path)."""

    __slots__ = ("name", "fn", "numba_fn", "_numpy_fn", "source", "numpy_source", "key",
                 "arg_types")

    def __init__(self, name: str, numba_fn, numpy_fn, source: str, numpy_source: str | None = None,
                 key: str | None = None) -> None:
        self.name, self.numba_fn, self._numpy_fn, self.source = name, numba_fn, numpy_fn, source
        self.numpy_source = numpy_source
        self.key = key            # the Numba module's source key (``source_key``)
        self.arg_types = None     # predicted argument types (compile workers), or None
        self.fn = self._first if numba_fn is not None else self.numpy_fn

    @property
    def numpy_fn(self):
        if self._numpy_fn is None:
            self._numpy_fn = load_source(self.numpy_source).__dict__[self.name]
        return self._numpy_fn

    def _first(self, *args):
        hook = claim_hook
        if hook is not None:
            hook(self)  # a compile worker may be building (or have built) this kernel
        paused = gc.isenabled()
        if paused:  # Numba's compilation allocates many objects: no collections meanwhile
            gc.disable()
        try:
            out = self.numba_fn(*args)
        except Exception as e:  # a typing/lowering error of this kernel only
            if not _is_numba_error(e):
                raise
            warnings.warn(f"ember._inductor: Numba could not compile kernel {self.name} "
                          f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}); "
                          "running its NumPy version", RuntimeWarning, stacklevel=3)
            stats["numba_fallbacks"] += 1
            self.fn = self.numpy_fn
            return self.fn(*args)
        finally:
            if paused:
                gc.enable()
        self.fn = self.numba_fn
        return out

    def __call__(self, *args):
        return self.fn(*args)

    def compiled_from_cache(self) -> tuple:
        """(cache hits, cache misses) of the Numba dispatcher (misses = compilations)."""
        st = getattr(self.numba_fn, "stats", None)
        if st is None:
            return (0, 0)
        return (sum(st.cache_hits.values()), sum(st.cache_misses.values()))

    def needs_compile(self) -> bool:
        """Whether this kernel's Numba code is neither compiled in this process nor in the disk
        cache (no index file next to its module)."""
        if self.numba_fn is None or self.fn != self._first or self.numba_fn.overloads:
            return False
        d = getattr(getattr(self.numba_fn, "_cache", None), "_cache_path", None) or \
            os.path.join(kernel_dir(), "__pycache__")  # Numba's own choice (NUMBA_CACHE_DIR)
        stem = f"k_{self.key}.{self.name}-"
        try:
            return not any(f.startswith(stem) and f.endswith(".nbi") for f in os.listdir(d))
        except FileNotFoundError:
            return True


# set by ``compile_worker`` while a worker may compile kernels: called with a ``Kernel`` before its
# first (compiling) call; it returns once the kernel is in the disk cache or left to this process
claim_hook = None


def _is_numba_error(e: Exception) -> bool:
    mod = type(e).__module__ or ""
    return mod.startswith("numba") or mod.startswith("llvmlite")


_LOADED: list = []


def load_kernel(name: str, numba_src: str | None, numpy_src: str) -> Kernel:
    """A ``Kernel`` from the two generated sources (each defines a function called ``name``)."""
    if numba_src is not None and numba_available():
        mod = load_source(numba_src)
        k = Kernel(name, mod.__dict__[name], None, numba_src, numpy_src,
                   key=mod.__name__.rsplit("k_", 1)[1])
    else:
        k = Kernel(name, None, load_source(numpy_src).__dict__[name], numpy_src, numpy_src)
    _LOADED.append(k)
    return k


def numba_cache_stats() -> dict:
    """Over every Numba kernel loaded in this process: ``hits`` (machine code loaded from the disk
    cache) and ``misses`` (compilations)."""
    seen, hits, misses = set(), 0, 0
    for k in _LOADED:
        if k.numba_fn is None or id(k.numba_fn) in seen:
            continue
        seen.add(id(k.numba_fn))
        h, m = k.compiled_from_cache()
        hits, misses = hits + h, misses + m
    return {"hits": hits, "misses": misses}
