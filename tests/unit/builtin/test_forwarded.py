"""Literals a callee tests a parameter against, offered to its callers: source -> constants."""

from __future__ import annotations

from textwrap import dedent

import pytest

from tddforge.builtin.constants import Constant
from tddforge.builtin.forwarded import forwarded_literals, with_forwarded

PYPINYIN = """
class Converter:
    def convert(self, words, errors):
        return self.handle(words, errors=errors)

    def handle(self, chars, errors):
        return self._nopinyin(chars, errors=errors)

    def _nopinyin(self, chars, errors):
        if callable(errors):
            return errors(chars)
        if errors == 'default':
            return chars
        elif errors == 'ignore':
            return None
        elif errors in ('exception', 'replace'):
            raise ValueError(chars)
"""


def _values(source: str) -> dict[str, list[object]]:
    return {
        scope: [c.value for c in found]
        for scope, found in forwarded_literals(dedent(source)).items()
    }


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # a chain of methods on self, passed on by keyword: every link gets the modes
        (
            PYPINYIN,
            {
                "Converter.handle": ["default", "ignore", "exception", "replace"],
                "Converter.convert": ["default", "ignore", "exception", "replace"],
            },
        ),
        # a function of the module, by position; numbers and reversed comparisons count
        (
            "def f(a, b):\n    return g(b, a)\ndef g(x, y):\n    return 3 == x or y != 'on'",
            {"f": [3, "on"]},
        ),
        # a class: its __init__'s parameters
        (
            "class Box:\n    def __init__(self, mode):\n        self.fast = mode == 'fast'\n"
            "def make(mode):\n    return Box(mode)",
            {"make": ["fast"]},
        ),
        # changed before it is passed on: not the caller's value any more
        ("def f(a):\n    return g(a.lower())\ndef g(x):\n    return x == 'a'", {}),
        # a local that shadows nothing of the caller's parameters
        ("def f(a):\n    b = 1\n    return g(b)\ndef g(x):\n    return x == 'a'", {}),
        # compared with what is not a literal, or with None or a bool: nothing
        ("def f(a):\n    return g(a)\ndef g(x):\n    return x is None or x == True", {}),
        # a call to something outside the module
        ("def f(a):\n    return other.g(a)", {}),
        # recursion does not loop, and the caller's own comparisons stay its own
        ("def f(a):\n    return a == 'x' or f(a)", {}),
        ("not python(", {}),
    ],
)
def test_forwarded_literals(source: str, expected: dict[str, list[object]]) -> None:
    assert _values(source) == expected


def test_the_callers_own_constants_come_first_and_none_twice() -> None:
    mined = {"f": (Constant("on", "compare"), Constant(1, "number"))}
    handed = {"f": (Constant("on", "compare"), Constant("off", "compare")), "g": ()}
    merged = with_forwarded(mined, handed)
    assert [c.value for c in merged["f"]] == ["on", 1, "off"]
    assert merged["g"] == ()
