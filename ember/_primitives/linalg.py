"""Matrix-product primitives (layer L1): BLAS through NumPy.

``mm``, ``bmm``, ``mv``, ``dot`` and ``vdot`` are torch's strict ops (and torch's grad_fn names);
``matmul`` is the broadcasting general case; ``addmm``/``addmv``/``addr``/``baddbmm`` fuse the
``beta * input + alpha * product`` update; ``einsum`` takes an explicit equation (the public wrapper
expands ellipses and implicit outputs). Kernels make only cheap structural checks and raise
``ValueError`` so dispatch re-runs the meta rule, which raises torch's exact message.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._errors import dtype_title, fmt_shape
from .._shape import broadcast_shapes
from ._registry import TENSOR_K, SlowPath, TensorMeta, primitive

__all__ = ["mm", "bmm", "mv", "dot", "vdot", "matmul", "addmm", "addmv", "addr", "baddbmm", "einsum",
           "matmul_meta", "cname", "check_same_dtype"]

# torch's C++ type names, used by "expected m1 and m2 to have the same dtype" messages
_CNAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
           "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
           "float16": "c10::Half", "bfloat16": "c10::BFloat16", "complex64": "c10::complex<float>",
           "complex128": "c10::complex<double>"}
_BOOL = np.dtype(np.bool_)


def cname(dt) -> str:
    return _CNAMES[dt.name]


_t = dtype_title


def _no_bool(a, name):
    if a.dtype == _BOOL:
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")


# ------------------------------------------------------------------------------ checks (meta)
def _mm_check(a, b, *, self_name="self"):
    if a.dim() != 2:
        raise RuntimeError(f"{self_name} must be a matrix")
    if b.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({fmt_shape(a.shape)} and "
                           f"{fmt_shape(b.shape)})")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {cname(a.dtype)} != "
                           f"{cname(b.dtype)}")
    return (a.shape[0], b.shape[1])


def _mm_sizes(sa, sb, da, db):
    """mm on shapes only (matmul's folded paths); ``da``/``db`` are the dtypes."""
    if sa[1] != sb[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({fmt_shape(sa)} and {fmt_shape(sb)})")
    if da is not db:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {cname(da)} != {cname(db)}")
    return (sa[0], sb[1])


def _mv_sizes(sm, sv, dm, dv):
    if sm[1] != sv[0]:
        raise RuntimeError(f"size mismatch, got input ({sm[0]}), mat ({fmt_shape(sm)}), vec ({sv[0]})")
    if dm is not dv:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_t(dv)}, {_t(dm)}, "
                           f"and {_t(dv)}")
    return (sm[0],)


def _dot_sizes(sa, sb, da, db):
    if len(sa) != 1 or len(sb) != 1:
        raise RuntimeError(f"1D tensors expected, but got {len(sa)}D and {len(sb)}D tensors")
    if da is not db:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_t(da)} and {_t(db)}")
    if sa[0] != sb[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to "
                           f"have the same number of elements, but got {sa[0]} and {sb[0]} elements "
                           f"respectively")
    return ()


def _bmm_sizes(sa, sb, da, db):
    if len(sa) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(sb) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if sb[0] != sa[0] or sb[1] != sa[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{sa[0]}, {sa[2]}] but got: [{sb[0]}, {sb[1]}].")
    if da is not db:
        raise RuntimeError(f"expected scalar type {_t(da)} but found {_t(db)}")
    return (sa[0], sa[1], sb[2])


def check_same_dtype(name, a, b):
    """Raise the dtype error torch raises for ``name`` (called by the public wrappers on mismatch)."""
    meta = {"mm": mm, "bmm": bmm, "mv": mv, "dot": dot, "vdot": dot}[name].meta_rule
    meta(a, b)


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _should_fold(a, b, has_out=False):
    """torch's ``should_fold``: fold the larger operand into a matrix and call mm/mv instead of bmm."""
    a_larger = a.dim() >= b.dim()
    if a_larger:
        t1_shape, t1_strides = tuple(a.shape), a.stride()
        dim_t2, t2_grad = b.dim(), b.requires_grad
    else:
        st = b.stride()
        t1_shape = tuple(b.shape[:-2]) + (b.shape[-1], b.shape[-2])
        t1_strides = tuple(st[:-2]) + (st[-1], st[-2])
        dim_t2, t2_grad = a.dim(), a.requires_grad
    if not (len(t1_shape) >= 3 and dim_t2 <= 2):
        return False
    if t2_grad and not has_out:
        return True
    if a.dim() == 2:
        return False
    if _prod(t1_shape) == 0:
        return True
    return all(t1_strides[i] == t1_strides[i + 1] * t1_shape[i + 1] for i in range(len(t1_shape) - 2))


def matmul_meta(a, b, has_out=False):
    """Result shape of ``a @ b``, raising the error torch's decomposition of matmul raises."""
    da, db = a.dim(), b.dim()
    sa, sb, ta, tb = tuple(a.shape), tuple(b.shape), a.dtype, b.dtype
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        return _dot_sizes(sa, sb, ta, tb)
    if da == 2 and db == 1:
        return _mv_sizes(sa, sb, ta, tb)
    if da == 1 and db == 2:
        return _mm_sizes((1,) + sa, sb, ta, tb)[1:]
    if da == 2 and db == 2:
        return _mm_sizes(sa, sb, ta, tb)
    if _should_fold(a, b, has_out):
        transpose = db > da
        if transpose:
            s1, d1 = sb[:-2] + (sb[-1], sb[-2]), tb
            s2, d2 = ((sa[1], sa[0]) if da == 2 else sa), ta
        else:
            s1, d1, s2, d2 = sa, ta, sb, tb
        folded = (_prod(s1[:-1]), s1[-1])
        if len(s2) == 2:
            _mm_sizes(folded, s2, d1, d2)
            out = s1[:-1] + (s2[1],)
        else:
            _mv_sizes(folded, s2, d1, d2)
            out = s1[:-1]
        if transpose:
            out = out[:-2] + (out[-1], out[-2]) if da == 2 else out
        return out
    n = sa[-2] if da > 1 else 1
    m1, p = sa[-1], (sb[-1] if db > 1 else 1)
    m2 = sb[-2] if db > 1 else sb[0]
    batch = broadcast_shapes(sa[:max(da - 2, 0)], sb[:db - 2] if db > 1 else ())
    B = _prod(batch)
    _bmm_sizes((B, n, m1), (B, m2, p), ta, tb)
    out = batch
    if da > 1:
        out += (n,)
    if db > 1:
        out += (p,)
    return out


# ------------------------------------------------------------------------------ products
def _transposed(t) -> bool:
    """A 2-d operand laid out column-major (``W.t()`` of a contiguous weight); a Tensor or an array."""
    if type(t) is np.ndarray:
        s0, s1 = t.strides
        n = t.itemsize
        return s0 == n and s1 != n and t.shape[0] > 1
    st = t.stride()
    return st[0] == 1 and st[1] != 1 and t.shape[0] > 1


def _mH(K, t):
    """``t.mH`` of a matrix through the derivative's ops namespace (arrays there are real)."""
    t = K.transpose(t, dim0=0, dim1=1)
    return t if type(t) is np.ndarray or not t.is_complex() else t.conj()


def _mat2_grad(a, grad, b, K=TENSOR_K):
    """``a^H @ grad``, the gradient of ``b`` in ``a @ b``. When ``b`` is a transposed view (Linear's
    ``weight.t()``) it is computed as ``(grad^H @ a)^H``, the same GEMM, so after the transpose's
    backward the weight's gradient is contiguous in the weight's own layout (as torch gives it;
    DDP copies it flat into its bucket)."""
    if _transposed(b):
        return _mH(K, K.mm(_mH(K, grad), a))
    return K.mm(_mH(K, a), grad)


@primitive("mm")
def mm(a, b):
    if a.ndim != 2 or b.ndim != 2:
        raise SlowPath("mm: shapes")
    _no_bool(a, "addmm_impl_cpu_")
    return np.matmul(a, b)


@mm.meta
def _(a, b):
    return TensorMeta(_mm_check(a, b), a.dtype)


@mm.derivative(reads={"a": ("b",), "b": ("a",)})
def _(grad, a, b, *, needs_input_grad, K):
    return (K.mm(grad, _mH(K, b)) if needs_input_grad[0] else None,
            _mat2_grad(a, grad, b, K) if needs_input_grad[1] else None)


@primitive("bmm")
def bmm(a, b):
    if a.ndim != 3 or b.ndim != 3 or a.shape[0] != b.shape[0]:
        raise SlowPath("bmm: shapes")
    _no_bool(a, "bmm")
    return np.matmul(a, b)


@bmm.meta
def _(a, b):
    return TensorMeta(_bmm_sizes(tuple(a.shape), tuple(b.shape), a.dtype, b.dtype), a.dtype)


@bmm.derivative(reads={"a": ("b",), "b": ("a",)})
def _(grad, a, b):
    return grad.bmm(b.mH), a.mH.bmm(grad)


@primitive("mv")
def mv(a, b):
    if a.ndim != 2 or b.ndim != 1:
        raise SlowPath("mv: shapes")
    _no_bool(a, "addmv_impl_cpu")
    return np.matmul(a, b)


@mv.meta
def _(a, b):
    if a.dim() != 2 or b.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.dim()}, {b.dim()}")
    return TensorMeta(_mv_sizes(tuple(a.shape), tuple(b.shape), a.dtype, b.dtype), a.dtype)


@mv.derivative(reads={"a": ("b",), "b": ("a",)})
def _(grad, a, b):
    return grad.unsqueeze(1) * b.conj(), a.mH.mv(grad)


@primitive("dot")
def dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise SlowPath("dot: shapes")
    _no_bool(a, "dot")
    return np.array(np.dot(a, b))


@dot.meta
def _(a, b):
    return TensorMeta(_dot_sizes(tuple(a.shape), tuple(b.shape), a.dtype, b.dtype), a.dtype)


@dot.derivative(reads={"a": ("b",), "b": ("a",)})
def _(grad, a, b):
    return grad * b.conj(), grad * a.conj()


@primitive("vdot")
def vdot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise SlowPath("vdot: shapes")
    _no_bool(a, "dot")
    return np.array(np.vdot(a, b))


vdot.meta(dot.meta_rule)


@vdot.derivative(reads={"a": ("b",), "b": ("a",)})
def _(grad, a, b):
    # vdot(a, b) = sum(conj(a) * b)
    return (grad.conj() * b) if a.is_complex() else grad * b, grad * a


@primitive("matmul", node_name="UnsafeViewBackward0")
def matmul(a, b):
    if a.ndim == 0 or b.ndim == 0:
        raise SlowPath("matmul: 0-d")
    _no_bool(a, "bmm")
    if a.ndim >= 3 and b.ndim <= 2 and a.size:
        # one BLAS call on the folded (batch * m, k) matrix instead of one per batch (a strided
        # ``a`` is copied by the reshape, as torch's matmul folds: a seq-first view of a batch-first
        # input made 64 small GEMMs at 2.6x the time)
        k = a.shape[-1]
        if b.shape[0] != k:
            raise SlowPath("matmul: shapes")
        r = np.matmul(a.reshape(-1, k), b)
        return r.reshape(a.shape[:-1] + b.shape[1:])
    return np.matmul(a, b)


@matmul.meta
def _(a, b):
    return TensorMeta(matmul_meta(a, b), a.dtype)


@matmul.derivative(reads={"a": ("b",), "b": ("a",)})
def _(grad, a, b):
    da, db = a.dim(), b.dim()
    if da == 1 and db == 1:
        return grad * b.conj(), grad * a.conj()
    if da == 1:  # (k) @ (..., k, n) -> (..., n)
        ga = (grad.unsqueeze(-2) @ b.mH).squeeze(-2)
        return ga, a.conj().unsqueeze(-1) * grad.unsqueeze(-2)
    if db == 1:  # (..., m, k) @ (k) -> (..., m)
        ga = grad.unsqueeze(-1) * b.conj()
        if da >= 3:  # fold the batch into one matrix-vector product
            gb = a.reshape(a.numel() // a.shape[-1] if a.shape[-1] else grad.numel(),
                           a.shape[-1]).mH.mv(grad.reshape(-1))
        else:
            gb = (a.mH @ grad.unsqueeze(-1)).squeeze(-1)
        return ga, gb
    ga = grad @ b.mH
    if db == 2 and da >= 3:  # weight of a batched product: one (k, B*m) @ (B*m, n) matmul
        rows = grad.numel() // grad.shape[-1] if grad.shape[-1] else a.numel() // a.shape[-1]
        gb = _mat2_grad(a.reshape(rows, a.shape[-1]), grad.reshape(rows, grad.shape[-1]), b)
    else:
        gb = a.mH @ grad
    return ga, gb


# ------------------------------------------------------------------------------ fused updates
def _scalars(dt, beta, alpha):
    if dt.kind in "iu":  # integer tensors truncate the scalars, as torch does
        return int(beta), int(alpha)
    return beta, alpha


def _update(r, inp, beta, alpha, dt):
    """``beta * inp + alpha * r`` written into the fresh product ``r``."""
    beta, alpha = _scalars(dt, beta, alpha)
    if dt == _BOOL:
        r = np.logical_and(r, bool(alpha))
        return np.logical_or(r, np.logical_and(inp, bool(beta))) if beta else r
    if alpha != 1:
        np.multiply(r, alpha, out=r)
    if beta == 0:  # torch ignores input (even nan) when beta is 0
        return r
    return np.add(r, inp if beta == 1 else np.multiply(inp, beta), out=r)


def _expand_check(inp_shape, out):
    inp_shape = tuple(inp_shape)
    ok = len(inp_shape) <= len(out) and all(
        s == 1 or s == o for s, o in zip(inp_shape[::-1], out[::-1]))
    if not ok:
        for i in range(1, len(out) + 1):
            if i <= len(inp_shape) and inp_shape[-i] not in (1, out[-i]):
                raise RuntimeError(
                    f"The expanded size of the tensor ({out[-i]}) must match the existing size "
                    f"({inp_shape[-i]}) at non-singleton dimension {len(out) - i}.  Target sizes: "
                    f"{list(out)}.  Tensor sizes: {list(inp_shape)}")
        raise RuntimeError(f"expand: the number of sizes provided ({len(out)}) must be greater or equal "
                           f"to the number of dimensions in the tensor ({len(inp_shape)})")
    return out


def _input_grad(grad, beta):
    return grad if beta == 1 else grad * beta


@primitive("addmm")
def addmm(inp, a, b, *, beta=1, alpha=1):
    r = mm.kernel(a, b)
    return _update(r, inp, beta, alpha, r.dtype)


@addmm.meta
def _(inp, a, b, *, beta=1, alpha=1):
    if a.dim() != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {a.dim()}-D tensor")
    if b.dim() != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {b.dim()}-D tensor")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_t(a.dtype)} and {_t(b.dtype)}")
    if inp.dtype is not a.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_t(inp.dtype)} and "
                           f"{_t(b.dtype)}")
    out = _mm_check(a, b, self_name="mat1")
    return TensorMeta(_expand_check(inp.shape, out), a.dtype)


@addmm.derivative(reads={"inp": (), "a": ("b",), "b": ("a",)})
def _(grad, a, b, *, beta, alpha, needs_input_grad, K):
    gab = grad if alpha == 1 else K.mul(grad, alpha)
    return ((grad if beta == 1 else K.mul(grad, beta)) if needs_input_grad[0] else None,
            K.mm(gab, _mH(K, b)) if needs_input_grad[1] else None,
            _mat2_grad(a, gab, b, K) if needs_input_grad[2] else None)


@primitive("addmv")
def addmv(inp, a, b, *, beta=1, alpha=1):
    r = mv.kernel(a, b)
    return _update(r, inp, beta, alpha, r.dtype)


@addmv.meta
def _(inp, a, b, *, beta=1, alpha=1):
    out = mv.meta_rule(a, b).shape
    if inp.dim() > 1 or (inp.dim() == 1 and inp.shape[0] not in (1, out[0])):
        raise RuntimeError(f"size mismatch, got input ({inp.shape[0] if inp.dim() else 1}), "
                           f"mat ({fmt_shape(a.shape)}), vec ({b.shape[0]})")
    return TensorMeta(out, a.dtype)


@addmv.derivative(reads={"inp": (), "a": ("b",), "b": ("a",)})
def _(grad, a, b, *, beta, alpha):
    gab = grad if alpha == 1 else grad * alpha
    return _input_grad(grad, beta), gab.unsqueeze(1) * b.conj(), a.mH.mv(gab)


@primitive("addr")
def addr(inp, a, b, *, beta=1, alpha=1):
    if a.ndim != 1 or b.ndim != 1:
        raise SlowPath("addr: shapes")
    r = np.logical_and.outer(a, b) if a.dtype == _BOOL else np.multiply.outer(a, b)
    return _update(r, inp, beta, alpha, r.dtype)


@addr.meta
def _(inp, a, b, *, beta=1, alpha=1):
    for name, v in (("vec1", a), ("vec2", b)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.dim()}-D")
    out = (a.shape[0], b.shape[0])
    return TensorMeta(_expand_check(inp.shape, out), D.promote_types(a.dtype, b.dtype))


@addr.derivative(reads={"inp": (), "a": ("b",), "b": ("a",)})
def _(grad, a, b, *, beta, alpha):
    gab = grad if alpha == 1 else grad * alpha
    return _input_grad(grad, beta), gab.mv(b.conj()), gab.mT.mv(a.conj())


@primitive("baddbmm")
def baddbmm(inp, a, b, *, beta=1, alpha=1):
    r = bmm.kernel(a, b)
    return _update(r, inp, beta, alpha, r.dtype)


@baddbmm.meta
def _(inp, a, b, *, beta=1, alpha=1):
    out = _bmm_sizes(tuple(a.shape), tuple(b.shape), a.dtype, b.dtype)
    if inp.dtype is not a.dtype:
        raise RuntimeError(f"expected scalar type {_t(a.dtype)} but found {_t(inp.dtype)}")
    return TensorMeta(_expand_check(inp.shape, out), a.dtype)


@baddbmm.derivative(reads={"inp": (), "a": ("b",), "b": ("a",)})
def _(grad, a, b, *, beta, alpha):
    gab = grad if alpha == 1 else grad * alpha
    return _input_grad(grad, beta), gab.bmm(b.mH), a.mH.bmm(gab)


# ------------------------------------------------------------------------------ einsum
_LOW = (np.dtype(np.float16), D.bfloat16.np)


def _einsum_parts(equation):
    lhs, out = equation.split("->")
    return lhs.split(","), out


@primitive("einsum", node_name="EinsumBackward0")
def einsum(a, rest, *, equation):
    """``np.einsum`` on an explicit equation (letters only); ``a`` is the first operand."""
    # dtypes are checked by the public wrapper; float16/bfloat16 compute in float32 (dispatch rounds)
    ops = [o.astype(np.float32) if o.dtype in _LOW else o for o in (a, *rest)]
    # BLAS pays off (tensordot path) for more than two operands or big contractions
    big = len(ops) > 2 or (len(ops) == 2 and ops[0].size * ops[1].size > 4096)
    r = np.asarray(np.einsum(equation, *ops, optimize=big))
    # torch keeps the operands' dtype, except that a letter summed out of a single operand goes
    # through sum first, which widens integers to int64
    lhs, out = equation.split("->")
    subs = lhs.split(",")
    alone = any(sum(c in s for s in subs) == 1 and c not in out for c in set(lhs) - {".", ","})
    want = np.int64 if alone and ops[0].dtype.kind in "biu" else ops[0].dtype
    if r.dtype != want:
        r = r.astype(want)
    if any(np.may_share_memory(r, o) for o in ops):  # NumPy returns views for diagonals/transposes
        r = r.copy()
    return r


def einsum_sizes(subs, shapes):
    """Each letter's size (broadcasting size-1 dims), raising torch's message on a clash."""
    sizes = {}
    for k, (s, shape) in enumerate(zip(subs, shapes)):
        own = {}
        for c, n in zip(s, shape):
            if own.setdefault(c, n) != n:
                raise RuntimeError(f"einsum(): subscript {c} is repeated for operand {k} but the sizes "
                                   f"don't match, {n} != {own[c]}")
            cur = sizes.get(c)
            if cur is None or cur == 1:
                sizes[c] = n
            elif n != 1 and n != cur:
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {k} which does "
                                   f"not broadcast with previously seen size {cur}")
    return sizes


@einsum.meta
def _(a, rest, *, equation):
    ops = [a, *rest]
    for o in rest:
        if o.dtype is not a.dtype:
            raise RuntimeError(f"expected scalar type {_t(a.dtype)} but found {_t(o.dtype)}")
    subs, out = _einsum_parts(equation)
    sizes = einsum_sizes(subs, [tuple(o.shape) for o in ops])
    return TensorMeta(tuple(sizes[c] for c in out), a.dtype)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _einsum_backward(grad, a, rest, *, equation):
    """Gradient of operand i: einsum of ``grad`` with the other operands back to operand i's
    subscripts; repeated letters (diagonals) are tied by identity matrices and letters the others do
    not carry (summed away, or broadcast size-1 dims) are restored by expand."""
    ops = (a, *rest)
    subs, out = _einsum_parts(equation)
    sizes = einsum_sizes(subs, [tuple(o.shape) for o in ops])
    used = set(equation)
    fresh = iter(c for c in _LETTERS if c not in used)
    grads = []
    for i, (s, op) in enumerate(zip(subs, ops)):
        target, eyes, seen = [], [], set()
        for c, n in zip(s, op.shape):
            if n == 1 and sizes[c] != 1:
                target.append(next(fresh))  # broadcast dim: its gradient is summed over c
            elif c in seen:
                f = next(fresh)
                eyes.append((c, f, n))
                target.append(f)
            else:
                seen.add(c)
                target.append(c)
        in_subs = [out] + [t for j, t in enumerate(subs) if j != i]
        in_ops = [grad] + [o for j, o in enumerate(ops) if j != i]
        for c, f, n in eyes:
            in_subs.append(c + f)
            in_ops.append(grad.new_tensor(np.eye(n), dtype=grad.dtype))
        avail = set("".join(in_subs))
        kept = "".join(c for c in target if c in avail)
        eq = ",".join(in_subs) + "->" + kept
        g = in_ops[0]._op(einsum, list(in_ops[1:]), equation=eq)
        if len(kept) != len(target):
            g = g.reshape(tuple(n if c in avail else 1 for c, n in zip(target, op.shape)))
        if tuple(g.shape) != tuple(op.shape):  # letters whose only other sources had size 1
            g = g.expand(tuple(op.shape))
        grads.append(g)
    return tuple(grads)


einsum.derivative(_einsum_backward)


def _einsum_term(term, start, what):
    """Tokens of one subscript term: letters and at most one '...' (None)."""
    toks, i, n = [], 0, len(term)
    while i < n:
        ch = term[i]
        if ch == " ":
            i += 1
        elif ch == ".":
            if None in toks:
                raise RuntimeError(f"einsum(): found '.' for {what} for which an ellipsis was already found"
                                   if what != "output" else
                                   "einsum(): found '.' for output but an ellipsis (...) was already found")
            if term[i:i + 3] != "...":
                raise RuntimeError(f"einsum(): found '.' for {what} that is not part of any ellipsis"
                                   if what != "output" else
                                   "einsum(): found '.' for output that is not part of any ellipsis (...)")
            toks.append(None)
            i += 3
        elif ch.isascii() and ch.isalpha():
            toks.append(ch)
            i += 1
        else:
            raise RuntimeError(f"einsum(): invalid subscript given at index {start + i} in the equation "
                               f"string, subscripts must be in [a-zA-Z]")
    return toks


def parse_einsum(equation: str, ndims) -> str:
    """torch's einsum equation (spaces, ``...``, implicit output) -> an explicit letters-only one."""
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    terms, start = [], 0
    for k, term in enumerate(lhs.split(",")):
        if k >= len(ndims):
            raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
        terms.append(_einsum_term(term, start, f"operand {k}"))
        start += len(term) + 1
    if len(terms) < len(ndims):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    used = set(equation)
    ell_n = 0
    for k, (toks, nd) in enumerate(zip(terms, ndims)):
        nlab = len(toks) - (None in toks)
        if None in toks:
            if nlab > nd:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({nlab}) is more "
                                   f"than the number of dimensions ({nd}) for operand {k}")
            ell_n = max(ell_n, nd - nlab)
        elif nlab != nd:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({nlab}) does not "
                               f"match the number of dimensions ({nd}) for operand {k} and no ellipsis "
                               f"was given")
    fresh = [c for c in _LETTERS if c not in used]
    if ell_n > len(fresh):
        raise RuntimeError("einsum(): too many subscripts (at most 52 letters)")
    ell = fresh[:ell_n]
    subs = []
    for toks, nd in zip(terms, ndims):
        s = []
        for t in toks:
            if t is None:
                k = nd - (len(toks) - 1)
                s.extend(ell[ell_n - k:] if k else [])
            else:
                s.append(t)
        subs.append("".join(s))
    any_ell = any(None in t for t in terms)
    if arrow < 0:
        counts = {}
        for t in terms:
            for c in t:
                if c is not None:
                    counts[c] = counts.get(c, 0) + 1
        out = "".join(ell if any_ell else []) + "".join(sorted(c for c, n in counts.items() if n == 1))
    else:
        toks = _einsum_term(equation[arrow + 2:], arrow + 2, "output")
        letters = set("".join(subs))
        out, seen = [], set()
        for t in toks:
            if t is None:
                out.extend(ell)
                continue
            if t not in letters:
                raise RuntimeError(f"einsum(): output subscript {t} does not appear in the equation for "
                                   f"any input operand")
            if t in seen:
                raise RuntimeError(f"einsum(): output subscript {t} appears more than once in the output")
            seen.add(t)
            out.append(t)
        out = "".join(out)
    return ",".join(subs) + "->" + out


__all__ += ["parse_einsum", "einsum_sizes"]
