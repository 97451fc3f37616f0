"""Options that act together: which pairs of optional parameters are given in one call."""

from __future__ import annotations

import textwrap

import pytest

from tddforge.builtin.explore import Call, plan_calls
from tddforge.builtin.options import option_pairs, with_option_pairs
from tddforge.builtin.search import neighbours
from tests.unit.builtin.test_explore_plan import func, klass, module, param

PAIRS = [
    # tested in one condition
    ("def f(x, a=0, b=None):\n    if a and b is not None:\n        pass", {"f": (("a", "b"),)}),
    # one tested inside the branch of the other
    ("def f(a=0, b=''):\n    if a:\n        if b:\n            pass", {"f": (("a", "b"),)}),
    # a callback called where a depth is compared
    (
        "def f(depth=0, callback=None):\n    while depth > 1:\n        callback(depth)",
        {"f": (("callback", "depth"),)},
    ),
    # a required parameter is no option; options tested apart do not act together
    ("def f(x, a=0):\n    if x and a:\n        pass", {}),
    ("def f(a=0, b=0):\n    if a:\n        pass\n    if b:\n        pass", {}),
    # keyword-only options count
    ("def f(*, a=1, b=2):\n    return 1 if a > b else 2", {"f": (("a", "b"),)}),
    # a method's tests of what the constructor stored count for the constructor
    (
        "class W:\n    def __init__(self, depth=0, callback=None):\n        self.depth = depth\n"
        "        self.callback = callback\n\n    def walk(self, t):\n"
        "        if self.depth and self.callback:\n            return 1",
        {"W.__init__": (("callback", "depth"),)},
    ),
]


@pytest.mark.parametrize(("source", "expected"), PAIRS)
def test_option_pairs(source: str, expected: dict[str, tuple[tuple[str, str], ...]]) -> None:
    assert option_pairs(textwrap.dedent(source)) == expected


def test_option_pairs_of_a_module_that_does_not_parse() -> None:
    assert option_pairs("def f(:\n") == {}


def test_a_pair_is_planned_together_and_met_again_among_neighbours() -> None:
    walk = func(
        "walk",
        param("tree", "dict"),
        param("depth", "int", "0"),
        param("callback", "Callable[[Any], Any]", "None"),
    )
    info = with_option_pairs(module([walk]), {"walk": (("callback", "depth"),)})
    (planned,) = info.functions
    assert planned.together == (("callback", "depth"),)
    calls = plan_calls(info, {}, per_param=3)
    together = [c for c in calls if len(c.kwargs) == 2]
    assert together == [  # keywords in the signature's order
        Call("walk", ("{}",), (("depth", "1"), ("callback", "str"))),
        Call("walk", ("{}",), (("depth", "-1"), ("callback", "str"))),
        Call("walk", ("{}",), (("depth", "1"), ("callback", "lambda x: x"))),
        Call("walk", ("{}",), (("depth", "-1"), ("callback", "lambda x: x"))),
    ]
    options = {"depth": ["0", "1", "2"], "callback": ["None", "len"]}
    near = neighbours(Call("walk", ("{}",)), planned, options)
    assert Call("walk", ("{}",), (("callback", "len"), ("depth", "1"))) in near
    assert Call("walk", ("{}",), (("callback", "None"), ("depth", "0"))) not in near  # defaults


def test_a_pair_needs_both_parameters_by_keyword() -> None:
    only = func(
        "f",
        param("a", "int", "0", kind="positional_only"),
        param("b", "int", "0"),
    )
    info = with_option_pairs(module([only]), {"f": (("a", "b"),), "g": (("x", "y"),)})
    assert info.functions[0].together == ()
    ctor = func("W", param("depth", "int", "0"), param("cb", None, "None"), kind="constructor")
    built = with_option_pairs(module([], [klass("W", ctor)]), {"W.__init__": (("cb", "depth"),)})
    assert built.classes[0].constructor is not None
    assert built.classes[0].constructor.together == (("cb", "depth"),)
