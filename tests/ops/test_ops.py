"""Generic checks driven by the op database (``tests/ops/opdb``): one pytest item per (op, check).

Each check loops over the entry's dtypes and samples and compares ember with torch (the oracle):
forward values and dtypes, gradients, float64 finite differences, meta shapes, in-place and ``out=``
variants, views sharing memory (and non-views never aliasing their inputs), and errors.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import ember
from tests.ops.opdb import OPS
from tests.ops.opdb import _core
from tests.ops.opdb._core import NonContig

LIBS = (ember, torch)
LOW_TOL = {"float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1.6e-2)}  # (atol, rtol) floors
# gradients round at every step of the chain rule, in a different order than torch's kernels
GRAD_LOW_TOL = {"float16": (1e-2, 1e-2), "bfloat16": (5e-2, 5e-2)}
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")


# ----------------------------------------------------------------------------- sample conversion
def _lib_dtype(lib, name):
    return getattr(lib, name)


def _noncontig_np(a: np.ndarray) -> tuple[np.ndarray, tuple]:
    """A buffer holding ``a`` transposed, every other element: returns (buffer, axes to undo)."""
    axes = tuple(reversed(range(a.ndim)))
    buf = np.zeros(a.transpose(axes).shape + (2,), a.dtype)
    buf[..., 0] = a.transpose(axes)
    return buf, axes


def to_lib(x, lib, dtype_name):
    """A sample argument as ``lib``'s value: arrays -> fresh tensors (bfloat16 from float32)."""
    bf16 = dtype_name == "bfloat16"
    if isinstance(x, NonContig):
        a = x.array
        buf, axes = _noncontig_np(a)
        cast = bf16 and a.dtype == np.float32
        if lib is torch:
            t = torch.tensor(buf)
            if cast:
                t = t.to(torch.bfloat16)
            return t[..., 0].permute(*axes)
        if cast:
            buf = buf.astype(ember.bfloat16.np)
        view = buf[..., 0].transpose(axes)
        return ember.from_numpy(view)
    if isinstance(x, np.ndarray):
        t = lib.tensor(x)
        if bf16 and x.dtype == np.float32:
            t = t.to(lib.bfloat16)
        return t
    if isinstance(x, list):
        return [to_lib(v, lib, dtype_name) for v in x]
    if isinstance(x, tuple):
        return tuple(to_lib(v, lib, dtype_name) for v in x)
    return x


def convert(sample, lib, dtype_name):
    args = tuple(to_lib(a, lib, dtype_name) for a in sample.args)
    kwargs = {k: to_lib(v, lib, dtype_name) for k, v in sample.kwargs.items()}
    return args, kwargs


def _is_tensor(x):
    return isinstance(x, (ember.Tensor, torch.Tensor))


def flat_tensors(x):
    """Tensors in a result or argument list, in order (nested lists/tuples flattened)."""
    if _is_tensor(x):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for v in x for t in flat_tensors(v)]
    return []


def as_np(t) -> np.ndarray:
    """Values of an ember or torch tensor as NumPy (bfloat16 widened to float32)."""
    if isinstance(t, torch.Tensor):
        if t._is_zerotensor():
            t = torch.zeros(t.shape, dtype=t.dtype)
        t = t.detach().resolve_conj().resolve_neg()
        if t.dtype == torch.bfloat16:
            t = t.float()
        return t.numpy()
    a = t.detach().numpy()
    return a.astype(np.float32) if t.dtype == ember.bfloat16 else a


def dtype_name(t) -> str:
    return str(t.dtype).split(".")[-1]


def tolerances(op, dtype):
    atol, rtol = op.atol, op.rtol
    if dtype in LOW_TOL:
        atol, rtol = max(atol, LOW_TOL[dtype][0]), max(rtol, LOW_TOL[dtype][1])
    return atol, rtol


def assert_same(e, t, atol, rtol, what=""):
    """ember result ``e`` equals torch result ``t``: structure, shape, dtype and values."""
    if _is_tensor(t):
        assert isinstance(e, ember.Tensor), f"{what}: expected a Tensor, got {type(e).__name__}"
        assert tuple(e.shape) == tuple(t.shape), f"{what}: shape {tuple(e.shape)} != {tuple(t.shape)}"
        assert dtype_name(e) == dtype_name(t), f"{what}: dtype {dtype_name(e)} != {dtype_name(t)}"
        ea, ta = as_np(e), as_np(t)
        if ta.dtype.kind in "fc":
            np.testing.assert_allclose(ea, ta, atol=atol, rtol=rtol, equal_nan=True, err_msg=what)
        else:
            np.testing.assert_array_equal(ea, ta, err_msg=what)
    elif isinstance(t, (list, tuple)):
        assert isinstance(e, (list, tuple)) and len(e) == len(t), f"{what}: {e!r} vs {t!r}"
        for i, (a, b) in enumerate(zip(e, t)):
            assert_same(a, b, atol, rtol, f"{what}[{i}]")
    else:
        if isinstance(t, float) and np.isnan(t):
            assert isinstance(e, float) and np.isnan(e), f"{what}: {e!r} vs {t!r}"
        else:
            assert e == pytest.approx(t, abs=atol, rel=rtol), f"{what}: {e!r} vs {t!r}"


def _ember_exception(terr):
    """The class ember raises for torch's exception ``terr`` (torch.linalg.LinAlgError is ember's own)."""
    if isinstance(terr, torch.linalg.LinAlgError):
        return ember.linalg.LinAlgError
    return type(terr)


def run_both(fn, sample, dtype):
    """Run ``fn`` on ember and torch; returns (ember_result, torch_result, ember_args, torch_args).

    When torch raises, ember must raise the same exception class; returns None then.
    """
    eargs, ekw = convert(sample, ember, dtype)
    targs, tkw = convert(sample, torch, dtype)
    try:
        tres = fn(torch, *targs, **tkw)
    except Exception as terr:  # noqa: BLE001 - any torch error must be mirrored
        with pytest.raises(_ember_exception(terr)):
            fn(ember, *eargs, **ekw)
        return None
    eres = fn(ember, *eargs, **ekw)
    return eres, tres, eargs, targs


def _label(op, dtype, i, sample):
    return f"{op.name} dtype={dtype} sample {i}{' ' + sample.name if sample.name else ''}"


# ----------------------------------------------------------------------------- checks
def check_forward(op):
    for dtype in op.dtypes:
        atol, rtol = tolerances(op, dtype)
        for i, s in enumerate(op.samples(dtype)):
            got = run_both(op.fn, s, dtype)
            if got is not None:
                assert_same(got[0], got[1], atol, rtol, _label(op, dtype, i, s))


def _cotangent(t, rng):
    return rng.standard_normal(tuple(t.shape))


def _grad_leaves(args, lib):
    """Float tensor args turned into leaves requiring grad (same strides), in a new arg tuple."""
    leaves = []

    def leafify(x):
        if _is_tensor(x):
            if x.is_floating_point() or x.is_complex():
                y = x.detach().requires_grad_(True)
                leaves.append(y)
                return y
            return x
        if isinstance(x, (list, tuple)):
            return type(x)(leafify(v) for v in x)
        return x
    return tuple(leafify(a) for a in args), leaves


def _diff_outputs(res):
    return [o for o in flat_tensors(res) if o.requires_grad]


def check_backward(op):
    rng_seed = 0
    for dtype in op.dtypes:
        if dtype not in ("float32", "float64"):
            continue
        for i, s in enumerate(op.samples(dtype)):
            label = _label(op, dtype, i, s)
            eargs, ekw = convert(s, ember, dtype)
            targs, tkw = convert(s, torch, dtype)
            targs, tleaves = _grad_leaves(targs, torch)
            try:
                tres = op.fn(torch, *targs, **tkw)
            except Exception:  # noqa: BLE001 - errors are the forward check's business
                continue
            eargs, eleaves = _grad_leaves(eargs, ember)
            eres = op.fn(ember, *eargs, **ekw)
            touts, eouts = _diff_outputs(tres), _diff_outputs(eres)
            assert len(eouts) == len(touts), f"{label}: {len(eouts)} outputs require grad, torch {len(touts)}"
            if not touts or not tleaves:
                continue
            rng = np.random.default_rng(rng_seed)
            cots = [_cotangent(t, rng) for t in touts]
            try:
                tgrads = torch.autograd.grad(touts, tleaves, [torch.tensor(c, dtype=t.dtype) for c, t in
                                                              zip(cots, touts)], allow_unused=True)
            except RuntimeError:  # torch has no derivative here (e.g. remainder w.r.t. a bool/int)
                continue
            egrads = ember.autograd.grad(eouts, eleaves, [ember.tensor(c, dtype=t.dtype) for c, t in
                                                          zip(cots, eouts)], allow_unused=True)
            for k, (eg, tg, leaf) in enumerate(zip(egrads, tgrads, tleaves)):
                if tg is None:
                    tg = torch.zeros_like(leaf)
                if eg is None:
                    eg = ember.zeros(tuple(leaf.shape), dtype=getattr(ember, dtype_name(leaf)))
                atol, rtol = op.grad_atol, op.grad_rtol
                low = GRAD_LOW_TOL.get(dtype_name(leaf))
                if low:
                    atol, rtol = max(atol, low[0]), max(rtol, low[1])
                assert_same(eg, tg, atol, rtol, f"{label} grad of input {k}")


def _ember_gradcheck():
    try:
        from ember.autograd.gradcheck import gradcheck
    except ImportError:
        return None
    return gradcheck


def _numeric_gradcheck(fn, sample, label, eps=1e-6, atol=1e-5, rtol=1e-3):
    """Central differences of sum(out * cotangent) against ember's analytical gradient (float64)."""
    rng = np.random.default_rng(1)
    arrays = [np.array(a.array if isinstance(a, NonContig) else a, dtype=np.float64)
              if isinstance(a, (np.ndarray, NonContig)) and np.asarray(
                  a.array if isinstance(a, NonContig) else a).dtype.kind == "f" else a
              for a in sample.args]

    def build(arrs, grad):
        out = []
        for a in arrs:
            if isinstance(a, np.ndarray) and a.dtype == np.float64:
                out.append(ember.tensor(a, requires_grad=grad))
            else:
                out.append(to_lib(a, ember, "float64"))
        return out

    args = build(arrays, True)
    kw = {k: to_lib(v, ember, "float64") for k, v in sample.kwargs.items()}
    outs = _diff_outputs(fn(ember, *args, **kw))
    leaves = [a for a in args if isinstance(a, ember.Tensor) and a.requires_grad]
    if not outs or not leaves:
        return
    cots = [rng.standard_normal(tuple(o.shape)) for o in outs]
    analytic = ember.autograd.grad(outs, leaves, [ember.tensor(c) for c in cots], allow_unused=True)

    def value(arrs):
        with ember.no_grad():
            res = fn(ember, *build(arrs, False), **kw)
        return sum(float((as_np(o).astype(np.float64) * c).sum())
                   for o, c in zip([o for o in flat_tensors(res) if o.is_floating_point()], cots))

    leaf_pos = [i for i, a in enumerate(arrays) if isinstance(a, np.ndarray) and a.dtype == np.float64]
    for k, pos in enumerate(leaf_pos):
        base = arrays[pos]
        num = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            plus = [a.copy() if j == pos else a for j, a in enumerate(arrays)]
            minus = [a.copy() if j == pos else a for j, a in enumerate(arrays)]
            plus[pos][idx] += eps
            minus[pos][idx] -= eps
            num[idx] = (value(plus) - value(minus)) / (2 * eps)
        g = analytic[k]
        got = np.zeros_like(base) if g is None else as_np(g)
        np.testing.assert_allclose(got, num, atol=atol, rtol=rtol, err_msg=f"{label} input {k}")


def _small_samples(op, dtype, n=3):
    samples = list(op.samples(dtype))

    def size(s):
        return sum(np.asarray(a.array if isinstance(a, NonContig) else a).size
                   for a in s.args if isinstance(a, (np.ndarray, NonContig)))
    def nonempty(s):
        return all(np.asarray(a.array if isinstance(a, NonContig) else a).size
                   for a in s.args if isinstance(a, (np.ndarray, NonContig)))
    picked = [s for s in sorted(samples, key=size) if nonempty(s) and 0 < size(s) <= 64]
    return picked[:n]


def _smallest(op, dtype):
    """The sample with the fewest array elements (for entries whose samples are all large)."""
    samples = list(op.samples(dtype))

    def size(s):
        return sum(np.asarray(a.array if isinstance(a, NonContig) else a).size
                   for a in s.args if isinstance(a, (np.ndarray, NonContig)))
    return sorted(samples, key=size)[:1]


def _clone_outputs(res):
    # outputs that are views of the inputs would follow the finite-difference perturbation
    if isinstance(res, ember.Tensor):
        return res.clone()
    if isinstance(res, (list, tuple)):
        return tuple(_clone_outputs(r) for r in res)
    return res


def check_gradcheck(op):
    gc = _ember_gradcheck()
    for i, s in enumerate(_small_samples(op, "float64")):
        label = _label(op, "float64", i, s)
        try:
            targs, tkw = convert(s, torch, "float64")
            op.fn(torch, *targs, **tkw)
        except Exception:  # noqa: BLE001 - an error sample has no gradient
            continue
        if gc is not None:
            args, kw = convert(s, ember, "float64")
            args, leaves = _grad_leaves(args, ember)
            if not leaves:
                continue

            def f(*xs):
                it = iter(xs)
                rebuilt = tuple(next(it) if (_is_tensor(a) and a.requires_grad) else a for a in args)
                return _clone_outputs(op.fn(ember, *rebuilt, **kw))
            assert gc(f, tuple(leaves), eps=1e-6, atol=1e-5, rtol=1e-3), label
        else:
            _numeric_gradcheck(op.fn, s, label)


def _plain_numpy(g):
    if isinstance(g, torch.Tensor) and g._is_zerotensor():  # torch's symbolic zero
        return np.zeros(tuple(g.shape))
    return g.detach().resolve_conj().resolve_neg().numpy().copy()


def check_gradgrad(op):
    """Second derivatives against torch's: grad of (first grads . random weights), float64, on the
    smallest non-empty sample (and the first two samples of entries flagged ``gradgrad=True``);
    samples where torch has no double backward are passed over."""
    samples = _small_samples(op, "float64", n=1) or _smallest(op, "float64")
    if op.gradgrad:
        samples += [s for s in op.samples("float64")[:2] if not any(s is t for t in samples)]
    for i, s in enumerate(samples):
        label = _label(op, "float64", i, s)
        res = {}
        for lib in (torch, ember):
            args, kw = convert(s, lib, "float64")
            args, leaves = _grad_leaves(args, lib)
            if not leaves:
                return
            try:
                outs = _diff_outputs(op.fn(lib, *args, **kw))
                if not outs:
                    return
                rng = np.random.default_rng(1)
                cots = [lib.tensor(_cotangent(t, rng), dtype=t.dtype) for t in outs]
                g1 = lib.autograd.grad(outs, leaves, cots, create_graph=True, allow_unused=True)
                pairs = [(g, leaf) for g, leaf in zip(g1, leaves) if g is not None and g.requires_grad]
                if not pairs:  # first gradients constant in the inputs: the second ones are zero
                    res[lib.__name__] = [None] * len(leaves)
                    continue
                total = sum((g * lib.tensor(_cotangent(g, rng), dtype=g.dtype)).sum() for g, _ in pairs)
                g2 = lib.autograd.grad(total, leaves, allow_unused=True)
            except Exception as e:  # noqa: BLE001
                if lib is torch:  # torch has no double backward here (or refuses the sample)
                    res = None
                    break
                raise AssertionError(f"{label}: ember failed where torch gives second derivatives: {e}")
            res[lib.__name__] = [None if g is None else _plain_numpy(g) for g in g2]
        if res is None:
            continue
        for k, (e, t) in enumerate(zip(res["ember"], res["torch"])):
            if t is None or e is None:  # no path to this input: the derivative is zero
                other = e if t is None else t
                assert other is None or np.allclose(other, 0, atol=1e-7), \
                    f"{label}: second derivative of input {k}"
                continue
            np.testing.assert_allclose(e, t, rtol=1e-6, atol=1e-7, equal_nan=True,
                                       err_msg=f"{label}: second derivative w.r.t. input {k}")


def _to_meta(x):
    if isinstance(x, ember.Tensor):
        return ember.empty(tuple(x.shape), dtype=x.dtype, device="meta")
    if isinstance(x, (list, tuple)):
        return type(x)(_to_meta(v) for v in x)
    return x


def check_meta(op):
    for dtype in op.dtypes:
        for i, s in enumerate(op.samples(dtype)):
            label = _label(op, dtype, i, s)
            args, kw = convert(s, ember, dtype)
            try:
                real = op.fn(ember, *args, **kw)
            except Exception:  # noqa: BLE001 - errors are the forward check's business
                continue
            meta = op.fn(ember, *_to_meta(args), **{k: _to_meta(v) for k, v in kw.items()})
            rt, mt = flat_tensors(real), flat_tensors(meta)
            assert len(rt) == len(mt), label
            for r, m in zip(rt, mt):
                assert m.device.type == "meta", label
                assert tuple(m.shape) == tuple(r.shape), f"{label}: meta shape {tuple(m.shape)} != {tuple(r.shape)}"
                assert m.dtype == r.dtype, f"{label}: meta dtype {m.dtype} != {r.dtype}"


def check_inplace(op):
    for dtype in op.dtypes:
        atol, rtol = tolerances(op, dtype)
        for i, s in enumerate(op.samples(dtype)):
            label = _label(op, dtype, i, s)
            eargs, ekw = convert(s, ember, dtype)
            targs, tkw = convert(s, torch, dtype)
            try:
                tres = op.inplace(torch, *targs, **tkw)
            except Exception as terr:  # noqa: BLE001
                with pytest.raises(type(terr)):
                    op.inplace(ember, *eargs, **ekw)
                continue
            v0 = eargs[0]._version
            eres = op.inplace(ember, *eargs, **ekw)
            assert eres is eargs[0], f"{label}: in-place result is not args[0]"
            assert eargs[0]._version > v0, f"{label}: _version not bumped"
            assert_same(eres, tres, atol, rtol, label)


def check_out(op):
    for dtype in op.dtypes:
        atol, rtol = tolerances(op, dtype)
        for i, s in enumerate(op.samples(dtype)):
            label = _label(op, dtype, i, s)
            got = run_both(op.fn, s, dtype)
            if got is None:
                continue
            eref, tref = got[0], got[1]
            if not _is_tensor(tref):
                continue
            eargs, ekw = convert(s, ember, dtype)
            targs, tkw = convert(s, torch, dtype)
            tout = torch.empty(tref.shape, dtype=tref.dtype)
            eout = ember.empty(tuple(eref.shape), dtype=eref.dtype)
            op.out(torch, *targs, out=tout, **tkw)
            v0 = eout._version
            res = op.out(ember, *eargs, out=eout, **ekw)
            assert res is eout, f"{label}: out= did not return out"
            assert eout._version > v0, f"{label}: out= did not bump _version"
            assert_same(eout, tout, atol, rtol, label)


def _np_of(t):
    return t.detach().numpy() if t.device.type != "meta" else None


def check_view(op):
    for dtype in op.dtypes:
        for i, s in enumerate(op.samples(dtype)):
            label = _label(op, dtype, i, s)
            args, kw = convert(s, ember, dtype)
            try:
                res = op.fn(ember, *args, **kw)
            except Exception:  # noqa: BLE001 - errors are the forward check's business
                continue
            src = args[0]
            for r in flat_tensors(res):
                if r.numel() == 0:
                    continue
                assert np.shares_memory(_np_of(r), _np_of(src)), f"{label}: result is not a view"
                assert r._base is (src._base if src._base is not None else src), f"{label}: _base"
                if 0 in r.stride():
                    continue  # an expanded view: elements overlap, so writes are ill-defined
                # a write through the view shows in the input
                before = as_np(src).copy()
                flat_idx = tuple(0 for _ in r.shape)
                a = r.detach().numpy()
                a[flat_idx] = 1 - a[flat_idx] if a.dtype != np.bool_ else not a[flat_idx]
                assert not np.array_equal(as_np(src), before, equal_nan=True), \
                    f"{label}: writing into the view did not change the input"


def check_noalias(op):
    for dtype in op.dtypes:
        for i, s in enumerate(op.samples(dtype)):
            label = _label(op, dtype, i, s)
            args, kw = convert(s, ember, dtype)
            try:
                res = op.fn(ember, *args, **kw)
            except Exception:  # noqa: BLE001
                continue
            ins = [_np_of(t) for t in flat_tensors(args) + flat_tensors(list(kw.values()))]
            for k, r in enumerate(flat_tensors(res)):
                if r.numel() == 0:
                    continue
                ra = _np_of(r)
                for x in ins:
                    assert not np.shares_memory(ra, x), f"{label}: output {k} aliases an input"


def check_errors(op):
    for dtype in op.dtypes:
        for i, s in enumerate(op.error_samples(dtype)):
            label = _label(op, dtype, i, s)
            eargs, ekw = convert(s, ember, dtype)
            targs, tkw = convert(s, torch, dtype)
            with pytest.raises(Exception) as terr:
                op.fn(torch, *targs, **tkw)
            with pytest.raises(terr.type) as eerr:
                op.fn(ember, *eargs, **ekw)
            tmsg, emsg = str(terr.value).strip(), str(eerr.value).strip()
            assert emsg == tmsg, f"{label}: message\n  ember: {emsg}\n  torch: {tmsg}"


# Ops whose output torch refuses to have written in place (its formula saves that output, often via
# an internal composite) while ember's derivative needs only inputs, so ember accepts the write. Both
# behaviours are correct; for these ember's gradients are checked against torch's for the same
# function written out of place (the doubled output's cotangent doubled).
SAVES_LESS_THAN_TORCH = {
    "ldexp": "torch computes x * 2**e with pow(2, e) saving its result; ember's ldexp saves x and e",
    "polar": "torch's polar backward reads its complex result; ember's uses abs and angle",
    "nn.scaled_dot_product_attention": "torch's fused CPU attention saves its output and logsumexp; "
                                       "ember's composite saves the attention weights",
    "nn.pairwise_distance": "torch's norm saves its result; ember's p-norm composite saves inputs",
    "nn.cdist": "torch's cdist backward reads its result; ember's composite saves inputs",
    "linalg.lu_factor": "torch's LU backward reads the packed LU it returned; ember's saves the input",
    "linalg.lu_solve": "torch's lu_solve backward reads its result; ember's re-solves",
    "linalg.householder_product": "torch's backward reads its result; ember's recomputes the product",
    "vander": "torch builds vander with cumprod, which saves its output",
}


def _inplace_on_output(lib, op, sample, k, inplace=True):
    """Run ``op`` on non-leaf copies of the sample's float args, double output ``k`` in place, then
    backward through every differentiable output. Returns ("inplace" | "backward", exception class)
    where it raised, else ("ok", gradients as NumPy)."""
    args, kw = convert(sample, lib, "float64")
    args, leaves = _grad_leaves(args, lib)
    if not leaves:
        return None
    it = iter(leaves)
    args = tuple(_nonleaf(a, it) for a in args)
    try:
        outs = _diff_outputs(op.fn(lib, *args, **kw))
    except Exception:  # noqa: BLE001 - errors are the forward check's business
        return None
    if k >= len(outs):
        return None
    cots = [lib.tensor(_cotangent(o, np.random.default_rng(2)), dtype=o.dtype) for o in outs]
    if not inplace:  # the same function, out of place: doubling output k doubles its cotangent
        cots[k] = cots[k] * 2
    else:
        try:
            outs[k].mul_(2)
        except Exception as e:  # noqa: BLE001 - compared with torch's
            return ("inplace", type(e))
    try:
        grads = lib.autograd.grad(outs, leaves, cots, allow_unused=True)
    except Exception as e:  # noqa: BLE001
        return ("backward", type(e))
    return ("ok", [None if g is None else _plain_numpy(g) for g in grads])


def _nonleaf(a, it):
    """Leaf tensors (from _grad_leaves) replaced by a copy with history, so views of them can be
    written in place (a view of a leaf needing grad may not be)."""
    if _is_tensor(a) and a.requires_grad:
        next(it)
        return a.clone()
    if isinstance(a, (list, tuple)):
        return type(a)(_nonleaf(v, it) for v in a)
    return a


def check_inplace_output(op):
    """An in-place op on each differentiable output: ember raises exactly where torch raises (at the
    in-place op or in backward, same class), and otherwise gives torch's gradients. What a derivative
    saves decides this: torch saves inputs, indices or statistics where it can, so writing into e.g.
    a norm's or a pooling's output is legal."""
    for i, s in enumerate(_small_samples(op, "float64", n=2)):
        label = _label(op, "float64", i, s)
        for k in range(4):
            t = _inplace_on_output(torch, op, s, k)
            if t is None:
                break
            e = _inplace_on_output(ember, op, s, k)
            assert e is not None, f"{label}: output {k}"
            if t[0] == "backward" and e[0] == "ok":
                ref = _inplace_on_output(torch, op, s, k, inplace=False)
                if ref[0] != "ok":  # torch's backward fails on this sample even without the write
                    continue
                if op.name in SAVES_LESS_THAN_TORCH:
                    t = ref
            assert e[0] == t[0], f"{label}: output {k} written in place: ember {e}, torch {t}"
            if t[0] != "ok":
                assert e[1] is t[1], f"{label}: output {k}: ember raised {e[1]}, torch {t[1]}"
                continue
            for j, (eg, tg) in enumerate(zip(e[1], t[1])):
                if eg is None or tg is None:
                    other = tg if eg is None else eg
                    assert other is None or np.allclose(other, 0), f"{label}: output {k} grad {j}"
                    continue
                np.testing.assert_allclose(eg, tg, atol=op.grad_atol, rtol=op.grad_rtol, equal_nan=True,
                                           err_msg=f"{label}: output {k} written in place, grad {j}")


# ----------------------------------------------------------------------------- edge values
# Where derivative formulas special-case: zeros, +-1, +-inf, NaN, saturation (+-40 for sigmoid/tanh/
# softplus...), and ties (a constant array: max/min/median/sort/topk/norms/pdist). Each float array
# argument of an entry's smallest sample is replaced by these values (same shape), then forward and
# gradients are compared with torch: NaN in the same places, infinities equal, finite values close.
EDGE_VALUES = np.array([0.0, 1.0, -1.0, 0.5, -0.5, np.inf, -np.inf, np.nan, 40.0, -40.0, 0.0, 2.0])


def _edge_array(a, variant):
    a = np.asarray(a.array if isinstance(a, NonContig) else a)
    if variant == "ties":
        return np.ones(a.shape, a.dtype)
    vals = EDGE_VALUES if variant == "specials" else EDGE_VALUES[np.isfinite(EDGE_VALUES)]
    return np.resize(vals, a.shape).astype(a.dtype) if a.size else a


def _edge_sample(s, variant):
    def conv(a):
        if isinstance(a, (np.ndarray, NonContig)) and np.asarray(
                a.array if isinstance(a, NonContig) else a).dtype.kind == "f":
            if variant in SHAPE_VARIANTS:
                return _shape_edge_array(a, variant)
            return _edge_array(a, variant)
        if isinstance(a, list):
            return [conv(v) for v in a]
        return a
    return _core.Sample(tuple(conv(a) for a in s.args), dict(s.kwargs), f"{s.name} {variant}")


def _shape_edge_array(a, variant):
    """Every float array argument made 0-d (its first element) or empty (no rows along dim 0)."""
    a = np.asarray(a.array if isinstance(a, NonContig) else a)
    if variant == "0-d":
        return a.reshape(-1)[:1].reshape(()).copy() if a.size else a
    return a[:0].copy() if a.ndim else a


# 0-d and empty tensors: sample shapes changed, so where torch refuses the new shapes the variant is
# skipped (refusals with torch's exception class are the ``errors`` check's business)
SHAPE_VARIANTS = ("0-d", "empty")
EDGE_VARIANTS = ("finite edges", "specials", "ties") + SHAPE_VARIANTS


def _torch_accepts(op, sample):
    args, kw = convert(sample, torch, "float64")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            op.fn(torch, *args, **kw)
    except Exception:  # noqa: BLE001 - any refusal
        return False
    return True


def check_edges(op):
    base = _small_samples(op, "float64", n=1) or _smallest(op, "float64")
    for s in base:
        for variant in EDGE_VARIANTS:
            if variant in EDGE_SKIP.get(op.name, {}) or variant in EDGE_SKIP_FAMILY.get(op.family, {}):
                continue
            es = _edge_sample(s, variant)
            if variant in SHAPE_VARIANTS and not _torch_accepts(op, es):
                continue
            label = _label(op, "float64", 0, es)
            got = run_both(op.fn, es, "float64")
            if got is None:
                continue
            assert_same(got[0], got[1], max(op.atol, 1e-7), max(op.rtol, 1e-6), label + " forward")
            _compare_grads(op, es, label)


def _compare_grads(op, s, label):
    res = []
    for lib in (torch, ember):
        args, kw = convert(s, lib, "float64")
        args, leaves = _grad_leaves(args, lib)
        if not leaves:
            return
        try:
            outs = _diff_outputs(op.fn(lib, *args, **kw))
            if not outs:
                return
            cots = [lib.ones_like(o) for o in outs]
            grads = lib.autograd.grad(outs, leaves, cots, allow_unused=True)
        except Exception as e:  # noqa: BLE001
            if lib is torch:
                return  # torch has no gradient here; the forward comparison stands
            raise AssertionError(f"{label}: ember's backward failed where torch's works: {e!r}")
        res.append([None if g is None else _plain_numpy(g) for g in grads])
    for k, (t, e) in enumerate(zip(*res)):
        if t is None or e is None:
            other = e if t is None else t
            assert other is None or np.allclose(other, 0), f"{label}: grad {k}"
            continue
        np.testing.assert_allclose(e, t, atol=max(op.grad_atol, 1e-6), rtol=max(op.grad_rtol, 1e-5),
                                   equal_nan=True, err_msg=f"{label}: grad of input {k}")


# family -> {edge variant: why torch's own result there is not a contract ember can match}
EDGE_SKIP_FAMILY = {
    "linalg_decomp": {
        "specials": "LAPACK's results on inf/NaN entries are unspecified (torch raises for some "
                    "decompositions and returns arbitrary values for others)",
        "ties": "a constant matrix is singular (rank 1): decompositions are not unique and their "
                "derivatives undefined; singular matrices have their own entries (det_singular, ...)"},
}
# entry -> {edge variant: reason}: where torch's own result there is undefined (every other edge must
# match torch).
_WEIGHTED = ("undefined: inf/NaN inside weighted sums or as sampling coordinates; the accumulation order "
             "decides inf - inf = NaN vs +-inf and a NaN coordinate selects no defined pixel")
EDGE_SKIP: dict = {
    "topk": {"ties": "undefined: which index among equal values is returned is unspecified in torch"},
    "kthvalue": {"ties": "undefined: which index among equal values is returned is unspecified in torch"},
    "polygamma": {"finite edges": "undefined: poles at 0 and the negative integers (inf or NaN by series)"},
    "special.polygamma": {"finite edges": "undefined: poles at 0 and the negative integers"},
    "polar": {"finite edges": "undefined: polar requires abs >= 0 (negative abs is documented as undefined)"},
    "nn.cdist": {"specials": "undefined: inf - inf distances depend on torch's mm-based or direct path"},
    "nn.interpolate_linear": {"specials": _WEIGHTED},
    "nn.grid_sample": {"specials": _WEIGHTED},
    "nn.grid_sample_bicubic": {"specials": _WEIGHTED},
    "nn.adaptive_avg_pool2d": {"specials": _WEIGHTED},
    "nn.adaptive_avg_pool3d": {"specials": _WEIGHTED},
    "nn.batch_norm_eval": {"empty": "undefined: emptying every float argument leaves running stats of 0 "
                                    "elements for 3 channels; torch skips that check on an empty batch"},
    "as_strided_scatter": {"finite edges": "torch 2.13's gradient for input is wrong (see its entry)",
                           "specials": "torch 2.13's gradient for input is wrong (see its entry)",
                           "ties": "torch 2.13's gradient for input is wrong (see its entry)"},
}

# the specials include the finite edges: the same reasons hold there
for _name in ("polygamma", "special.polygamma", "polar"):
    EDGE_SKIP[_name].setdefault("specials", EDGE_SKIP[_name]["finite edges"])



CHECKS = {
    "forward": (check_forward, lambda op: True),
    "backward": (check_backward, lambda op: op.grad and any(d in ("float32", "float64") for d in op.dtypes)),
    "gradcheck": (check_gradcheck, lambda op: op.grad and op.gradcheck and
                  any(d in ("float32", "float64") for d in op.dtypes)),
    "gradgrad": (check_gradgrad, lambda op: op.grad and "float64" in op.dtypes),
    "inplace_output": (check_inplace_output, lambda op: op.grad and "float64" in op.dtypes),
    "edges": (check_edges, lambda op: op.grad and "float64" in op.dtypes),
    "meta": (check_meta, lambda op: op.meta),
    "inplace": (check_inplace, lambda op: op.inplace is not None),
    "out": (check_out, lambda op: op.out is not None),
    "view": (check_view, lambda op: op.view),
    "noalias": (check_noalias, lambda op: not op.view),
    "errors": (check_errors, lambda op: getattr(op, "error_samples", None) is not None),
}

CASES = [pytest.param(op, check, id=f"{op.name}-{check}") for op in OPS for check, (_, applies) in
         CHECKS.items() if applies(op) and check not in op.skip_checks]


@pytest.mark.parametrize("op,check", CASES)
def test_op(op, check):
    # the same sample values whatever ran before (tests can be selected or reordered)
    _core.RNG.bit_generator.state = np.random.default_rng(0).bit_generator.state
    CHECKS[check][0](op)


def test_names_unique():
    names = [op.name for op in OPS]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


class _Recorder(ember._dispatch.TorchDispatchMode):
    """Records the name of every primitive dispatched inside it."""

    def __init__(self, seen):
        self.seen = seen

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.add(func.name)
        return func(*args, **(kwargs or {}))


def _reach(op, dtype, sample, seen):
    """Run an entry's forward (plain and with grad leaves), backward and in-place variant under a
    recorder; errors are the other checks' business."""
    runs = [(op.fn, False)] + ([(op.fn, True)] if op.grad and dtype in ("float32", "float64") else [])
    runs += [(op.inplace, False)] if op.inplace is not None else []
    for fn, grad in runs:
        args, kw = convert(sample, ember, dtype)
        leaves = []
        if grad:
            args, leaves = _grad_leaves(args, ember)
        with _Recorder(seen):
            try:
                outs = _diff_outputs(fn(ember, *args, **kw))
                if outs and leaves:
                    ember.autograd.grad(outs, leaves, [ember.ones_like(o) for o in outs], allow_unused=True)
            except Exception:  # noqa: BLE001
                pass


def test_every_primitive_reached():
    """Every registered primitive is dispatched by at least one op-database entry (forward, backward
    or in-place), so none escapes the generic checks."""
    from ember._primitives._registry import REGISTRY
    seen = set()
    for op in OPS:
        for dtype in op.dtypes:
            for s in op.samples(dtype):
                _reach(op, dtype, s, seen)
    missing = sorted(set(REGISTRY) - seen)
    assert not missing, f"primitives no op-database entry reaches: {missing}"
