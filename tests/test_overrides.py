"""The public-level interception point (``__torch_function__``): a Tensor subclass and a non-Tensor
class intercept functions, operators and methods, as they do in torch."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember


def _subclass(lib):
    class Logged(lib.Tensor):
        log: list = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.log.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})
    return Logged


def _calls(lib, Logged):
    x = lib.tensor([1.0, 2.0]).as_subclass(Logged)
    y = lib.tensor([3.0, 4.0])
    out = {}
    Logged.log.clear()
    out["add"] = lib.add(x, y)
    out["op"] = x + y
    out["radd"] = y + x
    out["sum"] = x.sum()
    if hasattr(lib, "cat"):
        out["cat"] = lib.cat([y, x])
    return out, list(Logged.log)


def test_subclass_intercepts_functions_operators_methods():
    mine, mine_log = _calls(ember, _subclass(ember))
    ref, ref_log = _calls(torch, _subclass(torch))
    assert set(mine) == set(ref)  # ember.cat exists
    for k in ref:
        assert type(mine[k]).__name__ == type(ref[k]).__name__ == "Logged", k
        np.testing.assert_array_equal(mine[k].detach().numpy(), ref[k].detach().numpy())
    for name in ("add", "__add__", "__radd__", "sum", "cat"):
        assert (name in mine_log) == (name in ref_log), (name, mine_log, ref_log)


def test_subclass_results_keep_type_through_autograd():
    Logged = _subclass(ember)
    x = ember.tensor([1.0, 2.0]).as_subclass(Logged).requires_grad_()
    y = (x * x).sum()
    assert type(y) is Logged
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])


class Wrapper:
    """Not a Tensor: intercepts every ember/torch function it is passed to."""

    log: list = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.log.append(func.__name__)
        return ("handled", func.__name__)


def test_non_tensor_class_intercepts_functions():
    for lib in (ember, torch):
        w = Wrapper()
        Wrapper.log.clear()
        t = lib.ones(2)
        assert lib.add(w, t) == ("handled", "add")
        assert lib.add(t, w) == ("handled", "add")
        assert lib.cat([t, w]) == ("handled", "cat")
        assert w.log == ["add", "add", "cat"]


def test_method_on_tensor_with_non_tensor_argument():
    for lib in (ember, torch):
        w = Wrapper()
        assert lib.ones(2).add(w) == ("handled", "add")


def test_not_implemented_everywhere_raises_type_error():
    class Nope:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented
    for lib in (ember, torch):
        with pytest.raises(TypeError):
            lib.add(Nope(), lib.ones(2))


def test_disable_torch_function_subclass():
    Logged = _subclass(ember)
    x = ember.tensor([1.0]).as_subclass(Logged)
    Logged.log.clear()
    from ember.overrides import DisableTorchFunctionSubclass
    with DisableTorchFunctionSubclass():
        r = x + 1
    assert Logged.log == []
    assert type(r) is ember.Tensor


def test_has_torch_function_helpers():
    from ember.overrides import has_torch_function, is_tensor_like
    Logged = _subclass(ember)
    assert not has_torch_function((ember.ones(1), 1.0))
    assert has_torch_function((ember.ones(1).as_subclass(Logged),))
    assert has_torch_function(([ember.ones(1), Wrapper()],))
    assert is_tensor_like(ember.ones(1)) and is_tensor_like(Wrapper())
    assert not is_tensor_like(1.0)


def _later_argument_calls(lib):
    """Overriding arguments that are not the first one: clamp's bounds, normal's std, where's other."""
    w = Wrapper()
    t = lib.ones(2)
    return [lib.clamp(t, min=w), lib.clamp(t, None, w), lib.normal(t, w), lib.where(t > 0, t, w),
            lib.lerp(t, t, w), t.lerp(t, w)]


def test_override_in_a_later_argument():
    for lib in (ember, torch):
        Wrapper.log.clear()
        assert _later_argument_calls(lib) == [("handled", n) for n in
                                              ("clamp", "clamp", "normal", "where", "lerp", "lerp")]


def test_override_result_none_is_returned():
    # backward's override returning None must not fall through to ember's own backward
    for lib in (ember, torch):
        class Quiet(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return None
        x = lib.ones(2, requires_grad=True).as_subclass(Quiet)
        assert x.backward() is None and x.detach() is None and x.clone() is None
