"""ember.functorch.dim against torch's functorch.dim on the documented examples (einsum-style
products, rearrangement, batching, indexing puzzles, attention) and their gradients.

Each example is written once against a namespace ``(torch-like module, dims module)`` and run with
both, from the same NumPy inputs.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from functorch import dim as tdim

import ember
from ember.functorch import dim as edim

LIBS = {"torch": (torch, tdim), "ember": (ember, edim)}


def _run(example, *arrays, grad=False):
    """Outputs (and input gradients) of ``example`` in torch and ember, as NumPy arrays."""
    out = {}
    for name, (T, D) in LIBS.items():
        xs = [T.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
        r = example(T, D, *xs)
        res = [r.detach().numpy()]
        if grad:
            (r * T.tensor(np.linspace(-1, 1, r.numel()).reshape(tuple(r.shape)), dtype=r.dtype)).sum().backward()
            res += [x.grad.numpy() for x in xs if x.requires_grad]
        out[name] = res
    return out["torch"], out["ember"]


def _check(example, *arrays, grad=False, rtol=1e-5, atol=1e-6):
    want, got = _run(example, *arrays, grad=grad)
    assert len(want) == len(got)
    for w, g in zip(want, got):
        assert w.shape == g.shape and w.dtype == g.dtype
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


rng = np.random.default_rng(0)


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def mm(T, D, A, B):
    i, j, k = D.dims(3)
    return (A[i, k] * B[k, j]).sum(k).order(i, j)


def bmm(T, D, A, B):
    i = D.dims(1)
    return mm(T, D, A[i], B[i]).order(i)


def gram(T, D, y):
    b, c, c2, h, w = D.dims()
    r = (y[b, c, h, w] * y[b, c2, h, w]).sum((h, w))
    r = r / (h.size * w.size)
    return r.order(b, c, c2)


def attention(T, D, K, Q, V):
    batch, channel, key, query = D.dims(4)
    k, q, v = K[batch, channel, key], Q[batch, channel, query], V[batch, channel, key]
    a = (k * q).sum(channel)
    a = D.softmax(a * (channel.size ** -0.5), dim=key)
    r = (v * a).sum(key)
    return T.cat((r.order(batch, channel, query), Q), dim=1)


def multihead(T, D, q, k, v):
    batch, query_sequence, key_sequence, heads, features = D.dims(5)
    heads.size = 2
    q = q[batch, query_sequence, [heads, features]]
    k = k[batch, key_sequence, [heads, features]]
    v = v[batch, key_sequence, [heads, features]]
    scores = (q * k).sum(features) * (features.size ** -0.5)
    probs = D.softmax(scores, dim=key_sequence)
    context = (probs * v).sum(key_sequence)
    return context.order(batch, query_sequence, [heads, features])


def pixel_shuffle(T, D, img):
    h2, w2, c, b, h, w = D.dims(6)
    h2.size = w2.size = 2
    return img[b, (c, h2, w2), h, w].order(b, c, (h, h2), (w, w2))


def embedding_bag(T, D, ids, W):
    batch, sequence, features = D.dims(3)
    return W[ids[batch, sequence], features].sum(sequence).order(batch, features)


def batch_linear(T, D, examples, weights):
    batch = D.dims(1)
    return examples[batch].dot(weights).relu().order(batch)


def outer(T, D, a, b):
    i, j = D.dims(2)
    return (a[i] * b[j]).order(i, j)


def diag(T, D, a):
    i = D.dims(1)
    return a[i, i].order(i)


def triu(T, D, A):
    i, j = D.dims()
    a = A[i, j]
    return T.where(i <= j, a, 0.).order(i, j)


def diff(T, D, a):
    i = D.dims(1)
    d = a[i] - a[i - 1]
    return T.where(i - 1 >= 0, d, a[i]).order(i)


def vstack(T, D, a, b):
    v, i = D.dims(sizes=[2, None])
    return T.where(v == 0, a[i], b[i]).order(v, i)


def roll(T, D, a):
    i = D.dims(sizes=[a.size(0)])
    return a[T.where(i + 1 < i.size, i + 1, 0)].order(i)


def flip(T, D, a):
    i = D.dims(sizes=[a.size(0)])
    return a[i.size - i - 1].order(i)


def sequence_mask(T, D, values, length):
    j, i = D.dims()
    v = values[i, j]
    return T.where(j < length[i], v, 0.).order(i, j)


def reductions(T, D, x):
    b, c, w = D.dims(3)
    t = x[b, c, w]
    parts = [t.sum(w).order(b, c), t.mean((c, w)).order(b), t.max(c).values.order(b, w),
             t.min(w)[0].order(c, b), t.amax(w).order(b, c), t.std(w).order(b, c),
             t.logsumexp(c).order(w, b), t.softmax(w).order(b, c, w), t.cumsum(w).order(c, w, b),
             t.prod(b).order(c, w), t.sum((b, c, w))]
    y = x[b]  # positional (3, 4): no dim given reduces the positional dims only
    parts += [y.sum().order(b), y.mean().order(b), y.std().order(b), y.amax().order(b)]
    return T.cat([p.reshape(-1) for p in parts])


def argmax_indices(T, D, x):
    b, c = D.dims(2)
    t = x[b, c]
    return T.stack([t.argmax(c).order(b), t.max(c).indices.order(b), t.argmin(b).order(c)[:3]])


def transpose_order(T, D, A):
    i, j = D.dims(2)
    B = A[i, j].order(j, i)
    C = A[i].order(i)
    return B.reshape(-1) + 2 * C.t().reshape(-1)


def split_flatten(T, D, A):
    i, j, k = D.dims(3)
    j.size = 2
    a = A[(i, j), k]
    return a.order(i, (j, k)) + a.order(k, j, i).reshape(8, 3).t()


def mixed_positional(T, D, x):
    p = D.dims(1)
    y = x[p]
    r = (y.softmax(-1) * 2 + y).sum(0)  # positional ops batched over p
    return (r + y.t()[:, 0] + y.t() @ y[:, 0] + y.mean(1).sum(-1)).order(p)


def mixed_positional_reference(x):
    r = (x.softmax(-1) * 2 + x).sum(1)
    return r + x[:, 0, :] + (x.transpose(1, 2) @ x[:, :, :1])[..., 0] + x.mean(2).sum(-1)[:, None]


def index_method(T, D, x):
    i, j, k = D.dims(3)
    a = x.index((0, 2), (i, j))               # dims=(i, j), positional (3,)
    b = a.index(i, 1)                          # index the first-class dim i at 1
    c = x.index(-1, k).sum(k)
    return T.cat([b.order(j).reshape(-1), c.reshape(-1), a.sum((i, j))])


def ellipsis_and_lists(T, D, x):
    e, f = D.dims(2)
    bl = D.dimlists(1)
    g = D.dims(1)
    a = x[e, ..., f].order(f, e)
    b = x[bl, g].order(g, *bl)
    return a.reshape(-1) + b.permute(1, 2, 0).reshape(-1) * 0 + b.reshape(-1)


def fc_cat_stack(T, D, A):
    r, s, q, u = D.dims(4)
    st = D.stack([A[r], A[r] * 2], s, 0).order(s, r)
    ct = D.cat([A[r, u], A[r, u] * 3], u, q).order(r, q)
    return T.cat([st.reshape(-1), ct.reshape(-1)])


def shape_ops_batched(T, D, x, w):
    p = D.dims(1)
    y = x[p]  # positional (3, 4) per index of p
    F = T.nn.functional
    out = [y.reshape(12), y.view(4, 3), y.transpose(0, 1), y.permute(-1, 0), y.flatten(), y.T, y.mT,
           y.t(), y.reshape(-1, 2), y.expand(2, 3, 4), y.unsqueeze(0), y[:1].squeeze(0),
           F.linear(y, w)]  # (layer_norm takes the same path; its first call loads Numba: seconds)
    return T.cat([o.order(p).reshape(-1) for o in out])


def relative_positional_embedding(T, D, q, k, w):
    batch, query_sequence, key_sequence, heads, features = D.dims(5)
    heads.size = 2
    q = q[batch, query_sequence, [heads, features]]
    k = k[batch, key_sequence, [heads, features]]
    distance = query_sequence - key_sequence  # dims as tensors: index arithmetic
    embedding = w[distance + w.size(0) // 2, features]
    scores = (q * embedding).sum(features) + (k * embedding).sum(features)
    return scores.order(batch, heads, key_sequence, query_sequence)


def index_by_own_dim(T, D, x):
    i = D.dims(1)
    y = x[i]  # positional (3, 4) for each i
    return y[i].order(i)  # i already a dim of y: indexes (the diagonal of i and positional 0)


CASES = [
    ("relative_positional_embedding", relative_positional_embedding,
     (rand(2, 5, 8), rand(2, 5, 8), rand(9, 4))),
    ("index_by_own_dim", index_by_own_dim, (rand(3, 3, 4),)),
    ("shape_ops_batched", shape_ops_batched, (rand(2, 3, 4), rand(5, 4))),
    ("mm", mm, (rand(3, 4), rand(4, 5))),
    ("reductions", reductions, (rand(2, 3, 4),)),
    ("bmm", bmm, (rand(2, 3, 4), rand(2, 4, 5))),
    ("gram", gram, (rand(2, 3, 4, 5),)),
    ("attention", attention, (rand(2, 3, 4), rand(2, 3, 5), rand(2, 3, 4))),
    ("multihead", multihead, (rand(2, 3, 8), rand(2, 4, 8), rand(2, 4, 8))),
    ("pixel_shuffle", pixel_shuffle, (rand(2, 8, 3, 3),)),
    ("batch_linear", batch_linear, (rand(3, 5), rand(5))),
    ("outer", outer, (rand(3), rand(4))),
    ("diag", diag, (rand(3, 4),)),
    ("triu", triu, (rand(3, 4),)),
    ("diff", diff, (rand(5),)),
    ("vstack", vstack, (rand(4), rand(4))),
    ("roll", roll, (rand(5),)),
    ("flip", flip, (rand(5),)),
    ("transpose_order", transpose_order, (rand(3, 4),)),
    ("split_flatten", split_flatten, (rand(6, 4),)),
    ("index_method", index_method, (rand(2, 3, 4),)),
    ("ellipsis_and_lists", ellipsis_and_lists, (rand(2, 3, 4),)),
    ("fc_cat_stack", fc_cat_stack, (rand(2, 3),)),
]


@pytest.mark.parametrize("name,example,arrays", CASES, ids=[c[0] for c in CASES])
def test_forward_and_grad_match_torch(name, example, arrays):
    _check(example, *arrays, grad=True)


def test_integer_index_examples_match_torch():
    ids = np.array([[1, 0, 4, 3], [2, 2, 0, 1]])
    _check(embedding_bag, ids, rand(5, 2))
    _check(sequence_mask, rand(3, 4), np.array([1, 3, 0]))
    want, got = _run(argmax_indices, rand(3, 4))
    np.testing.assert_array_equal(got[0], want[0])


def test_float64_and_eye_puzzle():
    def eye(T, D, n):
        i, j = D.dims(sizes=[int(n.item()), int(n.item())])
        return T.where(i == j, 1, 0).order(i, j)
    _check(eye, np.array(4))
    _check(mm, rand(3, 4).astype(np.float64), rand(4, 2).astype(np.float64), grad=True)


def test_positional_dims_batched_over_first_class_dims():
    """Positional ops (softmax(-1), sum(0), t(), @, mean(1)) run per index of the first-class dims.
    torch 2.13's functorch.dim raises AssertionErrors on several of these forms (``x.sum(-1)``
    with mixed positional dims), so the oracle is the same computation on plain torch tensors."""
    x = rand(2, 3, 4)
    xt, xe = torch.tensor(x, requires_grad=True), ember.tensor(x, requires_grad=True)
    want, got = mixed_positional_reference(xt), mixed_positional(ember, edim, xe)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    want.sum().backward()
    got.sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_dim_argument_with_several_tensor_arguments_and_positional_flags():
    """``cosine_similarity(a, b, dim=j)`` (a Dim as ``dim`` with two first-class arguments) and
    ``std(0, True)`` (``unbiased`` in keepdim's usual place); torch 2.13's functorch.dim fails on
    the first (vmap over ``.item()``), so the oracle is plain torch on the underlying tensors."""
    a, b = rand(3, 4, 5), rand(3, 4, 5)
    i, j = edim.dims(2)
    A = ember.tensor(a, requires_grad=True)
    got = ember.nn.functional.cosine_similarity(A[i, j], ember.tensor(b)[i, j], dim=j).order(i)
    At = torch.tensor(a, requires_grad=True)
    want = torch.nn.functional.cosine_similarity(At, torch.tensor(b), dim=1)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(A.grad.numpy(), At.grad.numpy(), rtol=1e-5, atol=1e-6)
    p = edim.dims(1)
    np.testing.assert_allclose(ember.tensor(a)[p].std(0, True).order(p).numpy(),
                               torch.tensor(a).std(1, True).numpy(), rtol=1e-5)
