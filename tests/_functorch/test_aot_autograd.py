"""AOT autograd: compiled forward+backward equal eager values, gradients and side effects."""
import copy

import numpy as np
import pytest

import ember
from ember._functorch import aot_eager, aot_function, aot_module, nop
from ember.functorch.compile import aot_module_simplified, make_boxed_func

from ._models import build

_M = build(ember)
GPT, MLP, Block, CNNBN, LSTMNet = _M.GPT, _M.MLP, _M.Block, _M.CNNBN, _M.LSTMNet


def _close(a, b, rtol=1e-4, atol=1e-5):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)


def _compare_module(model, *inputs, steps=1):
    compiled_model = copy.deepcopy(model)
    compiled = aot_module(compiled_model, nop)
    for _ in range(steps):
        ref = model(*inputs)
        out = compiled(*inputs)
        _close(out, ref)
        (ref.sum() if ref.dim() else ref).backward()
        (out.sum() if out.dim() else out).backward()
    for (name, p), q in zip(model.named_parameters(), compiled_model.parameters()):
        _close(q.grad, p.grad)
    for b, c in zip(model.buffers(), compiled_model.buffers()):
        _close(c, b)


@pytest.mark.parametrize("case", ["mlp", "cnn_bn", "lstm", "block"])
def test_models_match_eager(case):
    ember.manual_seed(0)
    model, inputs = {
        "mlp": lambda: (MLP(), (ember.randn(5, 8),)),
        "cnn_bn": lambda: (CNNBN(), (ember.randn(2, 3, 8, 8),)),
        "lstm": lambda: (LSTMNet(), (ember.randn(2, 5, 6),)),
        "block": lambda: (Block(32, 4, 16), (ember.randn(2, 16, 32),)),
    }[case]()
    _compare_module(model, *inputs, steps=2)  # BatchNorm's running stats move on both steps


def test_gpt_matches_eager():
    ember.manual_seed(0)  # the configuration: 4 layers, 4 heads, 128 wide, block 64, batch 8
    model = GPT(vocab=64, n_layer=4, n_head=4, n_embd=128, block_size=64)
    idx, tgt = ember.randint(0, 64, (8, 64)), ember.randint(0, 64, (8, 64))
    _compare_module(model, idx, tgt)


def test_forward_saves_only_what_backward_reads():
    graphs = []

    def keep(gm, example_inputs):
        graphs.append(gm)
        return gm

    f = aot_function(lambda x, w: (x @ w).sin().cos().sum(), keep)
    x, w = ember.randn(3, 4), ember.randn(4, 5, requires_grad=True)
    f(x, w).backward()
    fw, bw = graphs
    saved = list(fw.graph.find_nodes(op="output")[0].args[0][1:])
    bw_inputs = bw.graph.find_nodes(op="placeholder")
    assert len(saved) == len(bw_inputs) - 1  # every saved value and one tangent
    assert all(len(p.users) > 0 for p in bw_inputs)  # backward reads each one
    # sin(mm) is recomputed from the saved matmul instead of being saved too
    assert [s.name for s in saved] == ["primals_1", "mm"]
    w2 = w.detach().requires_grad_()
    (x @ w2).sin().cos().sum().backward()
    _close(w.grad, w2.grad)


def test_dropout_masks_replay_in_backward():
    model = Block(16, 2, 8, dropout=0.3)
    compiled_model = copy.deepcopy(model)
    compiled = aot_module(compiled_model, nop)
    x = ember.randn(2, 8, 16)
    ember.manual_seed(7)
    ref = model(x)
    ref.sum().backward()
    ember.manual_seed(7)
    out = compiled(x)
    out.sum().backward()
    _close(out, ref)
    for p, q in zip(model.parameters(), compiled_model.parameters()):
        _close(q.grad, p.grad)
    assert (ref != x).any()


def test_inference_graph_when_grad_is_off():
    graphs = []

    def keep(gm, example_inputs):
        graphs.append(gm)
        return gm

    model = MLP()
    compiled = aot_module(model, keep)
    x = ember.randn(3, 8)
    with ember.no_grad():
        out = compiled(x)
    assert len(graphs) == 1 and not out.requires_grad
    _close(out, model(x))
    compiled(x).sum().backward()  # grad on: a new entry with forward and backward graphs
    assert len(graphs) == 3


def test_input_mutation_is_written_back():
    def f(x, buf):
        buf.mul_(0.5).add_(x.detach().mean())
        return (x * buf).sum()

    x = ember.randn(4, requires_grad=True)
    buf_a, buf_b = ember.ones(4), ember.ones(4)
    out = aot_function(f, nop)(x, buf_a)
    out.backward()
    g = x.grad.clone()
    x.grad = None
    ref = f(x, buf_b)
    ref.backward()
    _close(out, ref)
    _close(buf_a, buf_b)
    _close(g, x.grad)


def test_aot_eager_backend_on_symbolic_trace():
    model = MLP()
    gm = ember.fx.symbolic_trace(model)
    x = ember.randn(4, 8)
    run = aot_eager(gm, [x])
    out = run(x)
    out.sum().backward()
    ref_model = copy.deepcopy(model)
    ref_model.zero_grad()
    ref = ref_model(x)
    ref.sum().backward()
    _close(out, ref)
    for p, q in zip(ref_model.parameters(), gm.parameters()):
        _close(q.grad, p.grad)


def test_aot_module_simplified_with_boxed_compilers():
    calls = []

    def boxed(gm, example_inputs):
        calls.append(len(example_inputs))
        return make_boxed_func(gm.forward)

    model = MLP()
    gm = ember.fx.symbolic_trace(model)
    x = ember.randn(2, 8)
    fn = aot_module_simplified(gm, [x], boxed)
    _close(fn(x), model(x))
    assert calls and calls[0] == 5  # four parameters lifted, then the input


def test_training_with_fused_adam_matches_eager_for_20_steps():
    ember.manual_seed(1)
    model = GPT(vocab=32, n_layer=1, n_head=2, n_embd=16, block_size=8)
    compiled_model = copy.deepcopy(model)
    compiled = aot_module(compiled_model, nop)
    opt = ember.optim.Adam(model.parameters(), lr=1e-2)
    opt_c = ember.optim.Adam(compiled_model.parameters(), lr=1e-2, fused=True)
    for step in range(20):
        idx, tgt = ember.randint(0, 32, (4, 8)), ember.randint(0, 32, (4, 8))
        loss = model(idx, tgt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss_c = compiled(idx, tgt)
        opt_c.zero_grad()
        loss_c.backward()
        opt_c.step()
        _close(loss_c, loss, rtol=1e-4, atol=1e-5)
    for p, q in zip(model.parameters(), compiled_model.parameters()):
        _close(q, p, rtol=1e-4, atol=1e-5)
        assert q._base is None


def test_cache_reuses_graphs():
    compiled = aot_function(lambda x: (x * 2).sum(), nop)
    x = ember.randn(3, requires_grad=True)
    compiled(x)
    compiled(ember.randn(3, requires_grad=True))
    assert len(compiled._cache) == 1
    compiled(ember.randn(4, requires_grad=True))
    assert len(compiled._cache) == 2


def test_outputs_aliasing_inputs_are_views_outside_the_graph():
    x = ember.randn(3, 4, requires_grad=True)
    a, b = aot_function(lambda t: (t.t(), t * 2), nop)(x)
    assert a._base is x and a.data_ptr() == x.data_ptr()
    (a.sum() * 3 + b.sum()).backward()
    _close(x.grad, ember.full((3, 4), 5.0))


def test_aot_module_keyword_arguments():
    model = GPT(vocab=16, n_layer=1, n_head=2, n_embd=8, block_size=4)
    idx, tgt = ember.randint(0, 16, (2, 4)), ember.randint(0, 16, (2, 4))
    out = aot_module(copy.deepcopy(model), nop)(idx, targets=tgt)
    _close(out, model(idx, targets=tgt))


def test_mutated_input_aliasing_another_input_runs_eagerly():
    def f(a, b):
        a.add_(1)
        return a * b

    compiled = aot_function(f, nop)
    x, y = ember.ones(3), ember.ones(3)
    _close(compiled(x, y), ember.full((3,), 2.0))  # traced with distinct inputs
    z = ember.ones(3)
    _close(compiled(z, z), ember.full((3,), 4.0))  # same tensor twice: eager semantics
    _close(z, ember.full((3,), 2.0))


def test_in_place_writes_through_views_under_autograd():
    def f(x, w):
        h = x @ w
        h[:, 0].mul_(2)
        h.view(-1)[1:3].add_(1)
        h.relu_()
        return (h * h).sum()

    x, w = ember.randn(3, 4), ember.randn(4, 5, requires_grad=True)
    ref = f(x, w)
    ref.backward()
    g = w.grad.clone()
    w.grad = None
    out = aot_function(f, nop)(x, w)
    out.backward()
    _close(out, ref)
    _close(w.grad, g)


def test_batch_norm_train_eval_and_no_grad():
    model = CNNBN()
    compiled_model = copy.deepcopy(model)
    compiled = aot_module(compiled_model, nop)
    x = ember.randn(2, 3, 8, 8)
    with ember.no_grad():  # inference graph, still updating the running statistics
        _close(compiled(x), model(x))
    for b, c in zip(model.buffers(), compiled_model.buffers()):
        _close(c, b)
    model.eval()
    compiled_model.eval()  # another cache entry: BatchNorm reads its running statistics
    _close(compiled(x), model(x))
    assert int(compiled_model.bn.num_batches_tracked) == 1


def _saved_bytes(fw_gm, num_fwd_outputs):
    """Bytes of the intermediates a forward graph saves for backward (primals are free)."""
    saved = fw_gm.graph.find_nodes(op="output")[0].args[0][num_fwd_outputs:]
    return sum(n.meta["val"].numel() * n.meta["val"].element_size() for n in saved
               if n.op != "placeholder")


def test_min_cut_partition_matches_eager_and_saves_no_more():
    from ember._functorch import default_partition, min_cut_rematerialization_partition
    ember.manual_seed(0)
    model = Block(16, 2, 8, dropout=0.2)
    x = ember.randn(2, 8, 16)
    ember.manual_seed(3)
    ref = model(x)
    ref.sum().backward()
    saved = {}
    for part in (default_partition, min_cut_rematerialization_partition):
        graphs = []

        def keep(gm, example_inputs):
            graphs.append(gm)
            return gm

        compiled_model = copy.deepcopy(model)
        compiled_model.zero_grad()
        ember.manual_seed(3)
        out = aot_module(compiled_model, keep, partition_fn=part)(x)
        out.sum().backward()
        _close(out, ref)
        for p, q in zip(model.parameters(), compiled_model.parameters()):
            _close(q.grad, p.grad)
        saved[part] = _saved_bytes(graphs[0], 1)
    assert saved[min_cut_rematerialization_partition] <= saved[default_partition]
