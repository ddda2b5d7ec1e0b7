"""Matrix-product methods (layer L2): ``matmul`` and ``@``, ``mm``, ``bmm``, ``mv``, ``dot``,
``addmm``-style updates, ``outer``, ``einsum`` and ``tensordot``.

``matmul`` routes by rank to torch's primitives (``dot``, ``mv``, ``mm``; everything batched goes
to the broadcasting ``matmul`` primitive), so 2-D @ 2-D reports ``MmBackward0`` as in torch.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._dispatch import MODES, dispatch, wrap
from .._dispatch_inplace import dispatch_inplace, dispatch_out
from .._errors import dtype_title
from .._primitives import linalg as L
from ..overrides import PLAIN_TYPES, try_torch_function
from ._args import TensorBase

__all__ = ["LinalgMixin", "FUNCTIONS"]


def _name(fn, name=None):
    fn.__module__ = "ember._tensor"
    if name:
        fn.__name__ = fn.__qualname__ = name
    return fn


def _check_tensor(fn, pos, argname, x):
    if not isinstance(x, TensorBase):
        raise TypeError(f"{fn}(): argument '{argname}' (position {pos}) must be Tensor, not "
                        f"{type(x).__name__}")


def _check_out(out, dt, dot_style=False):
    if out._dtype is not dt:
        if dot_style:
            raise RuntimeError(f"result dtype {dtype_title(out._dtype)} does not match input dtype "
                               f"{dtype_title(dt)}")
        raise RuntimeError(f"Expected out tensor to have dtype {L.cname(dt)}, but got "
                           f"{L.cname(out._dtype)} instead")


def _run(op, out, *args, **params):
    if out is not None:
        _check_out(out, args[-1]._dtype, op is L.dot or op is L.vdot)
        return dispatch_out(op, out, *args, **params)
    return dispatch(op, *args, **params)


def matmul(input, other, *, out=None):
    """Matrix product with broadcasting over batch dims; 1-D operands are vectors.

    >>> import ember
    >>> (ember.ones(5, 2, 3) @ ember.ones(3, 4)).shape
    torch.Size([5, 2, 4])
    """
    if not (type(input) in PLAIN_TYPES and type(other) in PLAIN_TYPES):
        r = try_torch_function(matmul, (input, other), input, other, out=out)
        if r is not NotImplemented:
            return r
    _check_tensor("matmul", 1, "input", input)
    _check_tensor("matmul", 2, "other", other)
    da, db = input.dim(), other.dim()
    if MODES.stack and any(getattr(m, "casts_whole_matmul", False) for m in MODES.stack):
        op = L.matmul  # autocast: the mode casts torch's matmul (any ranks) before it runs
    else:
        if input._dtype is not other._dtype:
            L.matmul_meta(input, other, out is not None)
        if da == 2:
            op = L.mm if db == 2 else (L.mv if db == 1 else L.matmul)
        elif da == 1 and db == 1:
            op = L.dot
        else:
            op = L.matmul
    if out is not None:
        if out._dtype is not input._dtype:
            _check_out(out, input._dtype)
        return dispatch_out(op, out, input, other)
    return dispatch(op, input, other)


def _binary(op, name, second, dtype_op):
    def fn(input, other, *, out=None):
        if not (type(input) in PLAIN_TYPES and type(other) in PLAIN_TYPES):
            r = try_torch_function(fn, (input, other), input, other, out=out)
            if r is not NotImplemented:
                return r
        _check_tensor(name, 1, "input", input)
        _check_tensor(name, 2, second, other)
        if input._dtype is not other._dtype:
            L.check_same_dtype(dtype_op, input, other)
        return _run(op, out, input, other)
    return _name(fn, name)


mm = _binary(L.mm, "mm", "mat2", "mm")
mm.__doc__ = """``(n, m) @ (m, p) -> (n, p)``; both must be 2-D.

    >>> import ember
    >>> ember.mm(ember.ones(2, 3), ember.ones(3, 4)).shape
    torch.Size([2, 4])
    """
bmm = _binary(L.bmm, "bmm", "mat2", "bmm")
bmm.__doc__ = "Batched ``(b, n, m) @ (b, m, p) -> (b, n, p)``; no broadcasting."
mv = _binary(L.mv, "mv", "vec", "mv")
mv.__doc__ = "Matrix-vector product ``(n, m) @ (m,) -> (n,)``."
dot = _binary(L.dot, "dot", "tensor", "dot")
dot.__doc__ = "Inner product of two 1-D tensors (no conjugation); a 0-d tensor."
vdot = _binary(L.vdot, "vdot", "other", "vdot")
vdot.__doc__ = "``sum(conj(input) * other)`` of two 1-D tensors."


def _update_op(op, name, n1, n2):
    def fn(input, a, b, *, beta=1, alpha=1, out=None):
        args = (input, a, b)
        if not all(type(x) in PLAIN_TYPES for x in args):
            r = try_torch_function(fn, args, input, a, b, beta=beta, alpha=alpha, out=out)
            if r is not NotImplemented:
                return r
        for i, (x, n) in enumerate(zip(args, ("input", n1, n2))):
            _check_tensor(name, i + 1, n, x)
        params = {} if beta == 1 and alpha == 1 else {"beta": beta, "alpha": alpha}
        if op is not L.addr and (a._dtype is not b._dtype or input._dtype is not a._dtype):
            op.meta_rule(input, a, b, **params)
        return _run(op, out, input, a, b, **params)

    def inplace(input, a, b, *, beta=1, alpha=1):
        args = (input, a, b)
        if not all(type(x) in PLAIN_TYPES for x in args):
            r = try_torch_function(inplace, args, input, a, b, beta=beta, alpha=alpha)
            if r is not NotImplemented:
                return r
        params = {} if beta == 1 and alpha == 1 else {"beta": beta, "alpha": alpha}
        if op is L.addr and input.dim() != 2:
            raise RuntimeError(f"2D tensor expected, got {input.dim()}D tensor for input")
        res_shape = op.meta_rule(input, a, b, **params).shape
        if res_shape != tuple(input.shape):
            raise RuntimeError(f"Bad in-place call: input tensor size {list(input.shape)} and output "
                               f"tensor size {list(res_shape)} should match")
        return dispatch_inplace(op, input, a, b, **params)
    fn.__doc__ = f"``beta * input + alpha * ({n1} x {n2})``; see ``torch.{name}``."
    return _name(fn, name), _name(inplace, name + "_")


addmm, addmm_ = _update_op(L.addmm, "addmm", "mat1", "mat2")
addmv, addmv_ = _update_op(L.addmv, "addmv", "mat", "vec")
addr, addr_ = _update_op(L.addr, "addr", "vec1", "vec2")
baddbmm, baddbmm_ = _update_op(L.baddbmm, "baddbmm", "batch1", "batch2")


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    prod = bmm(batch1, batch2)
    prod = prod.sum(0, dtype=prod.dtype)
    if not (prod.dtype.is_floating_point or prod.dtype.is_complex):  # integers truncate the scalars
        alpha, beta = int(alpha), int(beta)
    if alpha != 1:
        prod = prod * alpha
    if beta == 0:  # input is ignored (even nan), yet receives a zero gradient as in torch
        res = prod + input.where(input.new_zeros((), dtype=D.bool), 0)
    else:
        res = prod + (input if beta == 1 else input * beta)
    if out is not None:
        return out.copy_(res)
    return res


def outer(input, vec2, *, out=None):
    """Outer product of two 1-D tensors: ``(n,), (m,) -> (n, m)``.

    >>> import ember
    >>> ember.outer(ember.arange(2.), ember.ones(3)).shape
    torch.Size([2, 3])
    """
    if not (type(input) in PLAIN_TYPES and type(vec2) in PLAIN_TYPES):
        r = try_torch_function(outer, (input, vec2), input, vec2, out=out)
        if r is not NotImplemented:
            return r
    for name, v in (("self", input), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.dim()}-D")
    res = input.reshape(-1, 1) * vec2
    if out is not None:
        return out.copy_(res)
    return res


def ger(input, vec2, *, out=None):
    """Alias of ``outer``."""
    return outer(input, vec2, out=out)


def einsum(*args):
    """Einstein summation: ``einsum('ij,jk->ik', a, b)``; ``...``, implicit output, a list of
    operands and the sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` are accepted.

    >>> import ember
    >>> ember.einsum('bij,bjk->bik', ember.ones(2, 3, 4), ember.ones(2, 4, 5)).shape
    torch.Size([2, 3, 5])
    """
    if not args:
        raise TypeError("einsum(): must specify the equation string and at least one operand, or at "
                        "least one operand and its subscripts list")
    if isinstance(args[0], str):
        equation, ops = args[0], args[1:]
        if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
            ops = tuple(ops[0])
    else:
        equation, ops = _sublist_equation(args)
    ops = tuple(ops)
    if not all(type(o) in PLAIN_TYPES for o in ops):
        r = try_torch_function(einsum, ops, *args)
        if r is not NotImplemented:
            return r
    for o in ops:
        if not isinstance(o, TensorBase):
            raise TypeError(f"einsum(): expected Tensor operands, got {type(o).__name__}")
    eq = L.parse_einsum(equation, [o.dim() for o in ops])
    if any(o._dtype is not ops[0]._dtype for o in ops):
        L.einsum.meta_rule(ops[0], ops[1:], equation=eq)
    return dispatch(L.einsum, ops[0], list(ops[1:]), equation=eq)


def _sublist_equation(args):
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def sub(lst):
        out = []
        for s in lst:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, int) and 0 <= s < 52:
                out.append(letters[s])
            else:
                raise ValueError("einsum(): subscript in subscript list is not within the valid range "
                                 "[0, 52)")
        return "".join(out)
    n = len(args) // 2
    ops = list(args[0:2 * n:2])
    eq = ",".join(sub(s) for s in args[1:2 * n:2])
    if len(args) % 2:  # a trailing output sublist
        eq += "->" + sub(args[-1])
    return eq, ops


def tensordot(a, b, dims=2, out=None):
    """Contract ``dims`` of ``a`` with ``dims`` of ``b``: an int (last/first n), or two lists.

    >>> import ember
    >>> ember.tensordot(ember.ones(2, 3, 4), ember.ones(3, 4, 5)).shape
    torch.Size([2, 5])
    """
    if not (type(a) in PLAIN_TYPES and type(b) in PLAIN_TYPES):
        r = try_torch_function(tensordot, (a, b), a, b, dims=dims, out=out)
        if r is not NotImplemented:
            return r
    if isinstance(dims, TensorBase):
        dims = dims.tolist() if dims.dim() else int(dims.item())
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(-dims, 0)), list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    na, nb = a.dim(), b.dim()
    ca = [d % na if na else d for d in da]
    cb = [d % nb if nb else d for d in db]
    for x, y, ra, rb in zip(ca, cb, da, db):
        sa, sb = a.shape[x], b.shape[y]
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {sa} in dim "
                               f"{ra} and second has size {sb} in dim {rb}")
    for x, y in zip(ca, cb):  # a size-1 dim broadcasts: contract it against the other's sum
        if a.shape[x] != b.shape[y]:
            if a.shape[x] == 1:
                b = b.sum(y, keepdim=True, dtype=b.dtype)
            else:
                a = a.sum(x, keepdim=True, dtype=a.dtype)
    fa = [i for i in range(na) if i not in ca]
    fb = [i for i in range(nb) if i not in cb]
    k = 1
    for x in ca:
        k *= a.shape[x]
    out_shape = [a.shape[i] for i in fa] + [b.shape[i] for i in fb]
    pa = a.permute(fa + ca).reshape(-1, k)
    pb = b.permute(cb + fb).reshape(k, -1)
    res = pa.mm(pb).reshape(out_shape)
    if out is not None:
        return out.copy_(res)
    return res


def _matmul_op(self, other):
    if not isinstance(other, TensorBase):
        if type(other) is not np.ndarray:  # torch converts an ndarray on the right only
            return NotImplemented
        # torch lets NumPy compute ``tensor @ ndarray`` (promoting) and wraps the result
        other = wrap(np.array(other))
        if other._dtype is not self._dtype:
            dt = D.promote_types(self._dtype, other._dtype)
            self, other = self.to(dt), other.to(dt)
    return matmul(self, other)


def _rmatmul(self, other):
    if not isinstance(other, TensorBase):
        return NotImplemented
    return matmul(other, self)


class LinalgMixin:
    __slots__ = ()
    matmul, mm, bmm, mv, dot, vdot = matmul, mm, bmm, mv, dot, vdot
    addmm, addmm_, addmv, addmv_, addr, addr_ = addmm, addmm_, addmv, addmv_, addr, addr_
    baddbmm, baddbmm_, addbmm = baddbmm, baddbmm_, addbmm

    def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        res = addbmm(self, batch1, batch2, beta=beta, alpha=alpha)
        if tuple(res.shape) != tuple(self.shape):
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                               f"shape {list(res.shape)}")
        return self.copy_(res)
    outer, ger = outer, ger
    __matmul__ = _name(_matmul_op, "__matmul__")
    __rmatmul__ = _name(_rmatmul, "__rmatmul__")


FUNCTIONS = dict(matmul=matmul, mm=mm, bmm=bmm, mv=mv, dot=dot, vdot=vdot, addmm=addmm, addmv=addmv,
                 addr=addr, baddbmm=baddbmm, addbmm=addbmm, outer=outer, ger=ger, einsum=einsum,
                 tensordot=tensordot)
