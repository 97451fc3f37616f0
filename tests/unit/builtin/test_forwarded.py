"""Literals a callee tests a parameter against, offered to its callers: source -> constants."""

from __future__ import annotations

import re
from textwrap import dedent

import pytest

from tddforge.builtin.constants import Constant
from tddforge.builtin.forwarded import (
    PATTERNS,
    forwarded_literals,
    pattern_inputs,
    with_forwarded,
)

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


SRE_YIELD = """
import re

class Sequence:
    def __init__(self, pattern, flags=0):
        self.matcher = re.compile(r"(?:%s)\\Z" % pattern, flags)

def all_strings(regex, flags=0):
    return Sequence(regex, flags)

class Matches(Sequence):
    def group(self):
        return 0

def all_matches(regex):
    return Matches(regex)

def first(text, sep):
    return re.split(sep, text)[0]

def wrapped(x):
    return re.compile(f"^{x}$")

def joined(a, b):
    return re.match("(?:{})|".format(a) + b, "text")

def searched(p, s):
    return PATTERN.search(s) or p
"""


def test_a_parameter_compiled_as_a_regex_is_given_patterns_and_so_are_its_callers() -> None:
    found = {
        scope: [c.value for c in constants]
        for scope, constants in pattern_inputs(SRE_YIELD).items()
    }
    assert found == {
        "Sequence.__init__": list(PATTERNS),
        "all_strings": list(PATTERNS),  # passes ``regex`` on unchanged
        "Matches.__init__": list(PATTERNS),  # its base's constructor
        "all_matches": list(PATTERNS),
        "first": list(PATTERNS),  # ``sep`` is the pattern, ``text`` the string searched
        "wrapped": list(PATTERNS),
        "joined": list(PATTERNS),
    }
    assert {c.kind for found in pattern_inputs(SRE_YIELD).values() for c in found} == {"pattern"}


@pytest.mark.parametrize(
    "source",
    [
        "def f(s):\n    return re.search('a+', s)",  # the string searched, not the pattern
        "def f(s):\n    return PATTERN.match(s)",
        "def f(p):\n    return regex.compile(p)",  # not ``re``
        "class T:\n    def __init__(self):\n        self.re = re.compile(self.pattern)",
        "def f(p):\n    return re.compile(PATTERNS[p])",  # read through, not spliced in
        "def f(:",
    ],
)
def test_no_patterns_where_no_parameter_is_compiled(source: str) -> None:
    assert pattern_inputs(source) == {}


def test_every_pattern_compiles() -> None:
    for pattern in PATTERNS:
        re.compile(pattern)
