"""Find the tests a file defines without running it (pytest's naming rules, statically).

Used when a file cannot be collected (its module-level import of the unit under
test fails) to still name the tests it holds, and to trace tests back to spec
cases through their names, docstrings and the comments just above them.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class TestDef:
    """One test function as written: its pytest node id and the text that describes it."""

    __test__ = False

    nodeid: str
    text: str


def list_tests(path: str, source: str) -> list[TestDef]:
    """Tests in ``source`` (file ``path``): ``test_*`` functions and ``Test*`` class methods."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return _list_tests_by_lines(path, source)
    lines = source.splitlines()
    found: list[TestDef] = []
    for node in tree.body:
        if _is_test_function(node):
            found.append(_describe(path, "", node, lines))  # type: ignore[arg-type]
        elif isinstance(node, ast.ClassDef) and is_test_class(node):
            prefix = _class_text(node, lines)
            for item in node.body:
                if _is_test_function(item):
                    test = _describe(path, node.name, item, lines)  # type: ignore[arg-type]
                    found.append(TestDef(test.nodeid, f"{prefix}\n{test.text}"))
    return found


def is_test_class(node: ast.ClassDef) -> bool:
    """pytest collects ``Test*`` classes, and ``unittest.TestCase`` subclasses under any name.

    The base is recognised by name (``TestCase``, ``unittest.TestCase``,
    ``SimpleTestCase``...), since nothing is imported to check it.
    """
    if node.name.startswith("Test"):
        return True
    for base in node.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name.endswith("TestCase"):
            return True
    return False


def _is_test_function(node: ast.stmt) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
        "test"
    )


def _describe(
    path: str, cls: str, node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]
) -> TestDef:
    nodeid = f"{path}::{cls}::{node.name}" if cls else f"{path}::{node.name}"
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    parts = [node.name, ast.get_docstring(node) or "", *_comments_above(lines, first)]
    return TestDef(nodeid, "\n".join(p for p in parts if p))


def _class_text(node: ast.ClassDef, lines: list[str]) -> str:
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return "\n".join([node.name, ast.get_docstring(node) or "", *_comments_above(lines, first)])


def _comments_above(lines: list[str], lineno: int) -> list[str]:
    """The run of comment lines ending just above 1-based ``lineno``."""
    found: list[str] = []
    i = lineno - 2
    while i >= 0 and lines[i].strip().startswith("#"):
        found.append(lines[i].strip())
        i -= 1
    return found[::-1]


_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+(test\w*)\s*\(|^class\s+(Test\w*)")


def _list_tests_by_lines(path: str, source: str) -> list[TestDef]:
    """Best effort for a file that does not parse: names from ``def test...`` lines."""
    lines = source.splitlines()
    found: list[TestDef] = []
    cls = ""
    for number, line in enumerate(lines, start=1):
        match = _DEF.match(line)
        if match is None:
            continue
        if match.group(3):
            cls = match.group(3)
            continue
        owner = cls if match.group(1) else ""
        if not match.group(1):
            cls = ""
        nodeid = f"{path}::{owner}::{match.group(2)}" if owner else f"{path}::{match.group(2)}"
        found.append(TestDef(nodeid, "\n".join([match.group(2), *_comments_above(lines, number)])))
    return found
