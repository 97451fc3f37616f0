"""Strings a regular expression matches, to use as inputs for code that checks one.

``example_for(r"^[A-Z]{4}-\\d{2}$")`` is ``"AAAA-00"``. Pure and deterministic: the
pattern is parsed with the ``re`` module's own parser and walked, taking the
first choice everywhere (first branch, first character of a class, the minimum
repeat but at least one). Lookarounds are skipped, or their text added when
skipping fails. Every result is checked with ``re`` (a full match preferred, a
match somewhere accepted); anything unsupported, invalid or unverified gives None.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from typing import Any

# the parser is private: re._parser since 3.11, sre_parse (deprecated there) before
_parser: Any = importlib.import_module("re._parser" if sys.version_info >= (3, 11) else "sre_parse")
MAX_LENGTH = 200  # longer examples are not useful inputs
_CATEGORIES = {  # a category's example character, and the pattern to test one with
    "CATEGORY_DIGIT": ("0", r"\d"),
    "CATEGORY_NOT_DIGIT": ("a", r"\D"),
    "CATEGORY_WORD": ("a", r"\w"),
    "CATEGORY_NOT_WORD": ("-", r"\W"),
    "CATEGORY_SPACE": (" ", r"\s"),
    "CATEGORY_NOT_SPACE": ("a", r"\S"),
}
_CANDIDATES = "aA0_ -.x@Z9!#~é"  # tried in turn for a negated class


class _Unsupported(Exception):
    """A construct the walk cannot build text for."""


class _Builder:
    """Text for a parsed pattern: ``extra`` more repeats, the ``branch``-th alternative."""

    def __init__(self, *, extra: int = 0, branch: int = 0, lookarounds: bool = False) -> None:
        self.extra, self.branch, self.lookarounds = extra, branch, lookarounds
        self.groups: dict[int, str] = {}

    def build(self, items: Any) -> str:
        text = "".join(self._item(op.name, av) for op, av in items)
        if len(text) > MAX_LENGTH:
            raise _Unsupported("too long")
        return text

    _op_atomic_group = build

    def _item(self, name: str, av: Any) -> str:
        handler = getattr(self, f"_op_{name.lower()}", None)
        if handler is None:
            raise _Unsupported(name)
        return str(handler(av))

    def _op_literal(self, av: int) -> str:
        return chr(av)

    def _op_not_literal(self, av: int) -> str:
        return "b" if chr(av) == "a" else "a"

    def _op_any(self, av: None) -> str:
        return "a"

    def _op_at(self, av: Any) -> str:  # ^ $ \b \A \Z, and (?!...) (?<!...): no text
        return ""

    _op_assert_not = _op_at

    def _op_in(self, items: list[tuple[Any, Any]]) -> str:
        if items[0][0].name == "NEGATE":
            return _outside(items[1:])
        name, av = items[0][0].name, items[0][1]
        if name == "CATEGORY":
            return _CATEGORIES[av.name][0]
        return chr(av[0]) if name == "RANGE" else self._item(name, av)

    def _op_max_repeat(self, av: tuple[int, int, Any]) -> str:
        low, high, items = av
        count = min(max(low, min(1, high)) + self.extra, high)
        if count > MAX_LENGTH:
            raise _Unsupported("too many repeats")
        return "".join(self.build(items) for _ in range(count))

    _op_min_repeat = _op_possessive_repeat = _op_max_repeat

    def _op_subpattern(self, av: tuple[int | None, int, int, Any]) -> str:
        group, text = av[0], self.build(av[-1])
        if group is not None:
            self.groups[group] = text
        return text

    def _op_branch(self, av: tuple[None, list[Any]]) -> str:
        branches = av[1]
        return self.build(branches[min(self.branch, len(branches) - 1)])

    def _op_groupref(self, group: int) -> str:
        if group not in self.groups:
            raise _Unsupported("reference to an unset group")
        return self.groups[group]

    def _op_groupref_exists(self, av: tuple[int, Any, Any]) -> str:
        chosen = av[1] if av[0] in self.groups else av[2]
        return "" if chosen is None else self.build(chosen)

    def _op_assert(self, av: tuple[int, Any]) -> str:
        return self.build(av[1]) if self.lookarounds else ""


def _outside(items: list[tuple[Any, Any]]) -> str:
    """A character that none of a negated class's items stands for."""
    for char in _CANDIDATES:
        if not any(_in_item(char, op.name, av) for op, av in items):
            return char
    raise _Unsupported("no candidate outside the class")


def _in_item(char: str, name: str, av: Any) -> bool:
    """Whether ``char`` is what one item of a character class stands for."""
    if name == "LITERAL":
        return char == chr(av)
    if name == "RANGE":
        return bool(av[0] <= ord(char) <= av[1])
    if name == "CATEGORY":
        return re.fullmatch(_CATEGORIES[av.name][1], char) is not None
    raise _Unsupported(name)


def _texts(parsed: Any) -> Iterator[str]:
    """Texts built for ``parsed`` by each variant of the walk, first choices first."""
    for variant in ({}, {"extra": 1}, {"branch": 1}):
        for lookarounds in (False, True):
            try:
                text = _Builder(**variant, lookarounds=lookarounds).build(parsed)
            except Exception:  # unsupported, or a surprise in a private parser: no text
                continue
            yield text


def examples_for(pattern: str, limit: int = 3) -> list[str]:
    """Up to ``limit`` different strings ``pattern`` matches: full matches first, then
    strings it finds a match in. Empty for an invalid, bytes or unsupported pattern."""
    if not isinstance(pattern, str):
        return []
    try:
        compiled = re.compile(pattern)
        texts = list(dict.fromkeys(_texts(_parser.parse(pattern))))
    except Exception:  # invalid pattern (re.error), or a surprise in a private parser
        return []
    full = [text for text in texts if compiled.fullmatch(text)]
    found = [text for text in texts if text not in full and compiled.search(text)]
    return (full + found)[:limit]


def example_for(pattern: str) -> str | None:
    """A short string ``pattern`` matches (fully if possible), or None when none is found."""
    examples = examples_for(pattern, limit=1)
    return examples[0] if examples else None
