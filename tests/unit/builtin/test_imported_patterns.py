"""Regexes a module takes from a sibling module: sources -> constants of the scopes using them."""

from __future__ import annotations

import re
from textwrap import dedent

import pytest

from tddforge.builtin.imported_patterns import imported_patterns

CONSTANTS = r"""
import re
import sys

if sys.maxunicode > 0xFFFF:
    RE_HANS = re.compile(r'^(?:[\u3007\u4e00-\u9fff])+$')
else:
    RE_HANS = re.compile(r'^(?:[\u4e00-\u9fff])+$')
try:
    WORD = re.compile('[a-z]+-[0-9]{2}', re.I)
except ImportError:
    WORD = None
PLAIN = '[a-z]+'
BROKEN = re.compile('(')
"""


def _sibling(name: str) -> str | None:
    return CONSTANTS if name == "constants" else None


def _found(source: str, package: str = "pkg") -> dict[str, list[tuple[str, str]]]:
    found = imported_patterns(dedent(source), _sibling, package)
    return {scope: [(c.kind, c.value) for c in values] for scope, values in found.items()}


HANS = r"^(?:[\u3007\u4e00-\u9fff])+$"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # from the sibling by name, absolute with the package spelled out: the first
        # definition (under an if), and a string it matches
        (
            "from pkg.constants import RE_HANS\n"
            "class C:\n    def convert(self, words):\n        return RE_HANS.match(words)",
            {"C.convert": [("regex", HANS), ("regex_match", "\u3007")]},
        ),
        # relative, renamed, in a try block, with flags; used at module level
        (
            "from .constants import WORD as W\nOK = W.fullmatch('ab-12')",
            {"<module>": [("regex", "[a-z]+-[0-9]{2}"), ("regex_match", "a-00")]},
        ),
        # the sibling module itself imported: its attribute
        (
            "from . import constants\ndef f(s):\n    return constants.WORD.sub('', s)",
            {"f": [("regex", "[a-z]+-[0-9]{2}"), ("regex_match", "a-00")]},
        ),
        # a pattern no string can be made for: the pattern alone
        (
            "from .constants import BROKEN\ndef f(s):\n    return BROKEN.search(s)",
            {"f": [("regex", "(")]},
        ),
        # a plain string, an unused pattern, a method that is not a regex's, another package
        ("from .constants import PLAIN\ndef f(s):\n    return PLAIN.split(s)", {}),
        ("from .constants import RE_HANS\ndef f(s):\n    return s", {}),
        ("from .constants import RE_HANS\ndef f(s):\n    return RE_HANS.pattern", {}),
        ("from other.constants import RE_HANS\ndef f(s):\n    return RE_HANS.match(s)", {}),
        ("from .missing import X\ndef f(s):\n    return X.match(s)", {}),
        ("def f(s:\n", {}),
    ],
)
def test_imported_patterns(source: str, expected: dict[str, list[tuple[str, str]]]) -> None:
    assert _found(source) == expected


def test_each_example_is_matched_by_its_pattern() -> None:
    found = _found("from pkg.constants import RE_HANS\ndef f(s):\n    return RE_HANS.match(s)")
    (_, pattern), (_, example) = found["f"]
    assert re.fullmatch(pattern, example)
