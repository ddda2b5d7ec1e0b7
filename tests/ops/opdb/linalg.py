"""Op-database entries for the matrix products: matmul family, fused updates, einsum, tensordot."""
from __future__ import annotations

from ._core import FLOAT, INT, OpInfo, Sample, arr, noncontig

MATMUL_SHAPES = [((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
                 ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)), ((5, 1, 2, 3), (4, 3, 2)),
                 ((3,), (5, 3, 4)), ((5, 2, 3), (3,)), ((0, 3), (3, 2)), ((2, 0), (0, 2))]
PRODUCT_DTYPES = FLOAT + INT + ("complex64",)


def _matmul_samples(dt):
    out = [Sample((arr(a, dt), arr(b, dt)), name=f"{a}@{b}") for a, b in MATMUL_SHAPES]
    out.append(Sample((noncontig(arr((3, 2), dt).T), arr((3, 4), dt)), name="noncontig"))
    out.append(Sample((noncontig(arr((5, 3, 2), dt).transpose(0, 2, 1)), arr((3, 4), dt)),
                      name="noncontig-batched"))
    return out


def _pair(sa, sb):
    return lambda dt: [Sample((arr(sa, dt), arr(sb, dt)))]


def _upd(si, sa, sb, extra=()):
    def samples(dt):
        out = [Sample((arr(si, dt), arr(sa, dt), arr(sb, dt)))]
        for shape in extra:
            out.append(Sample((arr(shape, dt), arr(sa, dt), arr(sb, dt)), name=f"input{shape}"))
        scal = dict(beta=0.5, alpha=2.0) if dt in FLOAT else dict(beta=2, alpha=3)
        out.append(Sample((arr(si, dt), arr(sa, dt), arr(sb, dt)), scal, name="beta-alpha"))
        out.append(Sample((arr(si, dt), arr(sa, dt), arr(sb, dt)), dict(beta=0), name="beta0"))
        return out
    return samples


EINSUM_CASES = [("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]),
                ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("ii", [(3, 3)]), ("ii->i", [(3, 3)]),
                ("ij->ji", [(2, 3)]), ("ij->", [(2, 3)]), ("ij->j", [(2, 3)]),
                ("...ij,...jk", [(5, 2, 3), (3, 4)]), ("b...,...->b...", [(5, 2, 3), (1, 3)]),
                ("i,j->ij", [(2,), (3,)]), ("i,i,i->", [(3,), (3,), (3,)]),
                ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("ij,jk->ik", [(2, 3), (1, 4)]),
                ("iij,jk->ik", [(2, 2, 3), (3, 4)]), ("i j , j k -> i k", [(2, 3), (3, 4)]),
                ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]), ("Ab,bA->A", [(2, 3), (3, 2)])]


def _einsum_samples(dt):
    return [Sample((eq,) + tuple(arr(s, dt) for s in shapes), name=eq) for eq, shapes in EINSUM_CASES]


def _tensordot_samples(dt):
    return [Sample((arr((2, 3, 4), dt), arr((3, 4, 5), dt)), name="dims2"),
            Sample((arr((2, 3, 4), dt), arr((4, 5), dt)), dict(dims=1), name="dims1"),
            Sample((arr((2, 3, 4), dt), arr((4, 3, 5), dt)), dict(dims=([1, 2], [1, 0])), name="lists"),
            Sample((arr((2, 3), dt), arr((4,), dt)), dict(dims=0), name="dims0")]


def _errors(pairs):
    """Error samples: (shape_a, dtype_a, shape_b, dtype_b) with torch's messages to mirror."""
    def samples(dt):
        return [Sample((arr(sa, da or dt), arr(sb, db or dt)), name=f"{sa}{da}@{sb}{db}")
                for sa, da, sb, db in pairs]
    return samples


MATMUL_ERRORS = [((4, 3), None, (5, 2), None), ((3,), None, (4,), None), ((5, 2, 3), None, (4,), None),
                 ((2, 5, 2, 3), None, (3, 4, 2), None), ((5, 2, 3), None, (4, 3), None),
                 ((5, 2, 3), None, (5, 4, 3), None), ((3,), None, (5, 4, 3), None),
                 ((2, 3), "float64", (3, 2), "float32"), ((3,), "float64", (3,), "float32"),
                 ((2, 3), "float64", (3,), "float32"), ((4, 2, 3), "float64", (4, 3, 2), "float32"),
                 ((2, 3), "int64", (3, 2), "float32"), ((2, 3), "float64", (2, 3, 2), "float32"),
                 ((3,), None, (4, 3), None), ((2, 2), "bool", (2, 2), "bool")]
MM_ERRORS = [((4, 3), None, (5, 2), None), ((4, 3), None, (3,), None), ((3,), None, (3, 2), None),
             ((2, 3), "float64", (3, 2), "float32"), ((4, 3), "float64", (5, 2), "float32")]
BMM_ERRORS = [((2, 4, 3), None, (3, 3, 2), None), ((2, 4, 3), None, (2, 4, 2), None),
              ((4, 3), None, (2, 3, 2), None), ((2, 2, 3), "float64", (2, 3, 2), "float32")]
DOT_ERRORS = [((3,), None, (4,), None), ((3, 1), None, (3,), None), ((3,), "float64", (3,), "float32")]
MV_ERRORS = [((2, 3), None, (4,), None), ((3,), None, (3,), None), ((2, 3), "float64", (3,), "float32")]
EINSUM_ERRORS = [("ij,jk->ik", [(2, 3), (4, 4)]), ("ij,jk->ik", [(2, 3)]), ("ij->ik", [(2, 3)]),
                 ("ij->ii", [(2, 3)]), ("ij,jk->ik", [(2, 3), (3, 4), (2,)]),
                 ("ijk,jk->ik", [(2, 3), (3, 4)]), ("i1,jk->ik", [(2, 3), (3, 4)]),
                 ("i.j", [(2, 3)]), ("ii->i", [(2, 3)]), ("...ij->...", [(3,)])]


def _einsum_errors(dt):
    return [Sample((eq,) + tuple(arr(s, dt) for s in shapes), name=eq) for eq, shapes in EINSUM_ERRORS]


OPS = [
    OpInfo("matmul", lambda lib, a, b: lib.matmul(a, b), _matmul_samples, dtypes=PRODUCT_DTYPES,
           out=lambda lib, a, b, out: lib.matmul(a, b, out=out), error_samples=_errors(MATMUL_ERRORS)),
    OpInfo("__matmul__", lambda lib, a, b: a @ b, _matmul_samples, dtypes=FLOAT),
    OpInfo("mm", lambda lib, a, b: lib.mm(a, b), _pair((4, 3), (3, 2)), dtypes=PRODUCT_DTYPES,
           out=lambda lib, a, b, out: lib.mm(a, b, out=out), error_samples=_errors(MM_ERRORS)),
    OpInfo("bmm", lambda lib, a, b: lib.bmm(a, b), _pair((5, 4, 3), (5, 3, 2)), dtypes=PRODUCT_DTYPES,
           out=lambda lib, a, b, out: lib.bmm(a, b, out=out), error_samples=_errors(BMM_ERRORS)),
    OpInfo("mv", lambda lib, a, b: lib.mv(a, b), _pair((4, 3), (3,)), dtypes=PRODUCT_DTYPES,
           error_samples=_errors(MV_ERRORS)),
    OpInfo("dot", lambda lib, a, b: lib.dot(a, b), _pair((5,), (5,)), dtypes=PRODUCT_DTYPES,
           error_samples=_errors(DOT_ERRORS)),
    OpInfo("vdot", lambda lib, a, b: lib.vdot(a, b), _pair((5,), (5,)), dtypes=FLOAT + ("complex64",)),
    OpInfo("outer", lambda lib, a, b: lib.outer(a, b), _pair((4,), (3,)), dtypes=FLOAT + INT),
    OpInfo("addmm", lambda lib, i, a, b, **k: lib.addmm(i, a, b, **k),
           _upd((4, 2), (4, 3), (3, 2), extra=[(2,), (1, 1)]), dtypes=FLOAT + INT,
           inplace=lambda lib, i, a, b, **k: i.addmm_(a, b, **k)),
    OpInfo("addmv", lambda lib, i, a, b, **k: lib.addmv(i, a, b, **k), _upd((4,), (4, 3), (3,), [(1,)]),
           dtypes=FLOAT + INT, inplace=lambda lib, i, a, b, **k: i.addmv_(a, b, **k)),
    OpInfo("addr", lambda lib, i, a, b, **k: lib.addr(i, a, b, **k), _upd((4, 3), (4,), (3,), [(3,)]),
           dtypes=FLOAT + INT, inplace=lambda lib, i, a, b, **k: i.addr_(a, b, **k)),
    OpInfo("baddbmm", lambda lib, i, a, b, **k: lib.baddbmm(i, a, b, **k),
           _upd((5, 4, 2), (5, 4, 3), (5, 3, 2), [(2,), (4, 2)]), dtypes=FLOAT + INT,
           inplace=lambda lib, i, a, b, **k: i.baddbmm_(a, b, **k)),
    OpInfo("addbmm", lambda lib, i, a, b, **k: lib.addbmm(i, a, b, **k),
           _upd((4, 2), (5, 4, 3), (5, 3, 2)), dtypes=FLOAT),
    OpInfo("einsum", lambda lib, eq, *ops: lib.einsum(eq, *ops), _einsum_samples, dtypes=FLOAT,
           gradgrad=True, error_samples=_einsum_errors),
    OpInfo("tensordot", lambda lib, a, b, **k: lib.tensordot(a, b, **k), _tensordot_samples,
           dtypes=FLOAT),
]
