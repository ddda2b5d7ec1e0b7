"""Every op of the op database on a quantized tensor: a quantized kernel, or torch's
NotImplementedError naming QuantizedCPU; never a computation on the raw integers."""
import warnings

import numpy as np
import pytest

import ember
from tests.ops.opdb import OPS
from tests.ops.opdb._core import NonContig

pytestmark = pytest.mark.filterwarnings("ignore")

# ops with a quantized kernel whose arguments are wrong for it (as torch: RuntimeError)
ARGUMENT_ERRORS = {"float_power": "converting a quantized tensor", "cat_promote": "all tensors"}


def _quantized(x):
    if isinstance(x, NonContig):
        x = x.array
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ember.quantize_per_tensor(ember.tensor(x.astype(np.float32)), 0.05, 64, ember.quint8)
    if isinstance(x, np.ndarray):
        return ember.tensor(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_quantized(v) for v in x)
    return x


def _has_quantized(values):
    for v in values:
        if isinstance(v, (list, tuple)) and _has_quantized(v) or getattr(v, "is_quantized", False):
            return True
    return False


def test_ops_on_quantized_tensors_have_a_kernel_or_refuse():
    checked, with_kernel, problems = 0, [], []
    for op in OPS:
        if "float32" not in op.dtypes:
            continue
        samples = list(op.samples("float32"))
        if not samples:
            continue
        s = samples[0]
        args = tuple(_quantized(a) for a in s.args)
        kwargs = {k: _quantized(v) for k, v in s.kwargs.items()}
        if not _has_quantized(list(args) + list(kwargs.values())):
            continue
        checked += 1
        try:
            out = op.fn(ember, *args, **kwargs)
        except NotImplementedError as e:
            if "QuantizedCPU" not in str(e):
                problems.append((op.name, str(e)[:80]))
            continue
        except RuntimeError as e:
            if op.name not in ARGUMENT_ERRORS or ARGUMENT_ERRORS[op.name] not in str(e):
                problems.append((op.name, f"RuntimeError: {str(e)[:80]}"))
            continue
        outs = out if isinstance(out, (list, tuple)) else [out]
        if all(getattr(o, "is_quantized", False) for o in outs if isinstance(o, ember.Tensor)):
            with_kernel.append(op.name)
        else:
            problems.append((op.name, "returned a non-quantized result computed from the integers"))
    assert checked > 400
    assert not problems, problems
    assert len(with_kernel) >= 10  # relu, pooling, views, cat ... run quantized
