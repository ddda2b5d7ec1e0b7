"""TorchFunctionMode sees every public function, Tensor method, property and operator, as torch's does.

torch is the oracle: the same calls run under a logging mode in both libraries and the names the
modes see are compared. The broad check is generated from ``torch.overrides.get_testing_overrides()``
(every name ember also has, called with small float tensors where the override's signature says
which arguments are tensors).
"""
from __future__ import annotations

import copy
import inspect
import operator
import threading
import warnings

import pytest

import torch

import ember

# names torch's mode sees first for reasons of its own Python code (an attribute read before the call)
TORCH_QUIRKS = {("torch", "lobpcg"), ("torch", "pca_lowrank"), ("torch", "svd_lowrank"),
                ("Tensor", "__reduce_ex__")}
# torch names functions of these namespaces with a prefix (``linalg_cholesky``); ember keeps the
# attribute's name (fx and pickling import functions by ``__module__`` + ``__qualname__``)
PREFIXES = {"linalg": "linalg_", "fft": "fft_", "special": "special_"}
# torch's C name differs from the attribute: ember shows the attribute's name
RENAMED = {("F", "logsigmoid"): "log_sigmoid"}


def _watcher(lib, seen, record_types=False):
    class Watch(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append((func.__name__, types) if record_types else func.__name__)
            return func(*args, **(kwargs or {}))
    return Watch


def _first_seen(lib, call):
    """The name a mode sees first; the mode returns None instead of running the op (the name is
    decided before the op runs, and heavy kernels need not load)."""
    seen = []

    class First(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
    try:
        with First():
            call()
    except Exception:  # noqa: BLE001 (code after the intercepted call may trip over None)
        pass
    return seen[0] if seen else None


def _sample(lib):
    return lib.ones(3, 3) * 0.5 + lib.eye(3)


def _args(lib, dummy):
    """Positional arguments for a testing override's signature: small float tensors, 0 for dims."""
    args = []
    for p in inspect.signature(dummy).parameters.values():
        if p.kind != p.POSITIONAL_OR_KEYWORD or p.default is not p.empty:
            continue
        if p.name in ("dim", "dims"):
            args.append(0)
        elif p.name in ("tensors", "tensor_list"):
            args.append([_sample(lib), _sample(lib)])
        elif p.name == "size":
            args.append((3, 3))
        else:
            args.append(_sample(lib))
    return args


def _overridable():
    """(namespace tag, name, torch callable, its testing override) for names ember also has."""
    from torch.overrides import get_testing_overrides
    over = get_testing_overrides()
    spaces = [("torch", torch, ember), ("Tensor", torch.Tensor, ember.Tensor),
              ("F", torch.nn.functional, ember.nn.functional), ("linalg", torch.linalg, ember.linalg),
              ("fft", torch.fft, ember.fft), ("special", torch.special, ember.special)]
    out = []
    for tag, tspace, espace in spaces:
        for name in dir(tspace):
            fn = getattr(tspace, name, None)
            if not callable(fn) or getattr(fn, "__hash__", None) is None or fn not in over:
                continue
            # (torch's sym_* functions import sympy: seconds of import for nothing tensor-related)
            if hasattr(espace, name) and (tag, name) not in TORCH_QUIRKS and not name.startswith("sym_"):
                out.append((tag, name, over[fn]))
    return out


def _caller(lib, tag, name):
    if tag == "Tensor":  # looked up at call time, as ``t.name(...)`` does
        return lambda *a: getattr(lib.Tensor, name)(*a)
    space = {"torch": lib, "F": lib.nn.functional, "linalg": lib.linalg, "fft": lib.fft,
             "special": lib.special}[tag]
    return getattr(space, name)


def test_modes_see_what_torchs_see_for_every_overridable_name():
    warnings.filterwarnings("ignore")
    compared, wrong = 0, []
    for tag, name, dummy in _overridable():
        try:
            targs, eargs = _args(torch, dummy), _args(ember, dummy)
        except Exception:  # noqa: BLE001
            continue
        tcall, ecall = _caller(torch, tag, name), _caller(ember, tag, name)
        try:
            tcall(*targs)
        except Exception:  # noqa: BLE001 (arguments torch refuses: nothing to compare)
            continue
        expected = _first_seen(torch, lambda: tcall(*targs))
        if expected is None:
            continue
        expected = expected.removeprefix(PREFIXES.get(tag, "\0"))
        got = _first_seen(ember, lambda: ecall(*eargs))
        compared += 1
        if got != expected and RENAMED.get((tag, name)) != expected:
            wrong.append((tag, name, expected, got))
    assert compared > 700, compared
    assert not wrong, wrong


FACTORIES = {
    "zeros": lambda L: L.zeros(2), "ones": lambda L: L.ones(2), "full": lambda L: L.full((2,), 1.0),
    "empty": lambda L: L.empty(2), "tensor": lambda L: L.tensor([1.0]), "arange": lambda L: L.arange(3),
    "rand": lambda L: L.rand(2), "randn": lambda L: L.randn(2), "eye": lambda L: L.eye(2),
    "linspace": lambda L: L.linspace(0, 1, 3), "logspace": lambda L: L.logspace(0, 1, 3),
    "as_tensor": lambda L: L.as_tensor([1.0]), "randint": lambda L: L.randint(3, (2,)),
    "randperm": lambda L: L.randperm(3), "scalar_tensor": lambda L: L.scalar_tensor(1.0),
    "empty_strided": lambda L: L.empty_strided((2,), (1,)), "hann_window": lambda L: L.hann_window(4),
    "tril_indices": lambda L: L.tril_indices(3, 3), "asarray": lambda L: L.asarray([1.0]),
    "from_numpy": lambda L: L.from_numpy(__import__("numpy").ones(2)),
    "is_tensor": lambda L: L.is_tensor(1), "manual_seed": lambda L: L.manual_seed(0),
    "get_default_dtype": lambda L: L.get_default_dtype(),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factories_and_utilities_as_torch(name):
    make = FACTORIES[name]
    seen_t, seen_e = [], []
    with _watcher(torch, seen_t)():
        make(torch)
    with _watcher(ember, seen_e)():
        make(ember)
    assert seen_e == seen_t


def _operators(L):
    t = L.ones(3)
    b, i = L.ones(3, dtype=L.bool), L.ones(3, dtype=L.int64)
    return {
        "t + t": lambda: t + t, "1 + t": lambda: 1 + t, "t - 1": lambda: t - 1, "1 - t": lambda: 1 - t,
        "t * 2": lambda: t * 2, "2 * t": lambda: 2 * t, "t / t": lambda: t / t, "1 / t": lambda: 1 / t,
        "t // t": lambda: t // t, "1 // t": lambda: 1 // t, "t % t": lambda: t % t, "1 % t": lambda: 1 % t,
        "t ** 2": lambda: t ** 2, "2 ** t": lambda: 2 ** t, "t @ t": lambda: t @ t, "-t": lambda: -t,
        "+t": lambda: +t, "abs(t)": lambda: abs(t), "~b": lambda: ~b, "b & b": lambda: b & b,
        "b | b": lambda: b | b, "b ^ b": lambda: b ^ b, "i << i": lambda: i << i, "i >> i": lambda: i >> i,
        "t == t": lambda: t == t, "t != t": lambda: t != t, "t < t": lambda: t < t, "t >= t": lambda: t >= t,
        "t[0]": lambda: t[0], "t[0:2]": lambda: t[0:2], "t[i]": lambda: t[i - 1],
        "t[0] = 2.0": lambda: operator.setitem(t, 0, 2.0), "t[b] = 0": lambda: operator.setitem(t, b, 0.0),
        "t.shape": lambda: t.shape, "t.dtype": lambda: t.dtype, "t.T": lambda: i.view(1, 3).T,
        "t.requires_grad": lambda: t.requires_grad, "t.grad": lambda: t.grad, "len(t)": lambda: len(t),
        "t.size()": lambda: t.size(), "t.dim()": lambda: t.dim(), "t.numel()": lambda: t.numel(),
        "t.float()": lambda: t.float(), "t.to(int64)": lambda: t.to(L.int64), "t.item()": lambda: t[0].item(),
        "1.0 in t": lambda: 1.0 in t, "float(t)": lambda: float(t[0]), "repr": lambda: repr(t),
        "copy.deepcopy": lambda: copy.deepcopy(t), "t.tolist()": lambda: t.tolist(),
        "t.add_(1)": lambda: t.add_(1), "t.ndimension()": lambda: t.ndimension(),
    }


def _inplace(L, sym):
    x = (L.ones(3, dtype=L.bool) if sym in ("&=", "|=", "^=") else
         L.ones(3, dtype=L.int64) if sym in ("<<=", ">>=") else L.ones(3))
    y = x.clone() if x.dtype == L.bool else 1
    seen = []
    with _watcher(L, seen)():
        exec(f"x {sym} y", {"x": x, "y": y})  # noqa: S102 (the operator under test)
    return seen


def test_operators_methods_and_properties_as_torch():
    tops, eops = _operators(torch), _operators(ember)
    for key in tops:
        seen_t, seen_e = [], []
        with _watcher(torch, seen_t)():
            tops[key]()
        with _watcher(ember, seen_e)():
            eops[key]()
        assert seen_e == seen_t, key
    for sym in ("+=", "-=", "*=", "/=", "**=", "%=", "//=", "&=", "|=", "^=", "<<=", ">>="):
        assert _inplace(ember, sym) == _inplace(torch, sym), sym


def test_qualnames_and_types_as_torch():
    seen = []
    t = ember.ones(3)

    class Sub(ember.Tensor):
        pass
    s = t.as_subclass(Sub)
    p = ember.nn.Parameter(ember.ones(3))
    with _watcher(ember, seen, record_types=True)():
        t + t
        s + t
        p + t
        ember.nn.functional.relu(t)
        ember.nn.functional.relu(p)
        ember.nn.functional.relu(s)
        t.shape
    assert seen == [("add", ()), ("add", (Sub,)), ("add", ()), ("relu", (ember.Tensor,)), ("relu", ()),
                    ("relu", (Sub,)), ("__get__", ())]
    quals = []

    class Q(ember.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            quals.append(func.__qualname__)
            return func(*args, **(kwargs or {}))
    with Q():
        1 - t
        t.shape
        t[0]
    assert quals == ["Tensor.__rsub__", "Tensor.shape.__get__", "Tensor.__getitem__"]


def test_callbacks_run_the_real_op_and_results_can_be_replaced():
    t = ember.arange(6.0).view(2, 3)
    ops = [lambda: t + 1, lambda: t.exp(), lambda: t[1], lambda: t.sum(1), lambda: ember.zeros(2, 2),
           lambda: ember.nn.functional.softmax(t, 1), lambda: t.float(), lambda: t.T, lambda: t.size()]
    expected = [op() for op in ops]
    with _watcher(ember, [])():
        got = [op() for op in ops]
    for e, g in zip(expected, got):
        if isinstance(e, ember.Tensor):
            assert ember.equal(e, g)
        else:
            assert e == g

    class Constant(ember.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return 42
    with Constant():
        assert (t + t) == 42 and t.exp() == 42 and t[0] == 42 and ember.zeros(2) == 42
        assert t.shape == 42 and t.dim() == 42 and ember.nn.functional.relu(t) == 42


def test_nested_modes_innermost_first_and_each_sees_the_call_once():
    log = []

    def mode(tag):
        class M(ember.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                log.append((tag, func.__name__))
                return func(*args, **(kwargs or {}))
        return M()
    t = ember.ones(2)
    with mode("outer"), mode("inner"):
        r = (t * 3).sum()
    assert r.item() == 6.0
    assert log == [("inner", "mul"), ("outer", "mul"), ("inner", "sum"), ("outer", "sum")]
    seen_t = []
    T = torch.ones(2)
    with _watcher(torch, seen_t)(), _watcher(torch, seen_t)():
        (T * 3).sum()
    assert [n for _, n in log] == seen_t


def test_disable_torch_function_hides_calls_and_subclass_disable_does_not():
    seen = []
    t = ember.ones(2)
    with _watcher(ember, seen)():
        with ember._C.DisableTorchFunction():
            t + t
            t.exp()
            ember.zeros(2)
            t.shape
        assert seen == []
        with ember._C.DisableTorchFunctionSubclass():
            t * t
    assert seen == ["mul"]


def test_mode_runs_before_a_subclass_override():
    log = []

    class Sub(ember.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append(("sub", func.__name__))
            return super().__torch_function__(func, types, args, kwargs)

    class M(ember.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append(("mode", func.__name__))
            return func(*args, **(kwargs or {}))
    s = ember.ones(2).as_subclass(Sub)
    with M():
        r = s.exp()
    assert type(r) is Sub
    assert log == [("mode", "exp"), ("sub", "exp")]


def test_backward_internals_stay_hidden():
    seen, seen_t = [], []
    x = ember.ones(3, requires_grad=True)
    X = torch.ones(3, requires_grad=True)
    with _watcher(ember, seen)():
        (x * x).sum().backward()
        ember.autograd.grad((x * 2).sum(), x)
    with _watcher(torch, seen_t)():
        (X * X).sum().backward()
        torch.autograd.grad((X * 2).sum(), X)
    assert seen == seen_t
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_no_cost_and_no_trace_once_modes_exit():
    from ember import overrides
    T = ember.Tensor
    before = {name: inspect.getattr_static(T, name) for name in ("size", "dim", "shape", "float", "__rsub__")}
    with _watcher(ember, [])():
        assert T not in overrides.PLAIN_TYPES
        assert inspect.getattr_static(T, "size") is not before["size"]
    assert T in overrides.PLAIN_TYPES and ember.nn.Parameter in overrides.PLAIN_TYPES
    assert {name: inspect.getattr_static(T, name) for name in before} == before
    assert not overrides.ANY_MODE[0]


def test_a_mode_in_one_thread_does_not_see_another_threads_calls():
    seen, other = [], []
    t = ember.ones(2)
    started, done = threading.Event(), threading.Event()

    def work():
        started.wait(5)
        other.append((t + t).sum().item())
        done.set()
    th = threading.Thread(target=work)
    th.start()
    with _watcher(ember, seen)():
        started.set()
        assert done.wait(10)
        t.exp()
    th.join(10)
    assert other == [4.0] and seen == ["exp"]


def test_a_method_reassigned_under_a_mode_is_kept_at_exit():
    T = ember.Tensor
    original = inspect.getattr_static(T, "numel")

    def numel(self):
        return -1
    try:
        with _watcher(ember, [])():
            T.numel = numel
        assert inspect.getattr_static(T, "numel") is numel and ember.ones(2).numel() == -1
    finally:
        T.numel = original
    assert ember.ones(2).numel() == 2
