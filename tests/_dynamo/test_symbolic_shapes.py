"""Size expressions without sympy, and shape inference from meta rules at moved sizes."""
import numpy as np
import torch

import ember
from ember._dynamo.symbolic_shapes import Expr, Op, fit_linear
from ember._dynamo.testing import CompileCounter


def test_expressions_evaluate_and_render_over_sources():
    s0, s1 = Expr.symbol("s0"), Expr.symbol("s1")
    e = 3 * s0 * s1 - s0 + 2
    assert e.eval({"s0": 4, "s1": 5}) == 58
    assert str(e) == "3*s0*s1 - s0 + 2"
    assert e.render({"s0": "L['x'].size(0)", "s1": "L['y'].size(1)"}) == \
        "3*L['x'].size(0)*L['y'].size(1) - L['x'].size(0) + 2"
    assert (s0 - s0).is_const() and (s0 - s0).const_value() == 0
    assert (s0 + 1) * 2 == 2 * s0 + 2 and hash((s0 + 1) * 2) == hash(2 * s0 + 2)
    q = Op("//", (s0 + 1, Expr.const(2)))
    assert q.eval({"s0": 6}) == 3 and (q + s0).eval({"s0": 6}) == 9


def test_fit_linear_recovers_affine_sizes_and_refuses_others():
    hints = {"s0": 4, "s1": 3}
    # a dim that is 2*s0 + s1 - 1 at the hints, moved by 2 for each symbol, then jointly by 5
    f = lambda a, b: 2 * a + b - 1  # noqa: E731
    e = fit_linear(f(4, 3), hints, {"s0": f(6, 3), "s1": f(4, 5)}, 2, f(9, 8), {"s0": 9, "s1": 8})
    assert e == 2 * Expr.symbol("s0") + Expr.symbol("s1") - 1
    g = lambda a, b: 2 * a * b  # noqa: E731   (a flatten of two dynamic dims)
    assert fit_linear(g(4, 3), hints, {"s0": g(6, 3), "s1": g(4, 5)}, 2, g(9, 8), {"s0": 9, "s1": 8}) == \
        2 * Expr.symbol("s0") * Expr.symbol("s1")
    sq = lambda a, b: a * a  # noqa: E731   (neither affine nor a product of distinct symbols)
    assert fit_linear(sq(4, 3), hints, {"s0": sq(6, 3), "s1": sq(4, 5)}, 2, sq(9, 8),
                      {"s0": 9, "s1": 8}) is None
    assert fit_linear(7, hints, {"s0": 7, "s1": 7}, 2, 7, {"s0": 9, "s1": 8}) == 7


def test_flatten_of_a_dynamic_batch_matches_torch_with_one_graph():
    cnt = CompileCounter()

    class Net(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = ember.nn.Conv2d(1, 2, 3, padding=1)
            self.fc = ember.nn.Linear(2 * 4 * 4, 3)

        def forward(self, x):
            h = self.conv(x).relu()
            h = h.view(h.size(0), -1)          # a size read from an intermediate
            return self.fc(h).reshape(len(x), 3, 1).squeeze(-1) / h.shape[0]

    ember.manual_seed(0)
    net = Net()
    tnet = torch.nn.Module()
    tnet.conv, tnet.fc = torch.nn.Conv2d(1, 2, 3, padding=1), torch.nn.Linear(32, 3)
    with torch.no_grad():
        for (_, p), (_, q) in zip(net.named_parameters(), tnet.named_parameters()):
            q.copy_(torch.tensor(p.detach().numpy()))
    cm = ember.compile(net, backend=cnt, dynamic=True)
    for b in (2, 5, 1, 8):
        x = np.random.default_rng(b).standard_normal((b, 1, 4, 4)).astype(np.float32)
        tx = torch.tensor(x)
        th = tnet.conv(tx).relu().view(b, -1)
        ref = (tnet.fc(th) / b).detach().numpy()
        np.testing.assert_allclose(cm(ember.tensor(x)).detach().numpy(), ref, rtol=1e-5, atol=1e-6)
    assert cnt.frame_count == 1
