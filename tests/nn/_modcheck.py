"""Compare an ember module with torch's: same repr, state_dict keys/shapes/buffers; torch's weights
copied in; outputs, input gradients and parameter gradients equal in train and eval mode."""
import numpy as np
import torch

import ember

from ._helpers import to_ember


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    if hasattr(out, "data") and hasattr(out, "batch_sizes"):  # PackedSequence
        return [out.data]
    return [out] if out is not None else []


def _conv(v, memo):
    if isinstance(v, torch.Tensor):
        if id(v) not in memo:  # the same torch tensor maps to the same ember tensor
            memo[id(v)] = to_ember(v)
        return memo[id(v)]
    if isinstance(v, (tuple, list)) and not hasattr(v, "_fields"):
        return type(v)(_conv(x, memo) for x in v)
    return v


def check_module(tm, em, inputs, kwargs=None, modes=("train", "eval"), rtol=1e-5, atol=1e-5,
                 check_repr=True, seed_fn=None):
    """Run ``tm`` and ``em`` (torch's state copied into ember) on ``inputs``; compare everything."""
    kwargs = kwargs or {}
    if check_repr:
        assert repr(em) == repr(tm), (repr(em), repr(tm))
    tsd, esd = tm.state_dict(), em.state_dict()
    assert list(esd) == list(tsd)
    assert [tuple(v.shape) for v in esd.values()] == [tuple(v.shape) for v in tsd.values()]
    assert [n for n, _ in em.named_buffers()] == [n for n, _ in tm.named_buffers()]
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    em.load_state_dict({k: to_ember(v, requires_grad=False) for k, v in tsd.items()})
    for mode in modes:
        tm.train(mode == "train")
        em.train(mode == "train")
        tm.zero_grad()
        em.zero_grad()
        memo = {}
        tin = [x.detach().clone().requires_grad_(x.requires_grad) if isinstance(x, torch.Tensor)
               else x for x in inputs]
        ein = [_conv(x, memo) for x in tin]
        ekw = {k: _conv(v, memo) for k, v in kwargs.items()}
        tout, eout = _flat(tm(*tin, **kwargs)), _flat(em(*ein, **ekw))
        assert len(tout) == len(eout)
        for e, t in zip(eout, tout):
            assert tuple(e.shape) == tuple(t.shape)
            assert str(e.dtype) == str(t.dtype)
            np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)
        gen = np.random.default_rng(0)
        tl = sum((t * torch.from_numpy(gen.standard_normal(t.shape).astype(np.float64)).to(t.dtype)).sum()
                 for t in tout if t.requires_grad)
        if isinstance(tl, int):
            continue
        gen = np.random.default_rng(0)
        el = sum((e * ember.tensor(gen.standard_normal(e.shape).astype(np.float64)).to(e.dtype)).sum()
                 for e, t in zip(eout, tout) if t.requires_grad)
        tl.backward()
        el.backward()
        for x, ex in zip(tin, ein):
            if isinstance(x, torch.Tensor) and x.requires_grad:
                np.testing.assert_allclose(ex.grad.numpy(), x.grad.numpy(), rtol=rtol, atol=atol)
        for (n, tp), ep in zip(tm.named_parameters(), em.parameters()):
            if tp.grad is None:
                assert ep.grad is None or not ep.grad.numpy().any(), n
            else:
                np.testing.assert_allclose(ep.grad.numpy(), tp.grad.numpy(), rtol=rtol, atol=atol,
                                           err_msg=n)
        for (n, tb), eb in zip(tm.named_buffers(), em.buffers()):
            np.testing.assert_allclose(eb.numpy(), tb.numpy(), rtol=rtol, atol=atol, err_msg=n)
