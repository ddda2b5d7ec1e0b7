"""Module core against torch: registration, traversal, state_dict, hooks, repr, conversion, pickling."""
import copy
import pickle
from collections import OrderedDict

import pytest
import torch

import ember
from ember import nn

from ._helpers import assert_close, copy_module_params, to_ember


def _classes(lib):
    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(3, 4)
            self.act = lib.nn.ReLU()
            self.register_buffer("steps", lib.zeros(()))
            self.register_buffer("scratch", lib.ones(2), persistent=False)

        def forward(self, x):
            return self.act(self.fc(x))

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.head = lib.nn.Sequential(lib.nn.Linear(4, 2), lib.nn.Tanh())
            self.scale = lib.nn.Parameter(lib.ones(1))
            self.shared = self.block.fc   # the same module reachable twice

        def forward(self, x):
            return self.head(self.block(x)) * self.scale

    return Block, Net


Block, Net = _classes(ember)
Block.__qualname__, Net.__qualname__ = "Block", "Net"   # picklable by name
_TBlock, _TNet = _classes(torch)


def _net(lib):
    return Net() if lib is ember else _TNet()


def test_traversal_names_match_torch():
    e, t = _net(ember), _net(torch)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in e.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in e.named_children()] == [n for n, _ in t.named_children()]
    assert [n for n, _ in e.named_modules(remove_duplicate=False)] == \
        [n for n, _ in t.named_modules(remove_duplicate=False)]
    assert [n for n, _ in e.named_parameters(prefix="m", remove_duplicate=False)] == \
        [n for n, _ in t.named_parameters(prefix="m", remove_duplicate=False)]
    assert [n for n, _ in e.named_parameters(recurse=False)] == ["scale"]
    assert len(list(e.parameters())) == len(list(t.parameters()))
    assert len(list(e.modules())) == len(list(t.modules()))
    assert len(list(e.buffers())) == 2


def test_state_dict_keys_metadata_and_roundtrip():
    e, t = _net(ember), _net(torch)
    esd, tsd = e.state_dict(), t.state_dict()
    assert list(esd) == list(tsd)
    assert isinstance(esd, OrderedDict)
    assert esd._metadata == tsd._metadata
    assert list(e.state_dict(prefix="p.")) == list(t.state_dict(prefix="p."))
    assert not esd["block.fc.weight"].requires_grad
    assert e.state_dict(keep_vars=True)["scale"] is e.scale
    copy_module_params(e, t)
    x = torch.randn(5, 3)
    assert_close(e(to_ember(x)), t(x))
    res = e.load_state_dict(e.state_dict())
    assert repr(res) == "<All keys matched successfully>"


def test_load_state_dict_errors_match_torch():
    e, t = ember.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    bad = {"weight": ember.zeros(2, 3), "extra": ember.zeros(1)}
    tbad = {"weight": torch.zeros(2, 3), "extra": torch.zeros(1)}
    with pytest.raises(RuntimeError) as ee:
        e.load_state_dict(bad)
    with pytest.raises(RuntimeError) as te:
        t.load_state_dict(tbad)
    assert str(ee.value) == str(te.value)
    assert str(ee.value).startswith("Error(s) in loading state_dict for Linear:\n\tMissing key(s)")
    r = e.load_state_dict(bad, strict=False)
    assert r.missing_keys == ["bias"] and r.unexpected_keys == ["extra"]
    assert repr(r) == repr(t.load_state_dict(tbad, strict=False))
    with pytest.raises(RuntimeError) as ee:
        e.load_state_dict({"weight": ember.zeros(3, 3), "bias": ember.zeros(2)})
    with pytest.raises(RuntimeError) as te:
        t.load_state_dict({"weight": torch.zeros(3, 3), "bias": torch.zeros(2)})
    assert str(ee.value) == str(te.value)


def test_load_state_dict_copies_in_place_and_assign():
    e = ember.nn.Linear(2, 2)
    w = e.weight
    e.load_state_dict({"weight": ember.ones(2, 2), "bias": ember.zeros(2)})
    assert e.weight is w and e.weight.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    new = ember.full((2, 2), 3.0)
    e.load_state_dict({"weight": new, "bias": ember.zeros(2)}, assign=True)
    assert isinstance(e.weight, nn.Parameter) and e.weight.requires_grad
    assert e.weight.data_ptr() == new.data_ptr()


def test_setattr_registration_and_errors():
    m = nn.Module()
    m.p = nn.Parameter(ember.zeros(2))
    m.sub = nn.Linear(1, 1)
    m.buf = nn.Buffer(ember.ones(1), persistent=False)
    m.plain = 3
    assert "p" in m._parameters and "sub" in m._modules and "buf" in m._buffers
    assert "buf" in m._non_persistent_buffers_set and "plain" in m.__dict__
    assert list(m.state_dict()) == ["p", "sub.weight", "sub.bias"]
    with pytest.raises(TypeError, match="cannot assign 'torch.FloatTensor' as parameter 'p'"):
        m.p = ember.zeros(2)
    m.p = None
    assert m.p is None and "p" in m._parameters
    with pytest.raises(TypeError, match="as child module 'sub'"):
        m.sub = 3
    m.buf = ember.zeros(3)  # plain tensor assigned over a buffer stays a (non-persistent) buffer
    assert m._buffers["buf"].shape == (3,) and "buf" in m._non_persistent_buffers_set
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        m.register_buffer("plain", ember.zeros(1))
    with pytest.raises(KeyError, match="parameter name can"):
        m.register_parameter("a.b", None)
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nothing'"):
        m.nothing
    del m.sub
    assert "sub" not in m._modules
    with pytest.raises(AttributeError, match="cannot assign parameters before Module.__init__"):
        class Bad(nn.Module):
            def __init__(self):
                self.w = nn.Parameter(ember.zeros(1))
        Bad()
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor"):
        x = ember.ones(1, requires_grad=True)
        m.register_parameter("q", nn.Parameter(x) if False else _nonleaf_param(x))


def _nonleaf_param(x):
    p = nn.Parameter(ember.ones(1))
    p._grad_fn = (x * 2).grad_fn
    return p


def test_get_submodule_parameter_buffer():
    e, t = _net(ember), _net(torch)
    assert e.get_submodule("block.fc") is e.block.fc
    assert e.get_parameter("block.fc.weight") is e.block.fc.weight
    assert e.get_buffer("block.steps") is e.block.steps
    for fn, arg in (("get_submodule", "block.nope"), ("get_parameter", "block.steps"),
                    ("get_buffer", "block.fc.weight"), ("get_submodule", "scale")):
        with pytest.raises(AttributeError) as ee:
            getattr(e, fn)(arg)
        with pytest.raises(AttributeError) as te:
            getattr(t, fn)(arg)
        assert str(ee.value) == str(te.value)
    e.set_submodule("head.0", nn.Identity())
    assert isinstance(e.head[0], nn.Identity)


def test_repr_matches_torch():
    e, t = _net(ember), _net(torch)
    assert repr(e) == repr(t)
    assert repr(ember.nn.Sequential()) == repr(torch.nn.Sequential())
    ml_e = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])
    ml_t = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)] + [torch.nn.ReLU()])
    assert repr(ml_e) == repr(ml_t)


def test_forward_hooks_match_torch_order_and_results():
    def run(lib):
        calls = []
        m = lib.nn.Linear(2, 2)
        m.weight.data.fill_(1.0)
        m.bias.data.fill_(0.0)
        h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        h2 = m.register_forward_pre_hook(lambda mod, args, kw: calls.append(("pre_kw", sorted(kw))),
                                         with_kwargs=True, prepend=True)
        h3 = m.register_forward_hook(lambda mod, args, out: out + 1)
        h4 = m.register_forward_hook(lambda mod, args, kw, out: calls.append("post_kw"),
                                     with_kwargs=True)
        h5 = m.register_forward_hook(lambda mod, args, out: calls.append("first"), prepend=True)
        out1 = m(lib.ones(1, 2)).tolist()
        for h in (h1, h2, h3, h4, h5):
            h.remove()
        out2 = m(lib.ones(1, 2)).tolist()
        return calls, out1, out2, len(m._forward_hooks), len(m._forward_hooks_with_kwargs)
    assert run(ember) == run(torch)


def test_always_call_hook_runs_on_error():
    seen = []
    m = nn.Module()
    m.register_forward_hook(lambda mod, args, out: seen.append(out), always_call=True)
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        m(1)
    assert seen == [None]


def test_global_forward_hook():
    seen = []
    h = nn.register_module_forward_hook(lambda mod, args, out: seen.append(type(mod).__name__))
    try:
        nn.Sequential(nn.ReLU())(ember.ones(1))
    finally:
        h.remove()
    assert seen == ["ReLU", "Sequential"]
    nn.ReLU()(ember.ones(1))
    assert len(seen) == 2


def test_to_double_keeps_parameter_identity_and_grad():
    e = nn.Sequential(nn.Linear(2, 3), nn.Embedding(4, 2))
    e.register_buffer("idx", ember.zeros(2, dtype=ember.int64))
    w = e[0].weight
    e(ember.ones(1, 2)).sum().backward() if False else e[0](ember.ones(1, 2)).sum().backward()
    assert e.double() is e
    assert e[0].weight is w and w.dtype == ember.float64 and w.grad.dtype == ember.float64
    assert e.idx.dtype == ember.int64
    e.to(ember.float32)
    assert w.dtype == ember.float32 and e[1].weight.dtype == ember.float32
    e.half()
    assert w.dtype == ember.float16
    e.float()
    assert w.dtype == ember.float32 and w.requires_grad and isinstance(w, nn.Parameter)
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point"):
        e.to(ember.int32)
    e.to("cpu", dtype=ember.bfloat16)
    assert w.dtype == ember.bfloat16 and e[0].weight is w


def test_train_eval_requires_grad_zero_grad_apply():
    e = _net(ember)
    assert e.training and e.block.act.training
    e.eval()
    assert not e.training and not e.block.act.training
    e.train()
    assert e.head[1].training
    e.requires_grad_(False)
    assert not any(p.requires_grad for p in e.parameters())
    e.requires_grad_()
    e(ember.ones(2, 3)).sum().backward()
    assert all(p.grad is not None for p in e.parameters())
    e.zero_grad(set_to_none=False)
    assert all(p.grad.sum().item() == 0 for p in e.parameters())
    e.zero_grad()
    assert all(p.grad is None for p in e.parameters())
    names = []
    e.apply(lambda m: names.append(type(m).__name__))
    tnames = []
    _net(torch).apply(lambda m: tnames.append(type(m).__name__))
    assert names == tnames


def test_pickle_and_deepcopy():
    e = _net(ember)
    h = e.register_forward_hook(lambda *a: None)
    h.remove()
    x = ember.ones(2, 3)
    for clone in (pickle.loads(pickle.dumps(e)), copy.deepcopy(e)):
        assert repr(clone) == repr(e)
        assert clone.shared is clone.block.fc   # sharing survives
        assert clone.block.fc.weight is not e.block.fc.weight
        assert isinstance(clone.scale, nn.Parameter) and clone.scale.requires_grad
        assert clone(x).tolist() == e(x).tolist()
        assert list(clone.state_dict()) == list(e.state_dict())
        assert "scratch" in clone.block._non_persistent_buffers_set


def test_state_dict_hooks():
    m = nn.Linear(2, 2)
    seen = []
    m.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: seen.append(("pre", prefix)))
    m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: seen.append(("post", list(sd))))
    m.register_load_state_dict_post_hook(lambda mod, keys: seen.append(("load", list(keys))))
    m.load_state_dict(m.state_dict())
    assert seen == [("pre", ""), ("post", ["weight", "bias"]), ("load", [[], []])]


def test_extra_state():
    class WithExtra(nn.Module):
        def __init__(self):
            super().__init__()
            self.value = 1

        def get_extra_state(self):
            return {"value": self.value}

        def set_extra_state(self, state):
            self.value = state["value"]

    m = WithExtra()
    sd = m.state_dict()
    assert list(sd) == ["_extra_state"]
    m2 = WithExtra()
    m2.value = 5
    m2.load_state_dict(sd)
    assert m2.value == 1


def test_dir_and_unexpected_init_args():
    m = nn.Linear(1, 1)
    assert "weight" in dir(m) and "forward" in dir(m)
    with pytest.raises(TypeError):
        nn.Module(3)
