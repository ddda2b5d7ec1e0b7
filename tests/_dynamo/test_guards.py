"""Guards, the cache and recompile limits: every recompile cause named in the issue."""
import logging
import warnings

import pytest

import ember
import ember._dynamo as dynamo
from ember._dynamo.testing import CompileCounter

from . import _zoo

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def _fresh_cache():
    dynamo.reset()
    yield
    dynamo.reset()


def _activation(t):
    return t.relu()


def _other_activation(t):
    return t.tanh()


def _uses_global(x):
    return _activation(x) * 2


def test_global_function_rebound_recompiles_with_new_result():
    global _activation
    cnt = CompileCounter()
    f = ember.compile(_uses_global, backend=cnt)
    x = ember.tensor([-1.0, 0.5])
    saved = _activation
    try:
        assert ember.allclose(f(x), ember.tensor([0.0, 1.0]))
        _activation = _other_activation
        assert ember.allclose(f(x), x.tanh() * 2)
    finally:
        _activation = saved
    assert cnt.frame_count == 2


def test_closure_cell_value_guarded():
    cnt = CompileCounter()

    def make(k):
        def f(x):
            return x * k
        return ember.compile(f, backend=cnt)

    assert ember.equal(make(2)(ember.ones(1)), ember.full((1,), 2.0))
    assert ember.equal(make(3)(ember.ones(1)), ember.full((1,), 3.0))
    assert cnt.frame_count == 2


def test_grad_mode_change_recompiles():
    cnt = CompileCounter()
    f = ember.compile(lambda x, w: x @ w, backend=cnt)
    x, w = ember.randn(2, 2), ember.randn(2, 2, requires_grad=True)
    assert f(x, w).requires_grad
    with ember.no_grad():
        assert not f(x, w).requires_grad
    f(x, w)
    assert cnt.frame_count == 2


def test_module_attribute_change_recompiles():
    class Scale(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.factor = 2

        def forward(self, x):
            return x * self.factor

    m, cnt = Scale(), CompileCounter()
    cm = ember.compile(m, backend=cnt)
    assert ember.equal(cm(ember.ones(1)), ember.full((1,), 2.0))
    m.factor = 5
    assert ember.equal(cm(ember.ones(1)), ember.full((1,), 5.0))
    assert cnt.frame_count == 2


def test_module_train_eval_and_hooks_recompile():
    m, cnt = _zoo.MLP(), CompileCounter()
    cm = ember.compile(m, backend=cnt)
    x = ember.randn(2, 4)
    cm(x)
    cm(x)
    assert cnt.frame_count == 1
    calls = []
    h = m.l1.register_forward_hook(lambda mod, args, out: calls.append(1) or out * 0)
    assert ember.equal(cm(x), m.l2(ember.zeros(2, 8)))     # the hook is inlined and honoured
    assert calls == [1]
    h.remove()
    assert ember.allclose(cm(x), m(x))
    assert cnt.frame_count == 2     # hooks gone: the first entry's guards hold again
    m.eval()
    cm(x)
    assert cnt.frame_count == 3


def test_parameter_reassignment_is_seen():
    m, cnt = _zoo.MLP(), CompileCounter()
    cm = ember.compile(m, backend=cnt)
    x = ember.randn(2, 4)
    cm(x)
    m.l1.weight = ember.nn.Parameter(ember.zeros(8, 4))
    assert ember.allclose(cm(x), m(x))
    assert cnt.frame_count == 2


def test_in_place_parameter_update_needs_no_recompile():
    m, cnt = _zoo.MLP(), CompileCounter()
    cm = ember.compile(m, backend=cnt)
    x = ember.randn(2, 4)
    cm(x)
    with ember.no_grad():
        m.l1.weight.mul_(0.5)
    assert ember.allclose(cm(x), m(x))
    assert cnt.frame_count == 1


def test_shape_dtype_and_constant_changes_recompile():
    cnt = CompileCounter()
    f = ember.compile(lambda x, n: x * n, backend=cnt)
    f(ember.ones(2), 2)
    f(ember.ones(2), 2)
    assert cnt.frame_count == 1
    f(ember.ones(3), 2)
    f(ember.ones(3, dtype=ember.float64), 2)
    f(ember.ones(3).t(), 3)
    assert cnt.frame_count == 4


def test_float_inputs_are_graph_inputs_not_constants():
    cnt = CompileCounter()
    f = ember.compile(lambda p, lr: p - lr * 2.0 * p, backend=cnt)
    p = ember.ones(3)
    for lr in (0.1, 0.01, 0.001):
        assert ember.allclose(f(p, lr), p - lr * 2.0 * p)
    assert cnt.frame_count == 1


def test_lr_from_param_groups_is_not_specialised():
    w = ember.nn.Parameter(ember.ones(3))
    opt = ember.optim.SGD([w], lr=0.1)
    cnt = CompileCounter()

    def update(opt, g):
        return g * opt.param_groups[0]["lr"]

    f = ember.compile(update, backend=cnt)
    for lr in (0.1, 0.05):
        opt.param_groups[0]["lr"] = lr
        assert ember.allclose(f(opt, ember.ones(3)), ember.full((3,), lr))
    assert cnt.frame_count == 1


def test_guard_failure_log_names_the_guard(caplog):
    f = ember.compile(lambda x: x + 1, backend="eager")
    with caplog.at_level(logging.INFO, logger="ember._dynamo.recompiles"):
        f(ember.ones(2))
        f(ember.ones(5))
    msgs = [r.getMessage() for r in caplog.records]
    assert len(msgs) == 1 and "L['x']" in msgs[0] and "shape == (2,)" in msgs[0]


def test_set_logs_switches_artifacts():
    ember._logging.set_logs(recompiles=True, graph_breaks=True)
    try:
        assert logging.getLogger("ember._dynamo.recompiles").isEnabledFor(logging.INFO)
        assert logging.getLogger("ember._dynamo.graph_breaks").isEnabledFor(logging.INFO)
    finally:
        ember._logging.set_logs()
    assert not logging.getLogger("ember._dynamo.recompiles").isEnabledFor(logging.INFO)


def test_recompile_limit_falls_back_to_eager_with_one_warning():
    cnt = CompileCounter()
    f = ember.compile(lambda x, n: x + n, backend=cnt)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(12):
            assert ember.equal(f(ember.zeros(1), n), ember.full((1,), float(n)))
    assert cnt.frame_count == dynamo.config.recompile_limit == 8
    limit_warnings = [w for w in caught if "recompile_limit" in str(w.message)]
    assert len(limit_warnings) == 1
    assert "L['n']" in str(limit_warnings[0].message)


def test_per_call_recompile_limit_argument():
    cnt = CompileCounter()
    f = ember.compile(lambda x, n: x + n, backend=cnt, recompile_limit=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in range(4):
            f(ember.zeros(1), n)
    assert cnt.frame_count == 2


def test_default_dtype_is_guarded():
    cnt = CompileCounter()
    f = ember.compile(lambda x: x + ember.ones(2), backend=cnt)
    assert f(ember.zeros(2)).dtype == ember.float32
    old = ember.get_default_dtype()
    try:
        ember.set_default_dtype(ember.float64)
        assert f(ember.zeros(2)).dtype == ember.float64
    finally:
        ember.set_default_dtype(old)
    assert cnt.frame_count == 2


def test_aliased_inputs_are_guarded():
    cnt = CompileCounter()
    f = ember.compile(lambda a, b: a + b * 10, backend=cnt)
    x = ember.ones(2)
    assert ember.equal(f(x, x), ember.full((2,), 11.0))
    y = ember.zeros(2)
    assert ember.equal(f(x, y), ember.ones(2))    # no longer the same tensor: a new entry
    assert cnt.frame_count == 2


def test_accumulated_recompile_limit(monkeypatch):
    monkeypatch.setattr(dynamo.config, "accumulated_recompile_limit", 2)
    cnt = CompileCounter()
    fs = [ember.compile(lambda x, k=k: x + k, backend=cnt) for k in range(4)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outs = [f(ember.zeros(1)) for f in fs]
    assert [o.item() for o in outs] == [0.0, 1.0, 2.0, 3.0]
    assert cnt.frame_count == 2
    assert any("accumulated_recompile_limit" in str(w.message) for w in caught)
