"""Python side effects inside a captured region are replayed after the graph, in program order:
one differential test (compiled vs eager, same observable state) per kind."""
import pytest

import ember
import ember._dynamo as dynamo
from ember._dynamo.testing import CompileCounter

pytestmark = pytest.mark.timeout(60)

COUNTER = 0
LAST = None


@pytest.fixture(autouse=True)
def _fresh_cache():
    dynamo.reset()
    yield
    dynamo.reset()


def _both(fn, make_state, *args):
    """Run fn eagerly and compiled on fresh states; return (eager state, compiled state, count)."""
    cnt = CompileCounter()
    cf = ember.compile(fn, backend=cnt, fullgraph=True)
    s_e, s_c = make_state(), make_state()
    out_e, out_c = fn(s_e, *args), cf(s_c, *args)
    assert ember.allclose(out_e, out_c)
    return s_e, s_c, cnt


def test_list_append_and_extend():
    def fn(log, x):
        y = x * 2
        log.append(y)
        log.extend([y + 1, "tag"])
        return y.sum()

    e, c, cnt = _both(fn, list, ember.ones(2))
    assert len(e) == len(c) == 3 and c[2] == "tag"
    assert ember.equal(e[0], c[0]) and ember.equal(e[1], c[1])
    assert cnt.frame_count == 1


def test_attribute_writes_on_user_objects():
    class Box:
        def __init__(self):
            self.count = 0
            self.last = None

    def fn(box, x):
        box.count += 1
        box.last = x.relu()
        box.count = box.count * 10   # reads its own pending write
        return box.last + box.count

    e, c, cnt = _both(fn, Box, ember.tensor([-1.0, 2.0]))
    assert e.count == c.count == 10 and ember.equal(e.last, c.last)
    assert cnt.frame_count == 1


def test_dict_mutation():
    def fn(stats, x):
        stats["mean"] = x.mean()
        stats["n"] = stats.get("n", 0) + 1
        del stats["old"]
        return x + 1

    e, c, _ = _both(fn, lambda: {"old": 1}, ember.arange(4.0))
    assert set(e) == set(c) == {"mean", "n"} and e["n"] == c["n"] == 1
    assert ember.equal(e["mean"], c["mean"])


def _bump(x):
    global COUNTER, LAST
    COUNTER += 1
    LAST = x * 3
    return x - 1


def test_global_rebinding():
    global COUNTER, LAST
    cnt = CompileCounter()
    cf = ember.compile(_bump, backend=cnt, fullgraph=True)
    COUNTER, LAST = 0, None
    out = cf(ember.ones(2))
    assert COUNTER == 1 and ember.equal(LAST, ember.full((2,), 3.0)) and ember.equal(out, ember.zeros(2))
    # the replayed write changed a guarded global: the next call sees COUNTER == 1 (a constant)
    cf(ember.ones(2))
    assert COUNTER == 2


def test_closure_rebinding():
    def make():
        total = 0
        seen = None

        def step(x):
            nonlocal total, seen
            total = total + 1
            seen = x.exp()
            return x * total

        return step, lambda: (total, seen)

    f_e, read_e = make()
    f_c, read_c = make()
    cf = ember.compile(f_c, backend="eager", fullgraph=True)
    x = ember.ones(2)
    for _ in range(2):
        assert ember.equal(f_e(x), cf(x))
    (t_e, s_e), (t_c, s_c) = read_e(), read_c()
    assert t_e == t_c == 2 and ember.equal(s_e, s_c)


def test_module_attribute_write_in_forward():
    class Counting(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = ember.nn.Linear(2, 2)
            self.calls = 0

        def forward(self, x):
            self.calls = self.calls + 1
            return self.lin(x)

    m = Counting()
    cm = ember.compile(m, backend="eager", fullgraph=True)
    x = ember.randn(1, 2)
    assert ember.allclose(cm(x), m.lin(x))
    assert m.calls == 1
    cm(x)
    assert m.calls == 2


def test_program_order_of_writes():
    class Box:
        pass

    def fn(box, log, x):
        box.a = 1
        log.append(box.a)
        box.a = 2
        log.append(box.a)
        return x

    e_box, c_box, e_log, c_log = Box(), Box(), [], []
    fn(e_box, e_log, ember.ones(1))
    ember.compile(fn, backend="eager", fullgraph=True)(c_box, c_log, ember.ones(1))
    assert e_box.a == c_box.a == 2 and e_log == c_log == [1, 2]
