"""torch._assert and the torch._check family: exception types and messages as torch's."""
import pytest
import torch

import ember


@pytest.mark.parametrize("name,exc", [("_check", RuntimeError), ("_check_index", IndexError),
                                      ("_check_value", ValueError), ("_check_type", TypeError),
                                      ("_check_not_implemented", NotImplementedError)])
def test_check_family_matches_torch(name, exc):
    for lib in (ember, torch):
        getattr(lib, name)(True, lambda: "unused")
    msgs = []
    for lib in (ember, torch):
        with pytest.raises(exc) as info:
            getattr(lib, name)(False, lambda: "custom message")
        msgs.append(str(info.value))
        with pytest.raises(TypeError) as info:  # a tensor condition is refused, as torch does
            getattr(lib, name)(lib.tensor(False))
        msgs.append(str(info.value))
    assert msgs[:2] == msgs[2:]


def test_assert_and_check_with():
    with pytest.raises(AssertionError, match="bad"):
        ember._assert(False, "bad")
    with pytest.raises(KeyError):
        ember._check_with(KeyError, False, lambda: "k")


def test_assert_traces_as_one_call():
    class M(ember.nn.Module):
        def forward(self, x):
            ember._assert(x.shape[0] == 2, "batch of two")
            return x + 1
    gm = ember.fx.symbolic_trace(M())
    assert [n.target for n in gm.graph.nodes if n.op == "call_function"].count(ember._assert) == 1
    assert gm(ember.ones(2)).tolist() == [2.0, 2.0]
