"""Tensor's ``is_*`` predicates are torch's, with torch's values (issue 17: ``is_xpu`` was missing)."""
import pytest
import torch

import ember

NAMES = sorted(n for n in dir(torch.Tensor) if n.startswith("is_"))


def test_same_set_of_predicates():
    assert sorted(n for n in dir(ember.Tensor) if n.startswith("is_")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_predicate_values(name):
    t, e = torch.arange(6.0).reshape(2, 3), ember.arange(6.0).reshape(2, 3)
    tv, ev = getattr(t, name), getattr(e, name)
    if not callable(tv):
        assert ev == tv, name
        return
    args = {"is_same_size": (lambda lib, x: (x,)), "is_set_to": (lambda lib, x: (x,))}.get(name)
    try:
        want = tv(*(args(torch, t) if args else ()))
    except RuntimeError as err:
        with pytest.raises(RuntimeError, match=str(err)):
            ev(*(args(ember, e) if args else ()))
        return
    assert ev(*(args(ember, e) if args else ())) == want, name


def test_is_set_to():
    for lib in (torch, ember):
        x = lib.zeros(4)
        assert x.is_set_to(x) and not x.is_set_to(x[:2]) and not x.is_set_to(lib.zeros(4))
