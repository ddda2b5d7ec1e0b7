"""Legacy constructors, type strings, deterministic flags, and the truthful stand-in modules
(jit, hub, distributed, nn.parallel, onnx), compared with torch where torch answers the same."""
import subprocess
import sys

import numpy as np
import pytest
import torch

import ember

NAMES = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
         "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


@pytest.mark.parametrize("name", NAMES)
def test_legacy_constructors_match_torch(name):
    E, T = getattr(ember, name), getattr(torch, name)
    for args in [(2, 3), ([1, 0, 1],), (), (ember.Size([4]),)]:
        targs = tuple(torch.Size(a) if isinstance(a, ember.Size) else a for a in args)
        e, t = E(*args), T(*targs)
        assert str(e.dtype) == str(t.dtype) and tuple(e.shape) == tuple(t.shape)
        assert e.type() == t.type() == f"torch.{name}"
        if args and isinstance(args[0], list):
            np.testing.assert_array_equal(e.float().numpy(), t.float().numpy())
    assert isinstance(E(1), E) and (name == "FloatTensor") == isinstance(ember.ones(1), E)
    assert (name == "FloatTensor") == isinstance(torch.ones(1), T)


def test_legacy_errors_and_type_strings():
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        ember.FloatTensor("a")
    with pytest.raises(TypeError):
        ember.FloatTensor(ember.ones(2, dtype=ember.int64))
    x = ember.ones(2)
    assert x.type() == "torch.FloatTensor" and x.type("torch.LongTensor").dtype is ember.int64
    assert x.type(ember.DoubleTensor if False else "torch.DoubleTensor").type() == "torch.DoubleTensor"


def test_deterministic_flags_as_torch():
    for lib in (ember, torch):
        assert not lib.are_deterministic_algorithms_enabled()
        lib.use_deterministic_algorithms(True, warn_only=True)
        assert lib.are_deterministic_algorithms_enabled()
        assert lib.is_deterministic_algorithms_warn_only_enabled()
        assert lib.get_deterministic_debug_mode() == 1
        lib.use_deterministic_algorithms(False)
        assert lib.get_deterministic_debug_mode() == 0
        with pytest.raises(TypeError, match="must be bool, not str"):
            lib.use_deterministic_algorithms("yes")


def test_jit_is_an_eager_pass_through():
    assert ember.jit.is_scripting() is False and ember.jit.is_tracing() is False

    @ember.jit.script
    def f(x):
        return x * 2

    @ember.jit.ignore
    def g(x):
        return x

    m = ember.nn.Linear(2, 2)
    assert ember.jit.trace(m, ember.ones(1, 2)) is m and f(ember.ones(1)).item() == 2.0 and g(1) == 1
    with pytest.raises(NotImplementedError, match="ember has no TorchScript"):
        ember.jit.save(m, "x.pt")


def test_distributed_parallel_onnx_tell_the_truth():
    from ember.nn.parallel import DistributedDataParallel
    dp = ember.nn.DataParallel(ember.nn.Linear(2, 3))
    assert tuple(dp(ember.ones(4, 2)).shape) == (4, 3)
    assert ember.nn.parallel.DistributedDataParallel is DistributedDataParallel
    with pytest.raises(NotImplementedError, match="ember.onnx.export is not supported yet"):
        ember.onnx.export(ember.nn.Linear(2, 2), (ember.ones(1, 2),), "m.onnx")


def test_hub_offline(tmp_path):
    with pytest.raises(RuntimeError, match="works offline only"):
        ember.hub.load("pytorch/vision", "resnet18")
    with pytest.raises(RuntimeError, match="works offline only"):
        ember.hub.load_state_dict_from_url("https://example.com/w.pt", model_dir=str(tmp_path))
    ember.save({"w": ember.ones(2)}, tmp_path / "w.pt")
    sd = ember.hub.load_state_dict_from_url("https://example.com/w.pt", model_dir=str(tmp_path))
    assert sd["w"].sum().item() == 2.0
    (tmp_path / "hubconf.py").write_text("def tiny(n=2):\n    return list(range(n))\n")
    assert ember.hub.load(str(tmp_path), "tiny", n=3, source="local") == [0, 1, 2]
    assert ember.hub.list(str(tmp_path), source="local") == ["tiny"]


def test_import_stays_lazy():
    # the lazy namespaces stay unloaded (heavy third-party modules: tests/test_import.py)
    code = ("import sys; import ember; "
            "print(any(m == 'ember.func' or m.startswith(('ember.distributions', 'ember.amp', "
            "'ember.func.', 'ember.utils.tensorboard', 'ember.nn.parallel')) "  # not ember.functorch
            "for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_out_of_scope_features_fail_clearly():
    assert not hasattr(ember, "quint4x2") and not hasattr(ember, "sparse_coo_tensor")
    with pytest.raises(AttributeError, match="sparse layouts are not supported by ember"):
        ember.sparse_coo_tensor
    with pytest.raises(AttributeError, match="4-bit and 2-bit quantized dtypes are not supported"):
        ember.quint4x2
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda, meta device type"):
        ember.zeros(2, device="mps")
    assert not ember.backends.mps.is_available()
