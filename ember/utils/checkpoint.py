"""Activation checkpointing: run a segment without keeping its activations, recompute them in
backward with the same RNG state (so dropout masks replay).

``use_reentrant=True`` reruns the segment inside a custom Function's backward; ``use_reentrant=False``
(recommended) saves placeholders through ``saved_tensors_hooks`` and recomputes on first unpack, so it
also works with ``ember.autograd.grad`` and gradients to parameters only.

Example:
    >>> import ember
    >>> from ember.utils.checkpoint import checkpoint
    >>> x = ember.ones(3, requires_grad=True)
    >>> y = checkpoint(lambda t: (t * t).sin(), x, use_reentrant=False)
    >>> y.sum().backward()
    >>> x.grad
    tensor([1.0806, 1.0806, 1.0806])
"""
from __future__ import annotations

import warnings

from .._tensor import Tensor
from ..autograd import backward as _backward
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..autograd.graph import saved_tensors_hooks
from ..random import get_rng_state, set_rng_state

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointFunction"]


class _RngReplay:
    """Capture the CPU RNG state now; ``with replay():`` runs with it and restores the current one."""

    def __init__(self, preserve: bool):
        self.state = get_rng_state() if preserve else None

    def __enter__(self):
        if self.state is not None:
            self.outer = get_rng_state()
            set_rng_state(self.state)

    def __exit__(self, *exc):
        if self.state is not None:
            set_rng_state(self.outer)
        return False


class CheckpointFunction(Function):
    """The reentrant variant: forward under no_grad, backward reruns with grad and backpropagates."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng = _RngReplay(preserve_rng_state)
        ctx.inputs, ctx.tensor_indices, tensor_inputs = [], [], []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *args):
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            d = t.detach()
            d.requires_grad_(t.requires_grad)
            inputs[i] = d
        with ctx.rng, enable_grad():
            outputs = ctx.run_function(*inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, args) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = tuple(inp.grad if isinstance(inp, Tensor) else None for inp in inputs)
        return (None, None) + grads


class _Holder:
    __slots__ = ("__weakref__",)


def _checkpoint_without_reentrant(function, preserve_rng_state, args, kwargs):
    rng = _RngReplay(preserve_rng_state)
    holders = []
    recomputed = {}

    def pack(t):
        h = _Holder()
        holders.append(h)
        return h

    def unpack(h):
        if not recomputed:
            it = iter(holders)

            def pack_again(t):
                recomputed[next(it)] = t.detach() if t.grad_fn is not None or t.requires_grad else t
                return None

            def unpack_again(_):
                raise RuntimeError("a tensor saved during recomputation was used")

            with rng, enable_grad(), saved_tensors_hooks(pack_again, unpack_again):
                function(*args, **kwargs)
        if h not in recomputed:
            raise RuntimeError("torch.utils.checkpoint: Recomputed values for the following tensors "
                               "have different metadata than during the forward pass "
                               "(the recomputation saved fewer tensors).")
        return recomputed[h]

    with saved_tensors_hooks(pack, unpack):
        return function(*args, **kwargs)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, **kwargs):
    """Run ``function(*args, **kwargs)`` without storing intermediates; recompute them in backward."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed "
                      "explicitly. Starting in PyTorch 2.9, calling checkpoint without use_reentrant "
                      "will raise an exception. use_reentrant=False is recommended, but if you need "
                      "to preserve the current default behavior, you can pass use_reentrant=True. "
                      "Refer to docs for more details on the differences between the two variants.",
                      stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not None:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if not is_grad_enabled():
        return function(*args, **kwargs)
    return _checkpoint_without_reentrant(function, preserve, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Checkpoint a sequential model in ``segments`` chunks (the last chunk runs normally)."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter "
                      "should be passed explicitly. In version 2.9 we will raise an exception if "
                      "use_reentrant is not passed. use_reentrant=False is recommended, but if you "
                      "need to preserve the current default behavior, you can pass use_reentrant=True. "
                      "Refer to docs for more details on the differences between the two variants.",
                      stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
