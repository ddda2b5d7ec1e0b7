"""ember.cond / ember.while_loop (eager) against torch's."""
import pytest
import torch

import ember


def test_cond_picks_branch_like_torch():
    for pred in (True, False, 1, 0.0):
        for make_e, make_t in (((lambda p: p), (lambda p: p)),
                               ((lambda p: ember.tensor(bool(p))), (lambda p: torch.tensor(bool(p))))):
            e = ember.cond(make_e(pred), lambda x, y: x + y, lambda x, y: x - y,
                           (ember.ones(2), ember.ones(2) * 3))
            t = torch.cond(make_t(pred), lambda x, y: x + y, lambda x, y: x - y,
                           (torch.ones(2), torch.ones(2) * 3))
            assert e.tolist() == t.tolist()


def test_cond_gradient_flows_through_the_branch():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    ember.cond(ember.tensor([True]), lambda a: (a * a).sum(), lambda a: a.sum(), (x,)).backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_cond_errors_match_torch():
    for args_e, args_t in (((ember.tensor([True, False]), (ember.ones(2),)),
                            (torch.tensor([True, False]), (torch.ones(2),))),
                           ((ember.tensor(True), ember.ones(2)), (torch.tensor(True), torch.ones(2)))):
        with pytest.raises(RuntimeError) as te:
            torch.cond(args_t[0], lambda x: x, lambda x: x, args_t[1])
        with pytest.raises(RuntimeError) as ee:
            ember.cond(args_e[0], lambda x: x, lambda x: x, args_e[1])
        assert str(ee.value).split(",")[0] == str(te.value).split(",")[0]


def test_while_loop_matches_torch():
    e = ember.while_loop(lambda i, x: i < 4, lambda i, x: (i + 1, x * 2 + i),
                         (ember.tensor(0), ember.ones(3)))
    t = torch.while_loop(lambda i, x: i < 4, lambda i, x: (i + 1, x * 2 + i),
                         (torch.tensor(0), torch.ones(3)))
    assert isinstance(e, tuple) and [v.tolist() for v in e] == [v.tolist() for v in t]
