"""Small torch APIs libraries touch on import (found by importing torchvision 0.28 under the alias):
hub._get_torch_home, _C's no-op pieces, utils.model_zoo, nn.modules.utils, jit decorators,
jit.annotations, onnx's custom-symbolic registry and opset-11 helpers, _custom_ops.get_ctx."""
from __future__ import annotations

import pytest
import torch
import torch.utils.model_zoo

import ember


@pytest.mark.parametrize("env", [{}, {"TORCH_HOME": "/tmp/th"}, {"XDG_CACHE_HOME": "/tmp/xdg"}])
def test_torch_home_and_hub_dir(monkeypatch, env):
    for k in ("TORCH_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert ember.hub._get_torch_home() == torch.hub._get_torch_home()
    assert ember.hub.get_dir() == torch.hub.get_dir()


def test_hub_set_dir(tmp_path):
    old = ember.hub.get_dir()
    try:
        ember.hub.set_dir(tmp_path)
        assert ember.hub.get_dir() == str(tmp_path)
    finally:
        ember.hub.set_dir(old)


def test_C_pieces():
    assert ember._C._log_api_usage_once("torchvision.ops.nms") is None
    assert ember._C._get_tracing_state() is torch._C._get_tracing_state()
    keys = (ember._C.DispatchKeySet(ember._C.DispatchKey.AutocastCPU)
            | ember._C.DispatchKeySet(ember._C.DispatchKey.AutocastCUDA))
    assert keys.has(ember._C.DispatchKey.AutocastCUDA) and not keys.has(ember._C.DispatchKey.CPU)
    with ember._C._ExcludeDispatchKeyGuard(keys):
        assert (ember.ones(2) + 1).tolist() == [2.0, 2.0]


def test_model_zoo_and_nn_modules_utils():
    from ember.nn.modules import utils as eu
    from ember.utils import model_zoo
    from torch.nn.modules import utils as tu
    assert model_zoo.load_url is ember.hub.load_state_dict_from_url
    assert model_zoo.tqdm is torch.utils.model_zoo.tqdm
    for name in ("_single", "_pair", "_triple", "_quadruple"):
        for v in (3, (1, 2), [4, 5, 6]):
            assert getattr(eu, name)(v) == getattr(tu, name)(v)
    assert eu._reverse_repeat_tuple((1, 2, 3), 2) == tu._reverse_repeat_tuple((1, 2, 3), 2)


def test_jit_pieces():
    from ember.jit.annotations import BroadcastingList2

    def f(x):
        return x + 1
    assert ember.jit._script_if_tracing(f)(1) == 2
    assert ember.jit._overload_method(f) is f
    assert BroadcastingList2[int] is torch.jit.annotations.BroadcastingList2[int]


def test_onnx_registry_and_opset11_helpers():
    from ember.onnx import symbolic_opset11 as op11
    from ember.onnx.symbolic_helper import parse_args

    @parse_args("v", "f")
    def sym(g, x, thr):
        return op11.squeeze(g, op11.unsqueeze(g, x, 0), 0)

    class G:
        def op(self, kind, *inputs, **attrs):
            return (kind, inputs, attrs)
    assert sym(G(), "x", 0.5) == ("Squeeze", (("Unsqueeze", ("x",), {"axes_i": [0]}),),
                                  {"axes_i": [0]})
    ember.onnx.register_custom_op_symbolic("mylib::op", sym, 11)
    with pytest.raises(ValueError):
        ember.onnx.register_custom_op_symbolic("no_namespace", sym, 11)
    ember.onnx.unregister_custom_op_symbolic("mylib::op", 11)
    assert ember.onnx.TensorProtoDataType.FLOAT == torch.onnx.TensorProtoDataType.FLOAT
    assert ember.onnx.TensorProtoDataType.INT64 == torch.onnx.TensorProtoDataType.INT64


def test_custom_ops_get_ctx():
    ctx = ember._custom_ops.get_ctx()
    with pytest.raises(NotImplementedError):
        ctx.create_unbacked_symint()
