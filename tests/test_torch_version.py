"""ember.torch_version.TorchVersion orders like torch's TorchVersion against strings and tuples."""
import pytest
import torch.torch_version as tv

from ember.torch_version import InvalidVersion, TorchVersion

CASES = ["2.0", "2.13", "2.13.0", "2.13.1", "2.14", "1.13.1", "2.13.0a0", "2.13.0rc1", "2.13.0.dev20250101",
         "2.13.0.post1", (2, 13), (2, 13, 0), (2, 12, 9), (3,), [2, 14]]


@pytest.mark.parametrize("mine", ["2.13.0+ember", "2.13.0", "2.1.0a0+git1234"])
def test_comparisons_match_torch(mine):
    ours, theirs = TorchVersion(mine), tv.TorchVersion(mine)
    for other in CASES:
        for op in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__"):
            assert getattr(ours, op)(other) == getattr(theirs, op)(other), (mine, op, other)


def test_is_a_string():
    v = TorchVersion("2.13.0+ember")
    assert isinstance(v, str) and v.split("+")[0] == "2.13.0" and f"{v}" == "2.13.0+ember"
    assert hash(v) == hash("2.13.0+ember")


def test_bad_version_operand():
    with pytest.raises(InvalidVersion):
        TorchVersion("2.13.0") < (2, "x")
