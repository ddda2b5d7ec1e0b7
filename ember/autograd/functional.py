"""Higher-level autograd: jacobian, hessian, vjp, jvp, hvp, vhp (torch.autograd.functional's API).

Functions take ``func`` and ``inputs`` (a Tensor or a tuple of Tensors); results mirror that
structure. ``vectorize`` is accepted and computes row by row (the same values).

Example:
    >>> import ember
    >>> from ember.autograd.functional import jacobian
    >>> jacobian(lambda x: x ** 2, ember.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
"""
from __future__ import annotations

from .._creation import zeros_like
from .._tensor import Tensor
from . import grad as _grad
from .grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(inp, arg_name=None, fn_name=None):
    if isinstance(inp, tuple):
        is_tuple = True
    elif isinstance(inp, list):
        inp, is_tuple = tuple(inp), True
    else:
        inp, is_tuple = (inp,), False
    if arg_name is not None:
        for i, el in enumerate(inp):
            if not isinstance(el, Tensor):
                if is_tuple:
                    raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                                    f"tuple of Tensors but the value at index {i} has type {type(el)}.")
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple "
                                f"of Tensors but the given {arg_name} has type {type(el)}.")
    return is_tuple, inp


def _tuple_postprocess(res, to_unpack):
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _prep(inputs, create_graph):
    # fresh leaves (or differentiable aliases when building a graph) that require grad
    return tuple((i.view_as(i) if create_graph and i.requires_grad else i.detach()).requires_grad_(True)
                 for i in inputs)


def _post(x, create_graph):
    if isinstance(x, tuple):
        return tuple(_post(e, create_graph) for e in x)
    return x if create_graph or x is None else x.detach()


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_out, new_go = [], []
    for out, go in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_out.append(out)
            new_go.append(go)
    if not new_out:
        return (None,) * len(inputs)
    return _grad(new_out, inputs, new_go, allow_unused=True, create_graph=create_graph,
                 retain_graph=retain_graph)


def _fill_zeros(grads, refs, strict, create_graph, stage):
    res = []
    for i, (g, r) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                if stage == "back":
                    raise RuntimeError(f"The output of the user-provided function is independent of "
                                       f"input {i}. This is not allowed in strict mode.")
                raise RuntimeError(f"The gradient with respect to input {i} is independent of the "
                                   "inputs of the user-provided function. This is not allowed in "
                                   "strict mode.")
            g = zeros_like(r)
        res.append(g)
    return tuple(res)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``."""
    with enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prep(inputs, create_graph)
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = tuple(e.detach() for e in v)
        else:
            if len(outputs) != 1 or outputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function "
                                   "returns a single Tensor with a single element.")
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        vjp_ = _fill_zeros(grad_res, inputs, strict, create_graph, "back")
    return (_tuple_postprocess(_post(outputs, create_graph), is_out_tuple),
            _tuple_postprocess(_post(vjp_, create_graph), is_in_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)`` by the double-vjp trick."""
    with enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prep(inputs, create_graph)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            for inp, e in zip(inputs, v):
                if tuple(inp.shape) != tuple(e.shape):
                    raise RuntimeError(f"Mismatch in shape: input has shape {tuple(inp.shape)} but v "
                                       f"has shape {tuple(e.shape)}")
        else:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the user-provided "
                                   "function is a single Tensor with a single element.")
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        grad_outputs = tuple(zeros_like(o).requires_grad_(True) for o in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        if v is None:
            v = tuple(zeros_like(i) + 1 for i in inputs)
        pairs = [(g, e) for g, e in zip(grad_inputs, v) if g is not None]
        if pairs:
            res = _autograd_grad(tuple(g for g, _ in pairs), grad_outputs, tuple(e for _, e in pairs),
                                 create_graph=create_graph)
        else:
            res = (None,) * len(outputs)
        jvp_ = _fill_zeros(res, outputs, strict, create_graph, "double_back")
    return (_tuple_postprocess(_post(outputs, create_graph), is_out_tuple),
            _tuple_postprocess(_post(jvp_, create_graph), is_out_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian: for output ``o`` and input ``i`` a tensor of shape ``o.shape + i.shape``."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If '
                         'your function has a single output and you want the Jacobian, use '
                         '"reverse-mode".')
    with enable_grad():
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prep(inputs, create_graph)
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for j in range(flat.numel()):
                if out.requires_grad:
                    g = _grad((flat[j],), inputs, allow_unused=True, retain_graph=True,
                              create_graph=create_graph)
                else:
                    g = (None,) * len(inputs)
                for k, (gk, inp) in enumerate(zip(g, inputs)):
                    if gk is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {k}. This is not allowed in "
                                               "strict mode.")
                        gk = zeros_like(inp)
                    rows[k].append(gk)
            per_input = []
            for k, inp in enumerate(inputs):
                if rows[k]:
                    from .._tensor_methods.shape_copy import stack
                    t = stack(rows[k], 0)
                else:
                    t = zeros_like(inp).reshape((0,) + tuple(inp.shape))
                per_input.append(t.reshape(tuple(out.shape) + tuple(inp.shape)))
            jac.append(tuple(per_input))
        jac = _post(tuple(jac), create_graph)
    return _tuple_postprocess(jac, (is_out_tuple, is_in_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: shape ``i.shape + j.shape`` per pair of inputs."""
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain "
                               "a single element")
        return out.squeeze()

    def jac_func(*inp):
        return jacobian(ensure_single_output_function, inp, create_graph=True, strict=strict)

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict)
    return _tuple_postprocess(res, (is_in_tuple, is_in_tuple))


def _scalar_output(func, inputs, name):
    outputs = func(*inputs)
    is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
    if is_out_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should contain a "
                           "single element")
    return outputs


def _check_v(v, inputs, name):
    if v is None:
        if len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided "
                               "function is a single Tensor with a single element.")
        return None
    _, v = _as_tuple(v, "v", name)
    return tuple(e.detach() for e in v)


def _first_derivative(func, inputs, v, create_graph: bool, strict: bool, name: str):
    """The common start of ``vhp``/``hvp`` (under enable_grad): checked inputs and ``v``, the scalar
    output and its gradient with a graph, zeros where an input is unused."""
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", name)
    inputs = _prep(inputs, create_graph)
    v = _check_v(v, inputs, name)
    outputs = _scalar_output(func, inputs, name)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    return is_in_tuple, inputs, v, outputs, _fill_zeros(jac, inputs, strict, create_graph, "back")


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)`` for a scalar function."""
    with enable_grad():
        is_in_tuple, inputs, v, outputs, jac = _first_derivative(func, inputs, v, create_graph, strict,
                                                                 "vhp")
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_zeros(grad_res, inputs, strict, create_graph, "double_back")
    return (_post(outputs[0], create_graph), _tuple_postprocess(_post(res, create_graph), is_in_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` for a scalar function."""
    with enable_grad():
        is_in_tuple, inputs, v, outputs, jac = _first_derivative(func, inputs, v, create_graph, strict,
                                                                 "hvp")
        grad_jac = tuple(zeros_like(i).requires_grad_(True) for i in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        res = _fill_zeros(grad_res, inputs, strict, create_graph, "double_back")
    return (_post(outputs[0], create_graph), _tuple_postprocess(_post(res, create_graph), is_in_tuple))
