"""Recording (ember/autograd/_recording.py): the fast path's inlined node constructor against torch.

A fresh output saved for backward (relu, exp, tanh...) gets its version counter only when something
needs one; every way of writing into it afterwards must still make backward raise torch's error.
"""

import threading

import numpy as np
import pytest
import torch

import ember


def _write_detach(y, lib):
    y.detach().add_(1)


def _write_view(y, lib):
    y[0:1].mul_(2)


def _write_no_grad(y, lib):
    with lib.no_grad():
        y.add_(1)


def _write_detach_inplace(y, lib):
    y.detach_()
    y.add_(1)


def _write_out(y, lib):
    with lib.no_grad():
        lib.add(y, 1, out=y)


def _write_copy(y, lib):
    with lib.no_grad():
        y.copy_(lib.zeros(3))


def _write_setitem(y, lib):
    with lib.no_grad():
        y[1] = 5.0


def _write_grad_mode(y, lib):
    y.mul_(3)


def _write_data(y, lib):  # .data has its own counter in both libraries: no error
    y.data.add_(1)


def _write_none(y, lib):
    pass


WRITES = [_write_detach, _write_view, _write_no_grad, _write_detach_inplace, _write_out, _write_copy,
          _write_setitem, _write_grad_mode, _write_data, _write_none]
PRODUCERS = {"relu": lambda x: x.relu(), "exp": lambda x: x.exp(), "tanh": lambda x: x.tanh(),
             "sigmoid": lambda x: x.sigmoid(), "sqrt": lambda x: x.sqrt()}


def _outcome(lib, producer, write):
    x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = PRODUCERS[producer](x)
    z = y.sum() if write is _write_detach_inplace else (y * 1.0).sum()
    write(y, lib)
    try:
        z.backward()
    except RuntimeError as e:
        return "raises", "modified by an inplace operation" in str(e)
    return "ok", x.grad.tolist()


@pytest.mark.parametrize("producer", sorted(PRODUCERS))
def test_writes_into_saved_outputs_are_detected(producer):
    for write in WRITES:
        want = _outcome(torch, producer, write)
        got = _outcome(ember, producer, write)
        if want[0] == "ok":
            assert got[0] == "ok", (write.__name__, got)
            np.testing.assert_allclose(got[1], want[1], rtol=1e-6, err_msg=write.__name__)
        else:
            assert got == want, write.__name__


def test_error_names_the_output_and_versions_as_torch():
    msgs = []
    for lib in (torch, ember):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = x.exp()
        z = y.sum()
        with lib.no_grad():
            y.mul_(2)
        with pytest.raises(RuntimeError) as info:
            z.backward()
        msgs.append(str(info.value).split(" Hint:")[0])
    assert msgs[1] == msgs[0]


def test_recording_while_another_thread_has_grad_off():
    """Grad mode is per thread: while another thread sits in no_grad, this one still records (the
    general path), and the fast path comes back once that thread leaves."""
    entered, leave = threading.Event(), threading.Event()

    def other():
        with ember.no_grad():
            entered.set()
            leave.wait(10)

    th = threading.Thread(target=other)
    th.start()
    try:
        assert entered.wait(10)
        x = ember.tensor([1.0, -2.0, 3.0], requires_grad=True)
        y = (x * 2.0).relu()
        assert type(y.grad_fn).__name__ == "ReluBackward0"
        y.sum().backward()
        assert x.grad.tolist() == [2.0, 0.0, 2.0]
    finally:
        leave.set()
        th.join(10)
    from ember.autograd.grad_mode import LEAN, SPECIAL_RECORDING
    assert LEAN[0] == (not SPECIAL_RECORDING[0])


def test_thread_ending_with_grad_off_gives_the_fast_path_back():
    """A thread that ends while its grad mode is off no longer counts: recording in the other
    threads goes back to the fast path, and still records."""
    from ember.autograd import grad_mode

    def other():
        ember.set_grad_enabled(False)  # never switched back on

    th = threading.Thread(target=other)
    th.start()
    th.join(timeout=30)
    assert not th.is_alive()
    assert grad_mode.LEAN[0] == (not grad_mode.SPECIAL_RECORDING[0])
    x = ember.ones(3, requires_grad=True)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_no_grad_in_this_thread_records_nothing():
    x = ember.ones(3, requires_grad=True)
    with ember.no_grad():
        y = x * 2
    assert y.grad_fn is None and not y.requires_grad
    with ember.enable_grad():
        pass
    z = x * 2
    assert z.grad_fn is not None


def _node_fields(out):
    """What recording stored for ``out``, comparable across two recordings of the same call."""
    node = out.grad_fn
    # a saved output's counter is left out: the fast path makes it only when needed
    saved = [(type(s).__name__, s[0] is out._data, s[1]) if type(s) is tuple else
             (type(s).__name__, id(s) if hasattr(s, "_grad_fn") else s) for s in node._saved]
    edges = [(type(f).__name__, id(f) if type(f).__name__.startswith("torch::") else None, nr)
             for f, nr in node.next_functions]
    return type(node), edges, list(node.input_meta), saved, list(node._versions), dict(node.params)


@pytest.mark.parametrize("name", ["mul", "mul_scalar", "add_alpha", "relu", "sum", "view", "select"])
def test_fast_path_records_the_general_paths_node(name):
    """The constructor inlined into the fast path stores what ``record`` (the general path) stores."""
    from ember._dispatch import general_path_only
    x = ember.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    w = ember.tensor([0.5, 2.0], requires_grad=True)
    calls = {"mul": lambda: x * w, "mul_scalar": lambda: x * 3.0, "add_alpha": lambda: ember.add(x, w, alpha=2),
             "relu": lambda: x.relu(), "sum": lambda: x.sum(), "view": lambda: x.view(4), "select": lambda: x[1]}
    fast = calls[name]()
    with general_path_only():
        general = calls[name]()
    assert _node_fields(fast) == _node_fields(general)
    assert fast.grad_fn.view_version == general.grad_fn.view_version


def test_derivative_registered_again_is_used():
    """A custom op's autograd registered after its first calls (the fast path and its inlined node
    constructor already generated), then registered again: the latest formula runs, as in torch."""
    grads = {}
    for lib in (torch, ember):
        @lib.library.custom_op("emberrec_t::twice", mutates_args=())
        def twice(x: lib.Tensor) -> lib.Tensor:
            return x * 2

        x = lib.ones(2, requires_grad=True)
        twice(x)
        got = []
        for k in (2.0, 5.0):
            twice.register_autograd(lambda ctx, g, k=k: g * k)
            twice(x).sum().backward()
            got.append(x.grad.tolist())
            x.grad = None
        grads[lib.__name__] = got
    assert grads["ember"] == grads["torch"] == [[2.0, 2.0], [5.0, 5.0]]
