"""Custom autograd functions (layer L2): ``Function`` with ``forward``/``backward`` staticmethods.

As in torch, the ``ctx`` a Function's forward sees is the graph Node itself (``y.grad_fn``), an
instance of ``<Class>Backward``. Both styles work: ``forward(ctx, *args)``, or ``forward(*args)``
plus ``setup_context(ctx, inputs, output)``.

Example:
    >>> import ember
    >>> class Square(ember.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         x, = ctx.saved_tensors
    ...         return 2 * x * grad
    >>> x = ember.tensor([1., 3.], requires_grad=True)
    >>> y = Square.apply(x); y.sum().backward()
    >>> x.grad, y.grad_fn.name()
    (tensor([2., 6.]), 'SquareBackward')
"""
from __future__ import annotations

import functools
from typing import Any

from .._tensor_base import TensorBase
from ._recording import copy_slices, edge_of
from .grad_mode import STATE
from .graph import _FREED, Node, SavedTensor

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable", "InplaceFunction"]


class FunctionCtx:
    """The ``ctx`` API: what forward/setup_context record for backward."""

    def save_for_backward(self, *tensors) -> None:
        """Save tensors (or None) for backward; read them back with ``ctx.saved_tensors``."""
        for t in tensors:
            if t is not None and not isinstance(t, TensorBase):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        """Declare inputs modified in place by forward (they must be returned as outputs)."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args) -> None:
        """Declare outputs that get no gradient (e.g. indices); backward receives zeros for them."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """With False, backward may receive None for outputs that got no gradient."""
        self.materialize_grads = value

    @property
    def saved_tensors(self) -> tuple:
        saved = self._saved
        if saved is None:
            if self._released:
                raise RuntimeError(_FREED)
            return tuple(getattr(self, "to_save", ()))
        return tuple(s.unpack(self) if s is not None else None for s in saved)

    saved_variables = saved_tensors


class BackwardCFunction(Node, FunctionCtx):
    """The graph Node of a custom Function; the ``ctx`` of its forward and backward."""

    _forward_cls: type = None

    def __init__(self):
        Node.__init__(self, ())
        self._saved = None
        self._released = False
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._out_meta = ()
        self._n_out = 1
        self._input_tensor = ()

    def name(self) -> str:
        return type(self).__name__

    def apply(self, *args):
        # the engine calls apply([grads...]); users call grad_fn.apply(grad, ...) like torch's
        grads = list(args[0]) if len(args) == 1 and type(args[0]) is list else list(args)
        return self._backward(grads)

    def _backward(self, grads):
        cls = self._forward_cls
        if self._released and self._saved is not None:
            raise RuntimeError(_FREED)
        if self.materialize_grads:
            grads = [g if g is not None or m is None else _zeros(m) for g, m in
                     zip(grads, self._out_meta)]
        res = cls.backward(self, *grads)
        if type(res) is not tuple:
            res = (res,)
        return self._fit(res)

    def _fit(self, res) -> list:
        metas = self._input_tensor  # one per forward argument: (shape, dtype) or None (no tensor)
        n = len(metas)
        name = self.name()
        if len(res) != n:
            if len(res) > n and all(r is None for r in res[n:]):
                res = res[:n]
            else:
                raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                                   f"(expected {n}, got {len(res)})")
        out = []
        for i, (r, meta) in enumerate(zip(res, metas)):
            if meta is None:
                if r is not None:
                    raise RuntimeError(f"function {name} returned a gradient different than None at "
                                       f"position {i + 1}, but the corresponding forward input was "
                                       "not a Variable")
                continue
            if r is None or self.next_functions[len(out)][0] is None:
                out.append(None)
                continue
            if not isinstance(r, TensorBase):
                raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                                f"{type(r).__name__}")
            shape, dt = meta
            if tuple(r.shape) != shape:
                if not _expandable(shape, tuple(r.shape)):
                    raise RuntimeError(f"Function {name} returned an invalid gradient at index {i} - "
                                       f"got {list(r.shape)} but expected shape compatible with "
                                       f"{list(shape)}")
                r = r.sum_to_size(shape)
            if r.dtype is not dt:
                r = r.real.to(dt) if r.dtype.is_complex and not dt.is_complex else r.to(dt)
            out.append(r)
        return out

    def release(self) -> None:
        self._saved = None
        self._released = True
        self.__dict__.pop("to_save", None)


def _expandable(shape, desired) -> bool:
    if len(shape) > len(desired):
        return False
    for a, b in zip(reversed(shape), reversed(desired)):
        if a != b and a != 1:
            return False
    return True


def _zeros(meta):
    shape, dt, like = meta
    return like.new_zeros(shape, dtype=dt)


class FunctionMeta(type):
    """Creates ``<Name>Backward``, the Node class of each Function subclass."""

    def __init__(cls, name, bases, attrs):
        backward_fn = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        backward_fn.__module__ = cls.__module__
        backward_fn.__qualname__ = name + "Backward"
        cls._backward_cls = backward_fn
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class of custom autograd operations: subclass, define ``forward`` and ``backward``
    staticmethods, and call ``MyFn.apply(*args)``."""

    generate_vmap_rule = False

    def __init__(self, *args, **kwargs):
        import warnings
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions are "
                      "all static, so you should invoke them on the class itself. Instantiating an "
                      "autograd function will raise an error in a future version of PyTorch.",
                      DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. "
                           "Please use new-style autograd function with static forward method. "
                           "(Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function "
                                  "to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` without recording and record one ``<Name>Backward`` node for its outputs."""
        from ..overrides import try_torch_function
        r = try_torch_function(cls.apply, args, *args, **kwargs)
        if r is not NotImplemented:
            return r
        return _apply(cls, args, kwargs)


def _is_setup_context_defined(fn) -> bool:
    return fn is not Function.setup_context


def _apply(cls, args, kwargs):
    ctx = cls._backward_cls()
    needs = tuple(isinstance(a, TensorBase) and a._requires_grad for a in args)
    ctx.needs_input_grad = needs
    record = STATE.enabled and any(needs)
    prev = STATE.enabled
    STATE.enabled = False
    try:
        if _is_setup_context_defined(cls.setup_context):
            output = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, output)
        else:
            output = cls.forward(ctx, *args, **kwargs)
    finally:
        STATE.enabled = prev
    single = not isinstance(output, tuple)
    outs = (output,) if single else output
    if not record:
        return output
    outs = _wrap_outputs(ctx, args, outs)
    return outs[0] if single else outs


def _wrap_outputs(ctx, args, outs) -> tuple:
    """Give outputs ``ctx`` as grad_fn, then save what forward asked to save (with versions)."""
    for t in getattr(ctx, "dirty_tensors", ()):
        t._version_cell().value += 1  # torch counts the declared in-place write once more
    edges, metas = [], []  # as torch: one edge per tensor argument, none for other arguments
    for a in args:
        if isinstance(a, TensorBase):
            edges.append(edge_of(a) if a._requires_grad else (None, 0))
            metas.append((tuple(a.shape), a._dtype))
        else:
            metas.append(None)
    ctx.next_functions = tuple(edges)
    ctx._input_tensor = metas
    ctx._n_out = len(outs)
    dirty = {id(t) for t in getattr(ctx, "dirty_tensors", ())}
    nondiff = {id(t) for t in getattr(ctx, "non_differentiable", ())}
    inputs = {id(a) for a in args if isinstance(a, TensorBase)}
    raw_to_final = {}
    final, out_meta = [], []
    for i, o in enumerate(outs):
        if not isinstance(o, TensorBase):
            final.append(o)
            out_meta.append(None)
            continue
        out_meta.append((tuple(o.shape), o._dtype, o))
        if id(o) in dirty:
            if o._requires_grad and o._grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                                   "operation.")
            t = o
            if id(o) not in nondiff and o._dtype.category >= 2:
                if o._base is not None:
                    res = o.detach()
                    res._grad_fn, res._output_nr, res._requires_grad = ctx, i, True
                    copy_slices(o._base, o, res)
                else:
                    o._grad_fn, o._output_nr, o._requires_grad = ctx, i, True
        else:
            # an input returned as-is or a view made in forward: a fresh alias carries the history
            t = o.detach() if id(o) in inputs or o._base is not None else o
            if id(o) in nondiff or o._dtype.category < 2:
                t._requires_grad = False
            else:
                t._grad_fn, t._output_nr, t._requires_grad = ctx, i, True
        raw_to_final[id(o)] = (t, i)
        final.append(t)
    # outputs keep only shape/dtype for zero grads, never the output itself (no reference cycle)
    ctx._out_meta = [(m[0], m[1], _template(m[2])) if m is not None else None for m in out_meta]
    to_save = getattr(ctx, "to_save", None)
    if to_save is not None:
        saved = []
        for t in to_save:
            if t is None:
                saved.append(None)
            elif id(t) in raw_to_final:
                f, i = raw_to_final[id(t)]
                saved.append(SavedTensor(f, f._grad_fn is ctx, i))
            else:
                saved.append(SavedTensor(t))
        ctx._saved = saved
        del ctx.to_save
    return tuple(final)


def _template(o):
    d = o.detach()
    return d.new_empty((0,))


def once_differentiable(fn):
    """Decorate a ``backward`` that is not itself differentiable: it runs without recording, and a
    second differentiation through it raises."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = STATE.enabled
        STATE.enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            STATE.enabled = prev
        if not prev:
            return outputs
        requires = any(isinstance(a, TensorBase) and a._requires_grad for a in args)
        if not requires:
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        err = DelayedError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable", len(args))
        err.next_functions = tuple(edge_of(a) if isinstance(a, TensorBase) and a._requires_grad
                                   else (None, 0) for a in args)
        wrapped = []
        for o in outs:
            if isinstance(o, TensorBase) and o._dtype.category >= 2:
                o = o.detach()
                o._grad_fn, o._output_nr, o._requires_grad = err, 0, True
            wrapped.append(o)
        return wrapped[0] if single else tuple(wrapped)
    return wrapper


class DelayedError(Node):
    """A Node that raises when backward reaches it (double backward through once_differentiable)."""

    __slots__ = ("msg",)

    def __init__(self, msg: str, num_inputs: int = 1):
        Node.__init__(self, ())
        self.msg = msg

    def apply(self, grads):
        raise RuntimeError(self.msg)


class InplaceFunction(Function):
    """A Function taking an ``inplace`` flag (legacy base class kept for torch parity)."""

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace
