"""The compile tour runs end to end: graphs printed, one extra graph for new batch sizes, explain."""
import os
import subprocess
import sys


def test_compile_tour_runs():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root, OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-m", "ember.examples.compile_tour"], capture_output=True,
                          text=True, timeout=120, env=env, cwd=root)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.count("--- graph with") == 3  # the forward, the Adam step, the dynamic-batch graph
    assert "l_self_param_groups_0_lr" in out and "lerp" in out and "copy_" in out  # the Adam step
    assert "placeholder" in out and "call_function" in out
    assert 'def forward(self, s0 : "Sym(s0)", l_args_0' in out   # the symbolic batch size
    first, last = [float(l.split()[-1]) for l in out.splitlines() if l.startswith("epoch")]
    assert last < first / 10
    assert "Graph Count: 2" in out and "Graph Break Count: 1" in out and "compile_tour.py:" in out
