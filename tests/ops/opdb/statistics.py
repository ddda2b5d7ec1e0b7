"""Op-database entries for ember/_tensor_methods/statistics.py (cov, corrcoef, gradient, renorm)."""
from ._core import OpInfo, Sample, arr, noncontig

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
    OpInfo("renorm", lambda lib, x, *a: lib.renorm(x, *a), lambda dt: [
        Sample((arr((3, 4), dt), 2, 0, 2.0)),
        Sample((arr((2, 3, 4), dt), 1, 1, 3.0), name="p1-dim1"),
    ]),
]
