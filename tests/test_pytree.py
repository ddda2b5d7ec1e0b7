"""ember.utils._pytree against torch.utils._pytree: leaves, specs, reprs, round trips and errors."""
from __future__ import annotations

from collections import OrderedDict, defaultdict, deque, namedtuple

import pytest
import torch.utils._pytree as tpt

import ember.utils._pytree as ept

Point = namedtuple("Point", "x y")

TREES = [
    1,
    None,
    [],
    (),
    {},
    [1, 2, 3],
    (1, [2, (3, None)]),
    {"b": 1, "a": [2, 3]},
    [1, (2, {"b": 3, "a": None}), Point(4, [5]), OrderedDict(z=6, y=7)],
    defaultdict(int, {"k": [1, 2]}),
    deque([1, (2, 3)]),
    Point(x=(1, 2), y={"q": 3}),
    {"nested": {"deep": [[[1]], ()]}},
]


def _norm(spec_repr: str) -> str:
    return spec_repr.replace("tests.test_pytree.", "")


@pytest.mark.parametrize("tree", TREES, ids=lambda t: type(t).__name__)
def test_flatten_matches_torch(tree):
    el, es = ept.tree_flatten(tree)
    tl, ts = tpt.tree_flatten(tree)
    assert el == tl
    assert repr(es) == repr(ts)
    assert (es.num_leaves, es.num_nodes, es.num_children, es.is_leaf()) == (
        ts.num_leaves, ts.num_nodes, ts.num_children, ts.is_leaf())
    assert ept.tree_leaves(tree) == tl
    rebuilt = ept.tree_unflatten(list(range(len(el))), es)
    assert rebuilt == tpt.tree_unflatten(list(range(len(tl))), ts)
    if not es.is_leaf():
        assert type(rebuilt) is type(tree)
    assert ept.tree_unflatten(el, es) == tree


def test_tree_map_and_multiple_trees():
    t = [1, (2, {"a": 3})]
    assert ept.tree_map(lambda x: x * 10, t) == [10, (20, {"a": 30})]
    assert ept.tree_map(lambda a, b: a + b, t, [1, (1, {"a": 1})]) == [2, (3, {"a": 4})]
    # a rest may be deeper where the first tree has a leaf
    assert ept.tree_map(lambda a, b: (a, b), [1, 2], [[9], 8]) == [(1, [9]), (2, 8)]
    assert ept.tree_map(lambda x: x, None) is None


def test_tree_map_is_leaf_and_only():
    t = [(1, 2), (3, 4)]
    assert ept.tree_map(len, t, is_leaf=lambda x: isinstance(x, tuple)) == [2, 2]
    assert ept.tree_map_only(int, lambda x: -x, [1, "a", (2.5, 3)]) == [-1, "a", (2.5, -3)]
    assert ept.tree_all(lambda x: x > 0, t) and not ept.tree_any(lambda x: x > 4, t)
    seen = []
    assert ept.tree_map_(seen.append, t) is t and seen == [1, 2, 3, 4]


@pytest.mark.parametrize("a, b", [
    ([1, (2,)], [10, 20]),
    ([1, 2], [1, 2, 3]),
    ({"a": 1}, {"b": 1}),
    (Point(1, 2), (1, 2)),
])
def test_structure_mismatch_errors_match_torch(a, b):
    def outcome(mod):
        try:
            mod.tree_map(lambda x, y: x, a, b)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
    assert outcome(ept) == outcome(tpt) is not None


def test_unflatten_wrong_count():
    _, spec = ept.tree_flatten([1, 2])
    with pytest.raises(ValueError, match=r"`leaves` has length 1 but the spec refers to a pytree that "
                                         r"holds 2 items"):
        ept.tree_unflatten([1], spec)
    with pytest.raises(TypeError, match="Expected `treespec` to be instance of TreeSpec"):
        ept.tree_unflatten([1], [1])


def test_spec_equality_hash_and_leafspec():
    s1, s2 = ept.tree_structure([1, {"a": 2}]), ept.tree_structure([5, {"a": 6}])
    assert s1 == s2 and hash(s1) == hash(s2)
    assert s1 != ept.tree_structure([1, {"b": 2}])
    assert repr(ept.LeafSpec()) == "*" and ept.tree_structure(3).is_leaf()
    assert s1.child(1).context == ["a"] and len(s1.children()) == 2


def test_register_custom_node():
    class Box:
        def __init__(self, items, tag):
            self.items, self.tag = items, tag

    ept.register_pytree_node(Box, lambda b: (list(b.items), b.tag), lambda v, tag: Box(v, tag))
    try:
        leaves, spec = ept.tree_flatten([Box([1, 2], "t"), 3])
        assert leaves == [1, 2, 3]
        out = ept.tree_unflatten([4, 5, 6], spec)
        assert out[0].items == [4, 5] and out[0].tag == "t" and out[1] == 6
        with pytest.raises(ValueError, match="already registered"):
            ept.register_pytree_node(Box, lambda b: ([], None), lambda v, c: Box(v, c))
    finally:
        del ept.SUPPORTED_NODES[Box]


def test_namedtuple_helpers():
    assert ept.is_namedtuple(Point) and ept.is_namedtuple_instance(Point(1, 2))
    assert not ept.is_namedtuple_instance((1, 2))
