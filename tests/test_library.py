"""ember.library against torch.library: the same custom op definition gives the same values and
gradients, runs on meta tensors, traces as one fx node, is seen by dispatch modes and round-trips
through ember.ops.<ns>.<op>."""

import numpy as np
import pytest
import torch

import ember
import ember.fx
from ember._dispatch import TorchDispatchMode


def _define(lib, name):
    """The same definition for either framework: mylib::scale(x, factor) = x * factor, with a fake
    rule and an autograd formula."""
    @lib.library.custom_op(f"{name}::scale", mutates_args=())
    def scale(x: lib.Tensor, factor: float) -> lib.Tensor:
        return x * factor

    @scale.register_fake
    def _(x, factor):
        return lib.empty_like(x)

    def setup_context(ctx, inputs, output):
        ctx.factor = inputs[1]

    def backward(ctx, grad):
        return grad * ctx.factor, None

    scale.register_autograd(backward, setup_context=setup_context)
    return scale


E_SCALE = _define(ember, "emberlib_t")
T_SCALE = _define(torch, "emberlib_t")


def test_values_and_gradients_match_torch():
    a = np.random.default_rng(0).standard_normal((3, 4))
    xe = ember.tensor(a, requires_grad=True)
    xt = torch.tensor(a, requires_grad=True)
    ye, yt = E_SCALE(xe, 2.5), T_SCALE(xt, 2.5)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy())
    (ye.sin().sum()).backward()
    (yt.sin().sum()).backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy())
    assert type(ye.grad_fn).__name__ == type(yt.grad_fn).__name__
    assert ember.autograd.gradcheck(lambda x: E_SCALE(x, 1.5), (ember.tensor(a, requires_grad=True),))


def test_ops_namespace_roundtrip_and_schema():
    assert E_SCALE._opoverload is ember.ops.emberlib_t.scale.default
    assert str(ember.ops.emberlib_t.scale.default._schema) == str(torch.ops.emberlib_t.scale.default._schema)
    assert ember.ops.emberlib_t.scale(ember.ones(2), 3.0).tolist() == [3.0, 3.0]
    with pytest.raises(AttributeError, match="nope"):
        ember.ops.emberlib_t.nope


def test_meta_tensors_use_the_fake_rule():
    y = E_SCALE(ember.empty(5, 2, device="meta"), 2.0)
    assert y.device.type == "meta" and tuple(y.shape) == (5, 2) and y.dtype == ember.float32


def test_fx_traces_one_node():
    def f(x):
        return E_SCALE(x, 2.0) + 1
    gm = ember.fx.symbolic_trace(f)
    calls = [n for n in gm.graph.nodes if n.op == "call_function"]
    assert calls[0].target is ember.ops.emberlib_t.scale.default and len(calls) == 2
    assert "ember.ops.emberlib_t.scale.default(x, 2.0)" in gm.code
    assert gm(ember.ones(2)).tolist() == [3.0, 3.0]


def test_dispatch_modes_see_the_op():
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(getattr(func, "overload", func))
            return func(*args, **(kwargs or {}))
    x = ember.ones(2)
    with Log():
        E_SCALE(x, 2.0)
    assert seen == [ember.ops.emberlib_t.scale.default]


def test_no_autograd_formula_raises_torchs_error():
    results = {}
    for lib in (ember, torch):
        @lib.library.custom_op("emberlib_t::noauto", mutates_args=())
        def noauto(x: lib.Tensor) -> lib.Tensor:
            return x.sin()
        x = lib.ones(3, requires_grad=True)
        y = noauto(x)
        assert y.requires_grad
        with pytest.raises(RuntimeError, match="no autograd formula was registered") as info:
            y.sum().backward()
        results[lib.__name__] = str(info.value)
        with lib.no_grad():
            assert noauto(lib.zeros(1)).tolist() == [0.0]
    assert results["ember"] == results["torch"]


def test_mutating_op_and_library_define_impl():
    for lib in (ember, torch):
        lib_ = lib.library.Library("emberlib_d", "FRAGMENT")
        lib_.define("add_into(Tensor(a!) dst, Tensor src) -> ()")
        lib_.define("twice(Tensor x) -> Tensor")
        def add_into(d, s):
            d.add_(s)
        lib_.impl("add_into", add_into, "CPU")
        lib_.impl("twice", lambda x: x * 2, "CPU")
        lib.library.register_fake("emberlib_d::twice", lambda x: lib.empty_like(x))
        d = lib.zeros(2)
        v = d._version
        assert lib.ops.emberlib_d.add_into(d, lib.ones(2)) is None
        assert d.tolist() == [1.0, 1.0] and d._version > v
        assert lib.ops.emberlib_d.twice.default(d).tolist() == [2.0, 2.0]
        assert tuple(lib.ops.emberlib_d.twice(lib.empty(3, device="meta")).shape) == (3,)
    assert (str(ember.ops.emberlib_d.add_into.default._schema) ==
            str(torch.ops.emberlib_d.add_into.default._schema))


def test_infer_schema_matches_torch():
    for lib in (ember, torch):
        def f(x: lib.Tensor, n: int, ys: list[lib.Tensor], s: str = "a",
              t: lib.Tensor | None = None, *, w: float = 1.5) -> tuple[lib.Tensor, lib.Tensor]:
            ...

        def g(x: lib.Tensor, y: lib.Tensor) -> None:
            ...
        got = (lib.library.infer_schema(f, mutates_args=()),
               lib.library.infer_schema(g, mutates_args={"y"}))
        if lib is ember:
            want = got
        else:
            assert got == want


def test_registrations_for_an_undefined_op_are_accepted():
    @ember.library.register_fake("emberlib_ext::nms")
    def _(dets, scores, iou_threshold):
        return dets.new_empty(0, dtype=ember.long)
    ember.library.register_autograd("emberlib_ext::roi", lambda ctx, g: g)
    for call in (ember.ops.emberlib_ext.nms, ember.ops.emberlib_ext.nms.default):
        with pytest.raises(NotImplementedError, match="compiled kernel .* not available"):
            call(ember.zeros(2, 4), ember.zeros(2), 0.5)


def test_load_library_raises_oserror():
    with pytest.raises(OSError):
        ember.ops.load_library("libmylib.so")


def test_opcheck():
    x = ember.tensor(np.random.default_rng(1).standard_normal(4), requires_grad=True)
    res = ember.library.opcheck(E_SCALE, (x, 2.0))
    assert set(res) == {"test_schema", "test_autograd_registration", "test_faketensor",
                        "test_aot_dispatch_dynamic"}
    assert all(v == "SUCCESS" for v in res.values())

    @ember.library.custom_op("emberlib_t::bad_grad", mutates_args=())
    def bad(x: ember.Tensor) -> ember.Tensor:
        return x * 3
    bad.register_fake(lambda x: ember.empty_like(x))
    bad.register_autograd(lambda ctx, g: g * 2)  # wrong: should be 3
    res = ember.library.opcheck(bad, (x,), raise_exception=False)
    assert res["test_schema"] == "SUCCESS" and res["test_faketensor"] == "SUCCESS"
    assert isinstance(res["test_aot_dispatch_dynamic"], Exception)


def test_meta_without_fake_rule_raises_like_torch():
    for lib in (ember, torch):
        @lib.library.custom_op("emberlib_t::nofake", mutates_args=())
        def nofake(x: lib.Tensor) -> lib.Tensor:
            return x + 1
        with pytest.raises(RuntimeError, match="no fake impl registered"):
            nofake(lib.empty(2, device="meta"))


def test_mutating_custom_op_matches_torch():
    res = {}
    for lib in (ember, torch):
        @lib.library.custom_op("emberlib_t::add_into", mutates_args={"y"})
        def add_into(x: lib.Tensor, y: lib.Tensor) -> None:
            y.add_(x)
        y = lib.zeros(3)
        v = y._version
        assert add_into(lib.arange(3.0), y) is None
        assert y._version > v
        res[lib.__name__] = (y.tolist(), str(lib.ops.emberlib_t.add_into.default._schema))
    assert res["ember"] == res["torch"]


def test_multi_output_and_list_input_autograd_match_torch():
    a = np.random.default_rng(2).standard_normal((2, 3))
    grads, outs = {}, {}
    for lib in (ember, torch):
        @lib.library.custom_op("emberlib_t::split_scale", mutates_args=())
        def split_scale(xs: list[lib.Tensor], k: float) -> tuple[lib.Tensor, lib.Tensor]:
            return xs[0] * k, xs[1].sin()

        def setup_context(ctx, inputs, output):
            xs, k = inputs
            ctx.save_for_backward(xs[1])
            ctx.k = k

        def backward(ctx, g0, g1):
            (x1,) = ctx.saved_tensors
            return [g0 * ctx.k, g1 * x1.cos()], None
        split_scale.register_autograd(backward, setup_context=setup_context)
        x0 = lib.tensor(a[0], requires_grad=True)
        x1 = lib.tensor(a[1], requires_grad=True)
        o0, o1 = split_scale([x0, x1], 3.0)
        (o0.sum() * 2 + (o1 * o1).sum()).backward()
        outs[lib.__name__] = (o0.tolist(), o1.tolist())
        grads[lib.__name__] = (x0.grad.tolist(), x1.grad.tolist())
    np.testing.assert_allclose(np.array(outs["ember"]), np.array(outs["torch"]))
    np.testing.assert_allclose(np.array(grads["ember"]), np.array(grads["torch"]))


def test_kernel_without_definition_says_so():
    ember.library.impl("emberlib_ext::nodef", "cpu", lambda x: x)
    with pytest.raises(NotImplementedError, match="never defined"):
        ember.ops.emberlib_ext.nodef(ember.ones(1))
