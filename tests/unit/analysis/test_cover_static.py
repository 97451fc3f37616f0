"""Static checks of generated tests: smells, ruff, syntax; framework and layout detection."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.analysis.project import (
    choose_framework,
    classify_test_source,
    default_test_path,
    detect_framework,
    import_name,
)
from tddforge.analysis.smells import defined_names, find_smells
from tddforge.analysis.static import analyze, check_syntax, drop_unused_imports

MODULE = "import requests\n\ndef fetch(u):\n    return requests.get(u)\n\nclass Cart:\n    pass\n"
NAMES = defined_names(MODULE)


@pytest.mark.parametrize(
    ("test", "kinds"),
    [
        ("def test_a():\n    assert fetch(1) == 2\n", []),
        ("def test_a():\n    fetch(1)\n", ["no_assertion"]),
        ("def test_a():\n    assert True\n", ["tautology"]),
        ("def test_a():\n    x = fetch(1)\n    assert x == x\n", ["tautology"]),
        ("def test_a():\n    assert 1 == 1\n", ["tautology"]),
        ("def test_a():\n    assert fetch(1) is not None\n", []),
        (
            "import pytest\ndef test_a():\n    with pytest.raises(ValueError):\n        fetch(1)\n",
            [],
        ),
        ("def test_a(m):\n    fetch(1)\n    m.assert_called_once_with(1)\n", []),
        (
            "class T:\n    def test_a(self):\n        self.assertEqual(fetch(1), fetch(1))\n",
            ["tautology"],
        ),
        ("class T:\n    def test_a(self):\n        self.assertTrue(True)\n", ["tautology"]),
        ("class T:\n    def test_a(self):\n        self.assertFalse(False)\n", ["tautology"]),
        ("class T:\n    def test_a(self):\n        self.assertEqual(fetch(1), 2)\n", []),
        (
            "from unittest.mock import patch\n@patch('shop.fetch')\ndef test_a(m):\n    assert fetch(1)\n",
            ["mocks_unit_under_test"],
        ),
        (
            "from unittest.mock import patch\ndef test_a():\n    with patch('shop.requests'):\n        assert fetch(1)\n",
            [],
        ),  # patching a dependency is fine
        (
            "import shop\nfrom unittest import mock\ndef test_a():\n    with mock.patch.object(shop, 'Cart'):\n        assert shop.fetch(1)\n",
            ["mocks_unit_under_test"],
        ),
        ("def helper():\n    pass\n", []),
        ("def test_a(:\n", []),
        # asserting through a helper of the same file is asserting
        (
            "def _assert_ordering(a, b):\n    assert a < b\n"
            "def test_a():\n    _assert_ordering(fetch(1), fetch(2))\n",
            [],
        ),
        (  # through two helpers
            "def _check(x):\n    _really(x)\ndef _really(x):\n    assert x\n"
            "def test_a():\n    _check(fetch(1))\n",
            [],
        ),
        (  # a method of the test's class, or of its base class in the file
            "import unittest\nclass Base(unittest.TestCase):\n"
            "    def check(self, x):\n        self.assertEqual(x, 2)\n"
            "class T(Base):\n    def test_a(self):\n        self.check(fetch(1))\n",
            [],
        ),
        (  # an expected-error block in a helper
            "import pytest\ndef _fails(x):\n    with pytest.raises(KeyError):\n        fetch(x)\n"
            "def test_a():\n    _fails(1)\n",
            [],
        ),
        (  # a helper that checks nothing is no assertion
            "def _run(x):\n    return fetch(x)\ndef test_a():\n    _run(1)\n",
            ["no_assertion"],
        ),
        (  # recursion ends
            "def _a(x):\n    return _a(x)\ndef test_a():\n    _a(1)\n",
            ["no_assertion"],
        ),
        (  # another class's method of the same name is not the one called on self
            "class Other:\n    def check(self):\n        assert 1 < 2\n"
            "class T:\n    def check(self):\n        pass\n"
            "    def test_a(self):\n        self.check()\n",
            ["no_assertion"],
        ),
    ],
)
def test_smells(test: str, kinds: list[str]) -> None:
    assert sorted(s.kind for s in find_smells(test, "shop", NAMES)) == sorted(kinds)


def test_syntax_check() -> None:
    assert check_syntax("x = 1\n") is None
    assert check_syntax("def f(:\n") == "line 1: invalid syntax"
    # nested past the parser (MemoryError); a long chain is past 3.11's recursion limit
    # for the AST (RecursionError) and parses on 3.10: never an exception either way
    assert check_syntax("x = " + "-" * 10000 + "1\n") == "too complex to parse (MemoryError)"
    chain = "x = " + "+".join(["1"] * 100000) + "\n"
    assert check_syntax(chain) in (None, "too complex to parse (RecursionError)")


def test_analyze_reports_ruff_issues_and_complexity(tmp_path: Path) -> None:
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(12))
    source = f"import os\n\n\ndef test_a():\n    x = 1\n{branches}    assert x\n"
    report = analyze(
        source,
        "tests/test_x.py",
        module_name="shop",
        module_source=MODULE,
        project=tmp_path,
        mypy=False,
    )
    codes = {i.code for i in report.lint}
    assert {"F401", "C901"} <= codes
    assert report.complexity and report.lint_issue_count == len(report.lint)


def test_analyze_stops_at_a_syntax_error(tmp_path: Path) -> None:
    report = analyze("def test_a(:\n", "t.py", module_name="m", module_source="", project=tmp_path)
    assert not report.syntax_ok and report.syntax_error and report.lint == ()


def test_analyze_with_mypy_finds_type_errors(tmp_path: Path) -> None:
    source = "def test_a() -> None:\n    x: int = 'a'\n    assert x\n"
    report = analyze(source, "t.py", module_name="m", module_source="", project=tmp_path, mypy=True)
    assert [i.code for i in report.types] == ["assignment"]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("import unittest\nclass ATest(unittest.TestCase):\n    pass\n", "unittest"),
        ("from django.test import SimpleTestCase\n", "django"),
        ("import pytest\n", "pytest"),
        ("def test_x():\n    assert 1\n", "pytest"),
        ("x = 1\n", None),
    ],
)
def test_classify_test_source(text: str, kind: str | None) -> None:
    assert classify_test_source(text) == kind


@pytest.mark.parametrize(
    ("kinds", "framework"),
    [
        ([], "pytest"),
        ([None], "pytest"),
        (["unittest", "unittest"], "unittest"),
        (["unittest", "pytest"], "pytest"),
        (["unittest", "django"], "django"),
        (["unittest", None], "unittest"),
    ],
)
def test_choose_framework(kinds: list[str | None], framework: str) -> None:
    assert choose_framework(kinds) == framework


def test_detect_framework_skips_venvs_and_our_output(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        "import unittest\nclass A(unittest.TestCase):\n    pass\n"
    )
    (tmp_path / ".venv" / "lib").mkdir(parents=True)
    (tmp_path / ".venv" / "lib" / "test_v.py").write_text("import pytest\n")
    ours = tmp_path / "tests" / "test_m_tddforge.py"
    ours.write_text("import pytest\n")
    assert detect_framework(tmp_path, exclude=ours) == "unittest"
    assert detect_framework(tmp_path) == "pytest"


@pytest.mark.parametrize(
    ("files", "module", "name"),
    [
        (["m.py"], "m.py", "m"),
        (["pkg/__init__.py", "pkg/sub/mod.py"], "pkg/sub/mod.py", "pkg.sub.mod"),
        (["src/pkg/__init__.py", "src/pkg/mod.py"], "src/pkg/mod.py", "pkg.mod"),
        (["src/pkg/__init__.py"], "src/pkg/__init__.py", "pkg"),
    ],
)
def test_import_name(tmp_path: Path, files: list[str], module: str, name: str) -> None:
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert import_name(tmp_path, tmp_path / module) == name


def test_default_test_path(tmp_path: Path) -> None:
    assert default_test_path(tmp_path, tmp_path / "m.py") == "test_m_tddforge.py"
    (tmp_path / "tests").mkdir()
    assert default_test_path(tmp_path, tmp_path / "m.py") == "tests/test_m_tddforge.py"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (  # a pruned test's names go; what the kept tests use stays
            "import pytest\n\nfrom shop import Money, checkout, discount\n\n\n"
            "def test_discount():\n    assert discount(1) == 0\n",
            "\nfrom shop import discount\n\n\ndef test_discount():\n    assert discount(1) == 0\n",
        ),  # the blank line left is ruff format's to remove (the loop formats formatted code)
        ("def f(:\n", "def f(:\n"),  # not Python: left as it is
    ],
)
def test_drop_unused_imports(tmp_path: Path, source: str, expected: str) -> None:
    assert drop_unused_imports(source, "tests/test_shop.py", tmp_path) == expected
