"""``backward`` and ``grad``: the user's entry points to the engine (layer L2).

They check the outputs, make the implicit ``1.0`` gradient of a scalar, turn tensors into graph
edges and hand them to ``engine.run_backward``.

Example:
    >>> import ember
    >>> x = ember.tensor([1., 2.], requires_grad=True)
    >>> grad((x * x).sum(), x)
    (tensor([2., 4.]),)
"""
from __future__ import annotations

import numpy as _np

from .._primitives._registry import OBSERVED
from .._tensor_base import wrap
from ._recording import edge_of
from .engine import accumulate_captured, run_backward
from .grad_mode import STATE, is_grad_enabled
from .graph import AccumulateGrad

__all__ = ["backward", "grad"]


def _tensors(x) -> tuple:
    if x is None:
        return ()
    if hasattr(x, "_grad_fn"):
        return (x,)
    return tuple(x)


def _root_grads(outputs, grad_outputs, create_graph):
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not (out.dtype.is_floating_point or out.dtype.is_complex):
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but "
                                   f"got {out.dtype}")
            d = out._data
            # the implicit 1.0 (a plain array when nothing watches creations: new_ones' argument
            # handling costs ~1 us per backward)
            g = wrap(_np.ones(d.shape, d.dtype)) if d is not None and not OBSERVED[0]() \
                else out.new_ones(out.shape)
        else:
            if not hasattr(g, "_grad_fn"):
                g = out.new_full(out.shape, g)
            elif tuple(g.shape) != tuple(out.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{g.shape} and output[{i}] has a shape of {out.shape}.")
        grads.append(g)
    return grads


def _check_outputs(outputs):
    for i, out in enumerate(outputs):
        if not out._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a "
                               "grad_fn")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None) -> None:
    """Accumulate gradients of ``tensors`` into the ``.grad`` of graph leaves (or of ``inputs``)."""
    tensors = _tensors(tensors)
    if grad_tensors is None:
        grad_tensors = grad_variables
    gts = _tensors(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    if len(gts) != len(tensors):
        raise RuntimeError(f"got {len(gts)} tensors and {len(tensors)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    _check_outputs(tensors)
    grads = _root_grads(tensors, gts, create_graph)
    roots = [edge_of(t) for t in tensors]
    if inputs is not None:
        inputs = _tensors(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        capture = [edge_of(t) for t in inputs]
        got = run_backward(roots, grads, retain_graph=retain_graph, create_graph=create_graph,
                           capture=capture, accumulate=True)
        # a non-leaf that retains grad already got it from its retain_grad hook
        nonleaf = [(t, g) for t, g, (n, _) in zip(inputs, got, capture)
                   if not isinstance(n, AccumulateGrad) and not t.retains_grad]
        prev = is_grad_enabled()
        STATE.enabled = create_graph
        try:
            accumulate_captured([t for t, _ in nonleaf], [g for _, g in nonleaf])
        finally:
            STATE.enabled = prev
        return
    run_backward(roots, grads, retain_graph=retain_graph, create_graph=create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned (``.grad`` is not touched)."""
    outputs = _tensors(outputs)
    inputs = _tensors(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    gos = _tensors(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    _check_outputs(outputs)
    for i, t in enumerate(inputs):
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _root_grads(outputs, gos, create_graph)
    roots = [edge_of(t) for t in outputs]
    capture = [edge_of(t) for t in inputs]
    got = run_backward(roots, grads, retain_graph=retain_graph, create_graph=create_graph,
                       capture=capture, accumulate=False)
    result = []
    for i, (t, g) in enumerate(zip(inputs, got)):
        if g is None:
            if materialize_grads:
                g = t.new_zeros(t.shape)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been "
                                   "used in the graph. Set allow_unused=True if this is the desired "
                                   "behavior.")
        result.append(g)
    return tuple(result)
