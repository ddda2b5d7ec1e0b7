"""OPENBLAS_CORETYPE for child processes: set only where the CPU lists avx512f, never over the user's."""
import os
import subprocess
import sys

from ember import _blas_env
from ember.distributed import run


def _cpuinfo(tmp_path, flags):
    p = tmp_path / "cpuinfo"
    p.write_text(f"processor\t: 0\nflags\t\t: {flags}\n")
    return str(p)


def test_avx512f_detection(tmp_path):
    assert _blas_env.has_avx512f(_cpuinfo(tmp_path, "fpu sse avx2 avx512f avx512dq"))
    assert not _blas_env.has_avx512f(_cpuinfo(tmp_path, "fpu sse avx2 avx512_vnni"))
    assert not _blas_env.has_avx512f(str(tmp_path / "missing"))


def test_blas_env_sets_only_on_avx512_and_keeps_users_value(monkeypatch):
    monkeypatch.setattr(_blas_env, "has_avx512f", lambda: True)
    assert _blas_env.blas_env({})["OPENBLAS_CORETYPE"] == "SkylakeX"
    assert _blas_env.blas_env({"OPENBLAS_CORETYPE": "Zen"})["OPENBLAS_CORETYPE"] == "Zen"
    monkeypatch.setattr(_blas_env, "has_avx512f", lambda: False)
    assert "OPENBLAS_CORETYPE" not in _blas_env.blas_env({})


def test_torchrun_ranks_get_the_variable(monkeypatch):
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    cfg = run.config_from_args(run.parse_args(["--standalone", "--nproc-per-node", "1", "t.py"]))
    monkeypatch.setattr(_blas_env, "has_avx512f", lambda: True)
    assert run._job_env(cfg)["OPENBLAS_CORETYPE"] == "SkylakeX"
    monkeypatch.setattr(_blas_env, "has_avx512f", lambda: False)
    assert "OPENBLAS_CORETYPE" not in run._job_env(cfg)


def test_ember_run_sets_it_before_numpy_loads(tmp_path):
    script = tmp_path / "show.py"
    script.write_text("import os; print(os.environ.get('OPENBLAS_CORETYPE', 'unset'))")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    out = subprocess.run([sys.executable, "-m", "ember.run", str(script)], env=env, capture_output=True,
                         text=True, timeout=120, cwd=os.path.dirname(os.path.dirname(_blas_env.__file__)))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ("SkylakeX" if _blas_env.has_avx512f() else "unset")
