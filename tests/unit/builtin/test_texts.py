"""Structured texts composed from what a module's parsing code compares, splits and indents."""

from __future__ import annotations

import pytest

from tddforge.builtin.constants import Constant, with_texts
from tddforge.builtin.texts import composed_texts

SECTIONS = """
def parse(text):
    lines = text.splitlines()
    if not lines or lines[0] != "Args:":
        return None
    for line in lines[1:]:
        if line.startswith("    ") and ":" in line:
            name, _, about = line.strip().partition(":")
"""
UNDERLINED = """
def sections(doc):
    for title, rule in zip(doc.split("\\n"), doc.split("\\n")[1:]):
        if rule.startswith("---") and title in ("Parameters", "Returns"):
            yield title
"""
KEY_VALUE = """
class Config:
    def load(self, text):
        for line in text.splitlines():
            key, _, value = line.partition("=")
"""
NOT_TEXT = """
def add(a, b):
    if a == "x":
        return b
"""

CASES = [
    ("a header with indented entries", SECTIONS, "parse", "Args:\n    name: value"),
    ("two entries", SECTIONS, "parse", "Args:\n    name: value\n    other: more"),
    (
        "after a summary and a blank line",
        SECTIONS,
        "parse",
        "Summary line.\n\nArgs:\n    name: value",
    ),
    ("an underlined header", UNDERLINED, "sections", "Title\n---\nname: value"),
    ("a word also with a colon", UNDERLINED, "sections", "Parameters:\n    name: value"),
    (
        "two sections",
        UNDERLINED,
        "sections",
        "Parameters\n    name: value\n\nReturns\n    other: more",
    ),
    ("a method, split on '='", KEY_VALUE, "Config.load", "Section:\n    name= value"),
]


@pytest.mark.parametrize(("case", "source", "scope", "text"), CASES, ids=[c[0] for c in CASES])
def test_composed_texts(case: str, source: str, scope: str, text: str) -> None:
    assert text in composed_texts(source)[scope]


def test_code_that_does_not_work_on_lines_gets_none() -> None:
    assert composed_texts(NOT_TEXT) == {}
    assert composed_texts("def broken(:\n") == {}


def test_a_few_texts_come_before_the_scopes_constants_the_rest_after() -> None:
    mined = {"parse": (Constant("Args:", "compare"),)}
    texts = {"parse": tuple(f"t{i}" for i in range(6))}
    merged = with_texts(mined, texts)["parse"]
    assert [c.value for c in merged] == ["t0", "t1", "t2", "t3", "Args:", "t4", "t5"]
    assert {c.kind for c in merged if c.value != "Args:"} == {"text"}


def test_strings_the_modules_regexes_match_become_lines() -> None:
    source = """
import re
ENTRY = re.compile(r"^(\\w+) \\((\\w+)\\): (.*)$")

def parse(doc):
    for line in doc.splitlines():
        if line.startswith("Args"):
            pass
"""
    texts = composed_texts(source, {"<module>": ["x (int): the x", "y (str): the y"]})["parse"]
    assert "x (int): the x\ny (str): the y" in texts
    assert "Args\n    x (int): the x" in texts
