"""Op-database entries for ember/_tensor_methods/statistics.py (cov, corrcoef, gradient, renorm)."""
from ._core import OpInfo, Sample, arr, noncontig

COMPLEX = ("complex64", "complex128")


def _renorm_samples(dt):
    """Slices above and below maxnorm, a zero slice, p = inf / fractional / 3, maxnorm 0, dim -1."""
    mixed = arr((4, 3), dt)
    mixed[1] *= 0.05  # norm below maxnorm: passed through
    mixed[2] = 0
    return [Sample((arr((3, 4), dt), 2, 0, 2.0)),
            Sample((arr((2, 3, 4), dt), 1, 1, 3.0), name="p1-dim1"),
            Sample((mixed, 2, 0, 1.0), name="mixed"),
            Sample((mixed, float("inf"), 0, 1.0), name="p=inf"),
            Sample((arr((3, 4), dt), 0.5, -1, 4.0), name="p=0.5"),
            Sample((arr((3, 2, 2), dt), 3, 2, 1.0), name="p=3-dim2"),
            Sample((arr((3, 4), dt), 2, 0, 0.0), name="maxnorm0"),
            Sample((noncontig(arr((4, 3), dt)), 2, 1, 1.0), name="noncontig")]

OPS = [
    OpInfo("cov", lambda lib, x, **kw: lib.cov(x, **kw), lambda dt: [
        Sample((arr((3, 5), dt),)),
        Sample((arr((4,), dt),), name="1d"),
        Sample((arr((2, 6), dt),), dict(correction=0), name="correction0"),
        Sample((noncontig(arr((5, 3), dt).T.copy()),), name="noncontig"),
    ]),
    OpInfo("cov_weighted", lambda lib, x, f, a: lib.cov(x, fweights=lib.tensor(f), aweights=lib.tensor(a)),
           lambda dt: [Sample((arr((2, 4), dt), [1, 2, 1, 3], [0.5, 1.0, 2.0, 1.5]))], meta=False),
    OpInfo("corrcoef", lambda lib, x: lib.corrcoef(x), lambda dt: [Sample((arr((3, 6), dt),))]),
    OpInfo("gradient", lambda lib, x, **kw: lib.gradient(x, **kw), lambda dt: [
        Sample((arr((6,), dt),)),
        Sample((arr((4, 5), dt),), dict(dim=1, spacing=2.0), name="dim-spacing"),
        Sample((arr((4, 5), dt),), dict(edge_order=2), name="edge2"),
        Sample((arr((3, 4), dt),), dict(spacing=[0.5, 2.0]), name="per-dim"),
    ]),
    OpInfo("renorm", lambda lib, x, *a: lib.renorm(x, *a), _renorm_samples,
           error_samples=lambda dt: [Sample((arr((4,), dt), 2, 0, 1.0), name="1-d"),
                                     Sample((arr((3, 4), dt), 0, 0, 1.0), name="p=0"),
                                     Sample((arr((3, 4), dt), -1, 0, 1.0), name="p<0"),
                                     Sample((arr((3, 4), dt), 2, 0, -1.5), name="maxnorm<0"),
                                     Sample((arr((3, 4), dt), 2, 2, 1.0), name="dim"),
                                     Sample((arr((3, 4), "int64"), 2, 0, 1.0), name="int"),
                                     Sample((arr((3, 0), dt), float("inf"), 0, 1.0), name="inf-empty")]),
    OpInfo("renorm_complex", lambda lib, x, *a: lib.renorm(x, *a),
           lambda dt: [Sample((arr((3, 4), dt), 2, 0, 2.0)), Sample((arr((2, 3), dt), 1, -1, 1.5), name="p1")],
           dtypes=COMPLEX),
]
