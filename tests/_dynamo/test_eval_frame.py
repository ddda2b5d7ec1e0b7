"""ember.compile's API surface and error behaviour, checked against torch.compile's."""
import logging

import pytest
import torch

import ember
import ember._dynamo as dynamo
from ember._dynamo.testing import CompileCounter

from . import _zoo

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def _fresh_cache():
    # torch.compile (the oracle here) turns torch.distributions' argument validation off
    # process-wide when torch._dynamo loads; keep other test files unaffected
    validate = torch.distributions.Distribution._validate_args
    dynamo.reset()
    yield
    dynamo.reset()
    torch.distributions.Distribution.set_default_validate_args(validate)


def test_signature_matches_torch():
    import inspect
    ours = inspect.signature(ember.compile).parameters
    theirs = inspect.signature(torch.compile).parameters
    assert list(ours) == list(theirs)
    for name in ("fullgraph", "dynamic", "mode", "options", "disable"):
        assert ours[name].default == theirs[name].default


def test_function_and_decorator_forms():
    cnt = CompileCounter()

    @ember.compile(backend=cnt)
    def f(x):
        return x.cos() + 1

    g = ember.compile(lambda x: x.cos() + 1, backend=cnt)
    x = ember.randn(3)
    assert ember.allclose(f(x), x.cos() + 1) and ember.allclose(g(x), x.cos() + 1)
    assert f.__name__ == "f" and cnt.frame_count == 2


def test_optimized_module_state_dict_prefix_as_torch():
    m = _zoo.MLP()
    om = ember.compile(m, backend="eager")
    assert isinstance(om, dynamo.OptimizedModule) and om._orig_mod is m
    tm = torch.compile(torch.nn.Sequential(torch.nn.Linear(4, 8)), backend="eager")
    assert all(k.startswith("_orig_mod.") for k in tm.state_dict())
    assert list(om.state_dict()) == ["_orig_mod." + k for k in m.state_dict()]
    assert om.l1 is m.l1   # attributes fall through to the original


def test_module_compile_in_place_keeps_keys():
    m, cnt = _zoo.MLP(), CompileCounter()
    keys = list(m.state_dict())
    m.compile(backend=cnt)
    x = ember.randn(2, 4)
    out = m(x)
    assert list(m.state_dict()) == keys
    assert ember.allclose(out, m.l2(ember.relu(m.l1(x))))
    assert cnt.frame_count == 1


def test_list_and_register_backends():
    assert "inductor" in dynamo.list_backends()
    assert "eager" not in dynamo.list_backends()
    assert {"eager", "aot_eager", "inductor"} <= set(dynamo.list_backends(exclude_tags=()))

    seen = []

    @dynamo.register_backend(name="_test_recorder")
    def recorder(gm, example_inputs):
        seen.append(len(example_inputs))
        return gm.forward

    try:
        ember.compile(lambda x: x * 2, backend="_test_recorder")(ember.ones(2))
    finally:
        from ember._dynamo.backends import registry
        registry._BACKENDS.pop("_test_recorder")
        registry._TAGS.pop("_test_recorder")
    assert seen == [1]


def test_inductor_is_the_default_and_generates_kernels():
    from ember._inductor import metrics
    metrics.reset()
    out = ember.compile(lambda x: x + 1)(ember.zeros(2))
    assert ember.equal(out, ember.ones(2))
    assert metrics.generated_kernel_count == 1


def test_optimize_alias():
    cnt = CompileCounter()
    f = dynamo.optimize(cnt)(lambda x: x.sin())
    f(ember.ones(2))
    assert cnt.frame_count == 1


def test_unknown_backend_raises_invalid_backend():
    with pytest.raises(torch._dynamo.exc.InvalidBackend):
        torch.compile(lambda x: x, backend="nope")(torch.ones(1))
    with pytest.raises(dynamo.exc.InvalidBackend, match="Invalid backend: 'nope'"):
        ember.compile(lambda x: x, backend="nope")


def test_mode_and_options_together_raise():
    with pytest.raises(RuntimeError, match="Either mode or options"):
        ember.compile(lambda x: x, mode="max-autotune", options={"a": 1})


def test_unknown_mode_lists_valid_modes():
    with pytest.raises(RuntimeError) as ours:
        ember.compile(lambda x: x, mode="bad")
    with pytest.raises(RuntimeError) as theirs:
        torch.compile(lambda x: x, mode="bad")
    assert str(ours.value) == str(theirs.value)


def test_user_exceptions_propagate_unchanged():
    class MyError(Exception):
        pass

    def f(x):
        if x.shape[0] == 3:
            raise MyError("three")
        return x

    with pytest.raises(MyError, match="three"):
        ember.compile(f, backend="eager")(ember.ones(3))
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
        ember.compile(lambda a, b: a @ b, backend="eager")(ember.ones(2, 3), ember.ones(2, 3))


def test_backend_failure_raises_backend_compiler_failed():
    def bad(gm, example_inputs):
        raise ValueError("boom")

    with pytest.raises(dynamo.exc.BackendCompilerFailed, match="boom") as info:
        ember.compile(lambda x: x + 1, backend=bad)(ember.ones(1))
    assert isinstance(info.value.inner_exception, ValueError)
    assert isinstance(info.value, RuntimeError)


def test_backend_failure_falls_back_under_suppress_errors(monkeypatch):
    monkeypatch.setattr(dynamo.config, "suppress_errors", True)

    def bad(gm, example_inputs):
        raise ValueError("boom")

    assert ember.equal(ember.compile(lambda x: x + 1, backend=bad)(ember.ones(1)), ember.full((1,), 2.0))


def test_graph_break_resumes_and_fullgraph_raises(caplog):
    def f(x):
        y = x * 2
        print("hello from f")
        return y + 1

    cnt = CompileCounter()
    with caplog.at_level(logging.INFO, logger="ember._dynamo.graph_breaks"):
        out = ember.compile(f, backend=cnt)(ember.ones(2))
    # issue 23: the prefix and the resume function are compiled (2 graphs), not the frame eager
    assert ember.equal(out, ember.full((2,), 3.0)) and cnt.frame_count == 2
    msg = " ".join(r.getMessage() for r in caplog.records)
    assert "print()" in msg and "test_eval_frame.py:" in msg
    dynamo.reset()
    with pytest.raises(dynamo.exc.Unsupported, match="print"):
        ember.compile(f, backend=cnt, fullgraph=True)(ember.ones(2))


@pytest.mark.parametrize("body", ["item", "branch", "graph_break", "disabled"])
def test_breaking_constructs_raise_under_fullgraph(body):
    @dynamo.disable
    def opaque(t):
        return t + 1

    def f(x):
        if body == "item":
            return x.sum().item()
        if body == "branch":
            return x if x.sum() > 0 else -x
        if body == "graph_break":
            dynamo.graph_break()
            return x
        return opaque(x)

    with pytest.raises(dynamo.exc.Unsupported):
        ember.compile(f, backend="eager", fullgraph=True)(ember.ones(2))
    dynamo.reset()
    eager = f(ember.ones(2))
    out = ember.compile(f, backend="eager")(ember.ones(2))
    assert (out == eager) if isinstance(out, float) else ember.equal(out, eager)


def test_allow_in_graph_makes_one_node():
    def helper(t):
        return t.sin() * 2

    dynamo.allow_in_graph(helper)
    rec = dynamo.testing.EagerAndRecordGraphs()
    ember.compile(lambda x: helper(x) + 1, backend=rec)(ember.ones(2))
    assert [n.target for n in rec.graphs[0].graph.nodes if n.op == "call_function"][0] is helper


def test_is_compiling():
    seen = []

    def f(x):
        seen.append(ember.compiler.is_compiling())
        return x + 1

    assert ember.compiler.is_compiling() is False
    cnt = CompileCounter()
    ember.compile(f, backend=cnt)(ember.ones(1))
    assert seen == [True]   # captured as a constant True; the append is replayed after the graph


def test_disable_argument_returns_model():
    f = lambda x: x  # noqa: E731
    assert ember.compile(f, disable=True) is f


def test_config_aliases():
    c = dynamo.config
    assert (c.recompile_limit, c.cache_size_limit, c.accumulated_recompile_limit) == (8, 8, 256)
    assert c.suppress_errors is False and c.capture_scalar_outputs is False
    old = c.recompile_limit
    try:
        c.cache_size_limit = 3
        assert c.recompile_limit == 3
    finally:
        c.recompile_limit = old


def test_explain_counts_graphs_and_breaks():
    out = dynamo.explain(lambda x: x.relu() * 2)(ember.ones(2))
    assert (out.graph_count, out.graph_break_count, out.op_count) == (1, 0, 2)
    assert any("L['x']" in g for g in out.out_guards)

    def f(x):
        print("x")
        return x

    out = dynamo.explain(f)(ember.ones(2))
    assert out.graph_count == 0 and out.graph_break_count == 1
    assert "print" in out.break_reasons[0].reason
    assert "test_eval_frame.py" in out.break_reasons[0].user_stack[0]
    assert "Graph Break Count: 1" in str(out)


def test_compiled_pieces_inside_a_compiled_model_are_inlined():
    inner = _zoo.MLP()
    inner_opt = ember.compile(inner, backend="eager")

    class Outer(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = inner_opt
            self.b = _zoo.MLP()
            self.b.compile(backend="eager")

        @ember.compile(backend="eager")
        def head(self, x):
            return x.sigmoid()

        def forward(self, x):
            return self.head(self.a(x) + self.b(x))

    m, cnt = Outer(), CompileCounter()
    x = ember.randn(2, 4)
    out = ember.compile(m, backend=cnt, fullgraph=True)(x)
    assert ember.allclose(out, (inner(x) + m.b.l2(ember.relu(m.b.l1(x)))).sigmoid())
    assert cnt.frame_count == 1 and cnt.op_count == 8
