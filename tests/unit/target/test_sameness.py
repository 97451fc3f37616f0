"""Whether two values a module made can be told apart by code reading them (pure)."""

from __future__ import annotations

import inspect
import re
from typing import Any

import pytest

from tddforge.target.sameness import same


def _made(source: str, namespace: dict[str, Any] | None = None) -> Any:
    """What running ``source`` binds to ``value`` (in ``namespace``, as ``rebind`` runs a
    module again in its own; else in a new one)."""
    namespace = {} if namespace is None else namespace
    exec(compile(source, "<table>", "exec"), namespace)
    return namespace["value"]


SIG = "import inspect\nvalue = inspect.signature(lambda x, base={}: None)\n"


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (1, 1, True),
        (1, 1.0, False),  # another type
        (True, 1, False),
        (0.0, -0.0, False),
        (float("nan"), float("nan"), False),  # unsure: different
        ("a", "a", True),
        ((1, [2, "x"]), (1, [2, "x"]), True),
        ((1, [2, "x"]), (1, [2, "y"]), False),
        ([1, 2], [1, 2, 3], False),
        ({"a": 1, "b": 2}, {"a": 1, "b": 2}, True),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, False),  # iteration order differs
        ({"a": 1}, {"a": 2}, False),
        (frozenset({1, 2}), frozenset({2, 1}), True),
        ({len}, {len}, False),  # a set of objects: compared by identity only
        (re.compile("a+", re.I), re.compile("a+", re.I), True),
        (re.compile("a+"), re.compile("a*"), False),
        (object(), object(), False),  # unknown: different
        (len, len, True),  # the same object
    ],
)
def test_plain_values_and_containers(a: Any, b: Any, expected: bool) -> None:
    assert same(a, b) is expected


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("value = lambda x: None\n", "value = lambda x: None\n", True),
        ("value = lambda x: None\n", "\n\nvalue = lambda x: None\n", True),  # moved down
        ("value = lambda x=False: None\n", "value = lambda x=True: None\n", False),
        ("value = lambda x=0: None\n", "value = lambda x=False: None\n", False),
        ("value = lambda x: None\n", "value = lambda y: None\n", False),
        ("value = lambda x: x + 1\n", "value = lambda x: x - 1\n", False),
        ("value = lambda *, k=1: None\n", "value = lambda *, k=2: None\n", False),
        ("value = lambda x: (lambda: x)\n", "value = lambda x: (lambda: x)\n", True),
        ("value = lambda x: (lambda: 1)\n", "value = lambda x: (lambda: 2)\n", False),
        ("value = [(0, lambda a: None, ())]\n", "value = [(0, lambda a: None, ())]\n", True),
        ("value = [(0, lambda a: None, ())]\n", "value = [(1, lambda a: None, ())]\n", False),
        (SIG.format(10), SIG.format(10), True),
        (SIG.format(10), SIG.format(11), False),
        (SIG.format(0), SIG.format(False), False),  # 0 == False, but not the same default
        ("value = 'ab'.upper\n", "value = 'ab'.upper\n", False),  # a bound method: unsure
    ],
)
def test_what_running_a_module_again_makes(first: str, second: str, expected: bool) -> None:
    module: dict[str, Any] = {}
    assert same(_made(first, module), _made(second, module)) is expected


def test_a_closure_is_never_the_same_as_another() -> None:
    make = "def outer(n):\n    return lambda: n\n\nvalue = outer(1)\n"
    module: dict[str, Any] = {}
    assert not same(_made(make, module), _made(make, module))


def test_functions_of_different_modules_differ() -> None:
    a, b = _made("value = lambda: 1\n"), _made("value = lambda: 1\n")
    assert a.__globals__ is not b.__globals__
    assert not same(a, b)
    module: dict[str, Any] = {}
    assert same(_made("value = lambda: 1\n", module), _made("value = lambda: 1\n", module))


def test_a_cycle_ends_as_different() -> None:
    a: list[Any] = []
    a.append(a)
    b: list[Any] = []
    b.append(b)
    assert not same(a, b)


def test_parameters_compare_kind_and_annotation() -> None:
    def f(x: int, /) -> None: ...

    def g(x: int) -> None: ...

    def h(x: str, /) -> None: ...

    pf, pg, ph = (list(inspect.signature(fn).parameters.values()) for fn in (f, g, h))
    assert same(pf, pf)
    assert not same(pf, pg)  # positional-only against not
    assert not same(pf, ph)  # another annotation
