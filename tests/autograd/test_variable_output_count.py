"""A node's output count is its own (issue 17): an op whose number of outputs varies between calls
(rnn_split_steps: one per time step) used to store the count on the node class, so a GRU run over 5
steps then over 1 (a seq2seq encoder and a step-by-step attention decoder) failed in backward with
IndexError in the engine."""
import numpy as np
import torch

import ember


def _run(lib, state, xs):
    g = lib.nn.GRU(3, 4)
    g.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    x = lib.tensor(xs[0], requires_grad=True)
    out, h = g(x)                                  # encoder: 5 steps
    dec_in = lib.tensor(xs[1])
    loss = out.sum()
    for _ in range(3):                             # decoder: one step at a time
        o, h = g(dec_in, h)
        loss = loss + (o * o).sum()
        dec_in = o.detach()[..., :3]
    loss.backward()
    return x.grad.numpy(), [p.grad.numpy() for p in g.parameters()]


def test_gru_long_then_short_sequences_backward():
    torch.manual_seed(0)
    state = {k: v.numpy() for k, v in torch.nn.GRU(3, 4).state_dict().items()}
    rng = np.random.default_rng(0)
    xs = (rng.standard_normal((5, 1, 3)).astype(np.float32), rng.standard_normal((1, 1, 3)).astype(np.float32))
    (tx, tp), (ex, ep) = _run(torch, state, xs), _run(ember, state, xs)
    np.testing.assert_allclose(ex, tx, rtol=1e-4, atol=1e-5)
    for e, t in zip(ep, tp):
        np.testing.assert_allclose(e, t, rtol=1e-4, atol=1e-5)
