"""Regex examples: pattern → a string it matches, as a table, each checked with ``re``."""

from __future__ import annotations

import re
from typing import cast

import pytest

from tddforge.builtin.regex_example import example_for, examples_for

FULL = [  # (pattern, the example): the pattern matches all of it
    pytest.param(r"^[A-Z]{4}-\d{2}$", "AAAA-00", id="coupon-anchors-ranges-counts"),
    pytest.param(r"[\w.]+@\w+\.com", "a@a.com", id="email-like-classes-and-escapes"),
    pytest.param(r"(cat|dog)s?", "cats", id="alternation-first-branch-optional-once"),
    pytest.param(r"\bE\d{3}\b", "E000", id="word-boundaries"),
    pytest.param(r"(a)\1", "aa", id="backreference"),
    pytest.param(r"(?P<q>['\"]).*?(?P=q)", "'a'", id="named-backreference-lazy-repeat"),
    pytest.param(r"[^0-9]+", "a", id="negated-class"),
    pytest.param(r"[^\w\s]", "-", id="negated-class-of-categories"),
    pytest.param(r"(?i)abc", "abc", id="ignorecase-inline"),
    pytest.param(r"(?i:x)Y", "xY", id="ignorecase-scoped"),
    pytest.param(r"(?!_)\w+", "a", id="negative-lookahead-skipped"),
    pytest.param(r"(?=.*\d)\w+", "a0a", id="positive-lookahead-text-added"),
    pytest.param(r"(<)?\w+(?(1)>)", "<a>", id="conditional-group"),
    pytest.param(r"[-+]?\d+(?:\.\d+)?", "-0.0", id="number-optional-parts-once"),
    pytest.param(r"a{0}b.", "ba", id="zero-repeat-and-dot"),
    pytest.param(r"(?x) a b  # comment", "ab", id="verbose-inline"),
    pytest.param(r"^$", "", id="empty"),
]


@pytest.mark.parametrize(("pattern", "expected"), FULL)
def test_example_for_fully_matches(pattern: str, expected: str) -> None:
    assert example_for(pattern) == expected
    assert re.fullmatch(pattern, expected)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        pytest.param(r"\d+(?=px)", "0px", id="lookahead-past-the-match"),
        pytest.param(r"(?<=\$)\d+", "$0", id="lookbehind-before-the-match"),
    ],
)
def test_example_for_falls_back_to_a_string_with_a_match(pattern: str, expected: str) -> None:
    assert example_for(pattern) == expected
    assert re.search(pattern, expected)
    assert not re.fullmatch(pattern, expected)


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param("(", id="invalid"),
        pytest.param(r"(?i)[^a-z]", id="unverified-negated-class-under-ignorecase"),
        pytest.param(r"\Bx", id="unmatchable-construction"),
        pytest.param(r"a{500}", id="too-long"),
        pytest.param(r"[^\x00-\U0010ffff]", id="class-excluding-everything"),
    ],
)
def test_example_for_gives_none_when_it_has_no_example(pattern: str) -> None:
    assert example_for(pattern) is None
    assert examples_for(pattern) == []


def test_bytes_patterns_are_out_of_scope() -> None:
    assert example_for(cast(str, rb"\d+")) is None


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        pytest.param(r"(cat|dog)s?", ["cats", "dogs"], id="second-branch"),
        pytest.param(r"[\w.]+@\w+\.com", ["a@a.com", "aa@aa.com"], id="one-more-repeat"),
        pytest.param(r"^[A-Z]{4}-\d{2}$", ["AAAA-00"], id="fixed-counts-one-example"),
        pytest.param(r"cat|dog|cow", ["cat", "dog"], id="at-most-the-second-branch"),
    ],
)
def test_examples_for_gives_different_matching_strings(pattern: str, expected: list[str]) -> None:
    assert examples_for(pattern) == expected
    assert all(re.fullmatch(pattern, text) for text in expected)
    assert examples_for(pattern, limit=1) == expected[:1]
