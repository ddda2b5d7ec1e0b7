"""torch.sym_* helpers against torch on concrete numbers: values, result types and errors."""
import numpy as np
import pytest
import torch

import ember

CALLS = [("sym_float", (3,)), ("sym_float", (True,)), ("sym_int", (2.7,)), ("sym_int", (-2.7,)),
         ("sym_int", (5,)), ("sym_max", (1, 2.0)), ("sym_max", (3, 2.0)), ("sym_max", (3, 2)),
         ("sym_max", (float("nan"), 1)), ("sym_max", (1, float("nan"))), ("sym_max", (np.int64(3), 2)),
         ("sym_min", (1, 2.0)), ("sym_min", (True, 2)), ("sym_min", (2, 2.0)), ("sym_not", (0,)),
         ("sym_not", (True,)), ("sym_sqrt", (2,)), ("sym_sum", ([1, 2, 3],)), ("sym_sum", (1, 2.5)),
         ("sym_sum", ([],)), ("sym_ite", (True, 1, 2)), ("sym_ite", (False, 1, 2)),
         ("sym_fresh_size", (5,)), ("sym_constrain_range", (5,)), ("sym_constrain_range_for_size", (5,))]


@pytest.mark.parametrize("name,args", CALLS)
def test_values_and_types(name, args):
    expected = getattr(torch, name)(*args)
    got = getattr(ember, name)(*args)
    assert type(got) is type(expected)
    assert got == expected or (got != got and expected != expected)


@pytest.mark.parametrize("name,args,kwargs", [
    ("sym_max", (torch.tensor(1), 2), {}), ("sym_ite", (1, "a", "b"), {}),
    ("sym_constrain_range", (5,), dict(min=0, max=4)), ("sym_constrain_range", (5,), dict(min=6)),
    ("sym_constrain_range_for_size", (5,), dict(max=3)), ("sym_constrain_range_for_size", (-1,), {})])
def test_errors(name, args, kwargs):
    with pytest.raises(Exception) as t_err:
        getattr(torch, name)(*args, **kwargs)
    e_args = tuple(ember.tensor(a.item()) if isinstance(a, torch.Tensor) else a for a in args)
    with pytest.raises(type(t_err.value)) as e_err:
        getattr(ember, name)(*e_args, **kwargs)
    if isinstance(t_err.value, RuntimeError):
        assert str(e_err.value) == str(t_err.value)

