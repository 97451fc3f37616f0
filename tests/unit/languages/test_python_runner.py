from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.decisions.red_validation import TestFact
from tddforge.languages.python import PythonRunner, count_assertions, kata_names

OWN_MODULES = frozenset({"fizzbuzz", "calc"})
OWN_CLASSES = frozenset({"Calculator"})


def _fact(kind: str, message: str, missing: str | None = None) -> TestFact:
    return TestFact("tests/t.py::test_x", "error", kind, missing, message)


@pytest.mark.parametrize(
    ("kind", "message", "expected"),
    [
        ("ModuleNotFoundError", "No module named 'fizzbuzz'", {"fizzbuzz"}),
        ("ModuleNotFoundError", "No module named 'json.nope'", set()),  # stdlib
        ("ImportError", "cannot import name 'buzz' from 'fizzbuzz' (/w/fizzbuzz.py)", {"buzz"}),
        ("ImportError", "cannot import name 'dumps2' from 'json' (/usr/lib/json.py)", set()),
        ("AttributeError", "module 'calc' has no attribute 'divide'", {"divide"}),
        ("AttributeError", "module 'os' has no attribute 'nope'", set()),
        ("AttributeError", "'Calculator' object has no attribute 'divide'", {"divide"}),
        ("AttributeError", "'str' object has no attribute 'divide'", set()),
        ("NameError", "name 'fizzbuzz' is not defined", set()),  # the test forgot its import
        ("AssertionError", "assert 1 == 2", set()),
    ],
)
def test_kata_names(kind: str, message: str, expected: set[str]) -> None:
    assert kata_names([_fact(kind, message)], OWN_MODULES, OWN_CLASSES) == expected


@pytest.mark.parametrize(
    ("source", "count"),
    [
        ("def test_a():\n    assert 1\n    assert 2\n", 2),
        ("def test_a(self):\n    self.assertEqual(1, 1)\n", 1),
        (
            "import pytest\n\ndef test_a():\n    with pytest.raises(ValueError):\n        int('x')\n",
            1,
        ),
        ("def test_a():\n    f()\n", 0),
        ("def test_a(:\n", 0),
    ],
)
def test_count_assertions(source: str, count: int) -> None:
    assert count_assertions(source) == count


@pytest.mark.parametrize(
    ("path", "test", "protected", "source"),
    [
        ("tests/test_fb.py", True, True, False),
        ("tests/conftest.py", True, True, False),
        ("tests/helpers.py", True, True, False),
        ("conftest.py", True, True, False),
        ("test_root.py", True, True, False),
        ("pyproject.toml", False, True, False),
        ("fizzbuzz.py", False, False, True),
        ("pkg/mod.py", False, False, True),
        ("KATA.md", False, False, False),
    ],
)
def test_file_kinds(path: str, test: bool, protected: bool, source: bool) -> None:
    runner = PythonRunner(Path("python3"))
    assert runner.is_test_file(path) is test
    assert runner.is_protected(path) is protected
    assert runner.is_source_file(path) is source


def test_scaffold_ignores_tool_state_and_imports_from_the_root(tmp_path: Path) -> None:
    written = PythonRunner(Path("python3")).initialize_project(tmp_path)
    assert sorted(written) == [".gitignore", "pyproject.toml"]
    assert ".tddforge/" in (tmp_path / ".gitignore").read_text().splitlines()
    assert 'pythonpath = ["."]' in (tmp_path / "pyproject.toml").read_text()
    assert (tmp_path / "tests").is_dir()


def test_test_function_collapses_parameters() -> None:
    assert PythonRunner(Path("python3")).test_function("t.py::test_a[1-2]") == "t.py::test_a"
