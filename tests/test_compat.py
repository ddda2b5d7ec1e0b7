"""Compatibility shims: ember.cuda / accelerator / backends / threads behave as torch's CPU build."""
from __future__ import annotations

import subprocess
import sys

import pytest
import torch

import ember


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 - comparing the exception itself
        return type(e).__name__, str(e)


@pytest.mark.parametrize("expr", [
    "cuda.is_available()", "cuda.device_count()", "cuda.is_initialized()", "cuda.manual_seed(1)",
    "cuda.manual_seed_all(1)", "cuda.synchronize()", "cuda.current_device()", "cuda.get_device_name()",
    "cuda.get_device_capability()", "cuda.get_rng_state()", "cuda.empty_cache()",
    "cuda.memory_allocated()", "cuda.max_memory_allocated()", "cuda.is_bf16_supported()",
    "accelerator.is_available()", "accelerator.device_count()", "accelerator.current_accelerator()",
    "accelerator.current_device_index()", "accelerator.synchronize()",
    "backends.mps.is_available()", "backends.mps.is_built()", "backends.cudnn.is_available()",
    "backends.cudnn.version()", "backends.cuda.is_built()", "backends.cudnn.benchmark",
    "backends.cudnn.deterministic", "backends.cudnn.enabled", "backends.cudnn.allow_tf32",
    "backends.cuda.matmul.allow_tf32", "backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
    "backends.cuda.flash_sdp_enabled()",
])
def test_matches_torch_cpu_build(expr):
    assert _outcome(lambda: eval("ember." + expr)) == _outcome(lambda: eval("torch." + expr))


def test_backend_flags_are_settable():
    cudnn = ember.backends.cudnn
    old = cudnn.benchmark, cudnn.deterministic, ember.backends.cuda.matmul.allow_tf32
    try:
        cudnn.benchmark = True
        cudnn.deterministic = True
        ember.backends.cuda.matmul.allow_tf32 = True
        assert (cudnn.benchmark, cudnn.deterministic, ember.backends.cuda.matmul.allow_tf32) == (True,) * 3
        with cudnn.flags(enabled=False, benchmark=False):
            assert cudnn.enabled is False and cudnn.benchmark is False
        assert cudnn.enabled is True and cudnn.benchmark is True
    finally:
        cudnn.benchmark, cudnn.deterministic, ember.backends.cuda.matmul.allow_tf32 = old


def test_backends_submodules_importable():
    import ember.backends.cuda  # noqa: F401
    import ember.backends.cudnn  # noqa: F401
    import ember.backends.mps  # noqa: F401


def test_cuda_device_context_is_noop_for_cpu():
    with ember.cuda.device(None):
        pass
    with ember.cuda.device(-1):
        pass
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        with ember.cuda.device(0):
            pass


@pytest.mark.parametrize("arg", [0, -1, 1.5, "2", True])
def test_set_num_threads_errors_match_torch(arg):
    assert _outcome(lambda: ember.set_num_threads(arg)) == _outcome(lambda: torch.set_num_threads(arg))


def test_set_num_threads_limits_blas():
    code = ("import ember, threadpoolctl\n"
            "ember.set_num_threads(1)\n"
            "info = [i['num_threads'] for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas']\n"
            "print(ember.get_num_threads(), info)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "2"})
    assert out.returncode == 0, out.stderr
    n, info = out.stdout.split(" ", 1)
    assert n == "1" and set(eval(info)) <= {1}


def test_import_does_not_load_threadpoolctl():
    code = "import sys, ember; print('threadpoolctl' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr
