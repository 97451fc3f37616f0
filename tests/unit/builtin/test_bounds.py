"""What bounds a function's loops, and the calls that give it small values."""

from __future__ import annotations

import pytest

from tddforge.builtin.bounds import bounded, loop_bounds
from tddforge.builtin.discover import CallableInfo, Param
from tddforge.builtin.explore import Call, CallResult, Outcome

CASES = [
    ("a while over a parameter", "def f(n):\n    while n:\n        n -= 1\n", {"f": {"n"}}),
    (
        "through a tuple assignment and a call of the module's own function",
        "def _inner(f, tries=-1):\n    _tries, _delay = tries, 0\n    while _tries:\n"
        "        _tries -= 1\n\n"
        "def outer(f, tries=-1):\n    return _inner(f, tries)\n\n"
        "def by_name(f, limit):\n    return _inner(f, tries=limit - 1)\n",
        {"_inner": {"tries"}, "outer": {"tries"}, "by_name": {"limit"}},
    ),
    (
        "the arguments of a range, in a method",
        "class Q:\n    def drain(self, limit, step=1):\n        for i in range(0, limit, step):\n"
        "            pass\n",
        {"Q.drain": {"limit", "step"}},
    ),
    (
        "a for over anything else, and a while over a local, bound nothing",
        "def f(items, n):\n    for x in items:\n        pass\n    i = 0\n    while i < 3:\n"
        "        i += 1\n",
        {},
    ),
    ("a syntax error gives nothing", "def f(:\n", {}),
]


@pytest.mark.parametrize(("case", "source", "expected"), CASES, ids=[c[0] for c in CASES])
def test_loop_bounds(case: str, source: str, expected: dict[str, set[str]]) -> None:
    assert loop_bounds(source) == {k: frozenset(v) for k, v in expected.items()}


def _param(name: str, kind: str = "positional_or_keyword", default: str | None = None) -> Param:
    return Param(
        name=name,
        kind=kind,  # type: ignore[arg-type]
        annotation=None,
        has_default=default is not None,
        default=default,
        default_is_literal=default is not None,
    )


RETRY = CallableInfo(
    name="retry_call",
    qualname="retry_call",
    kind="function",
    parameters=(_param("f"), _param("tries", default="-1"), _param("delay", default="0")),
    returns=None,
    docstring=None,
    doctests=(),
    is_async=False,
    is_generator=False,
    lines=None,
)


def _result(call: Call, kind: str) -> CallResult:
    return CallResult(call, frozenset(), Outcome(kind), kind != "timeout")


def test_a_call_that_timed_out_gets_its_loop_bounds_set_small() -> None:
    stuck = [
        _result(Call("retry_call", ("len",)), "timeout"),
        _result(Call("retry_call", ("str",)), "return"),  # it ended: nothing to bound
        _result(Call("retry_call", ("max", "-1")), "timeout"),
        _result(Call("other", ("max",)), "timeout"),  # not a function the search knows
    ]
    found = bounded(stuck, {"retry_call": RETRY}, {"retry_call": frozenset({"tries"})})
    assert found == [
        Call("retry_call", ("len",), (("tries", "1"),)),
        Call("retry_call", ("len",), (("tries", "2"),)),
        Call("retry_call", ("max", "1")),
        Call("retry_call", ("max", "2")),
    ]
    assert bounded(stuck, {"retry_call": RETRY}, {}) == []
