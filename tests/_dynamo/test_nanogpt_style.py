"""nanoGPT-style use: a compiled GPT trained a few iterations (its loss falls, parameters equal an
eager twin's), a compiled train step with backward()/step() breaks, then generation."""
import numpy as np

import ember
from ember._dynamo.testing import CompileCounter

from ._zoo import GPT

TEXT = "hello ember, hello graphs. " * 8


def _data():
    chars = sorted(set(TEXT))
    ids = ember.tensor([chars.index(c) for c in TEXT])
    X = ember.stack([ids[i:i + 8] for i in range(0, 64, 8)])
    Y = ember.stack([ids[i + 1:i + 9] for i in range(0, 64, 8)])
    return chars, X, Y


def _model_and_opt(V):
    ember.manual_seed(0)
    m = GPT(V=V, T=8, d=16, h=2, L=2)
    return m, ember.optim.AdamW(m.parameters(), lr=3e-2)


def _generate(model, idx, n):
    for _ in range(n):
        logits, _ = model(idx[:, -8:])
        nxt = logits[:, -1, :].argmax(-1, keepdim=True)
        idx = ember.cat([idx, nxt], dim=1)
    return idx


def test_compiled_gpt_trains_and_generates():
    chars, X, Y = _data()
    m, opt = _model_and_opt(len(chars))
    m2, opt2 = _model_and_opt(len(chars))
    cnt = CompileCounter()
    cm = ember.compile(m, backend=cnt)
    losses = []
    for _ in range(6):
        _, loss = cm(X, Y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        _, loss2 = m2(X, Y)
        loss2.backward()
        opt2.step()
        opt2.zero_grad(set_to_none=True)
        losses.append(float(loss))
        np.testing.assert_allclose(float(loss), float(loss2), rtol=1e-5)
    assert losses[-1] < losses[0] * 0.8
    assert cnt.frame_count == 1
    for p, q in zip(m.parameters(), m2.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-4, atol=1e-5)
    start = X[:1, :1]
    with ember.no_grad():
        out = _generate(cm, start, 6)
        ref = _generate(m, start, 6)
    assert ember.equal(out, ref) and out.shape == (1, 7)


def test_compiled_train_step_forward_graph_backward_break_optimizer_graph():
    chars, X, Y = _data()
    m, opt = _model_and_opt(len(chars))
    m2, opt2 = _model_and_opt(len(chars))

    def train_step(model, opt, x, y):
        _, loss = model(x, y)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss
    cnt = CompileCounter()
    cstep = ember.compile(train_step, backend=cnt)
    for _ in range(4):
        l1 = cstep(m, opt, X, Y)
        l2 = train_step(m2, opt2, X, Y)
        np.testing.assert_allclose(float(l1), float(l2), rtol=1e-5)
    assert cnt.frame_count == 2   # the forward graph, backward()'s break, the optimizer graph
    for p, q in zip(m.parameters(), m2.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-4, atol=1e-5)
