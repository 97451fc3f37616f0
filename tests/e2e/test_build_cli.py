"""``tddforge build``: RED → GREEN → REFACTOR through the fake server, one commit and artifact each."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from tddforge.llm.fakeserver import FakeOpenAIServer

from .conftest import file_block, run_cli

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

TESTS = """import pytest


def test_tc001_add():
    from calc import Calculator

    assert Calculator().add(2, 3) == 5


def test_tc002_divide_by_zero():
    from calc import Calculator, DivisionByZero

    with pytest.raises(DivisionByZero):
        Calculator().divide(1, 0)


def test_tc003_divide():
    from calc import Calculator

    assert Calculator().divide(6, 3) == 2.0
"""
GREEN = """class DivisionByZero(Exception):
    pass


class Calculator:
    def add(self, a, b):
        return a + b

    def divide(self, a, b):
        if b == 0:
            raise DivisionByZero()
        return a / b
"""
REFACTORED = '''"""Integer arithmetic."""


class DivisionByZero(ZeroDivisionError):
    """Raised when dividing by zero."""


class Calculator:
    """Adds and divides."""

    def add(self, a: int, b: int) -> int:
        return a + b

    def divide(self, a: int, b: int) -> float:
        if b == 0:
            raise DivisionByZero("division by zero")
        return a / b
'''


def _git(project: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=project, capture_output=True, text=True, check=True
    ).stdout


def test_build_goes_red_green_refactor(
    calc_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    server.enqueue(file_block("tests/test_calc.py", TESTS))
    server.enqueue(file_block("calc.py", "class Calculator:\n    pass\n"))  # still red: retried
    server.enqueue(file_block("calc.py", GREEN))
    server.enqueue(
        file_block("calc.py", REFACTORED) + "\n---\nMESSAGE: docstrings and types\n---\n"
    )
    result = run_cli(
        "build",
        str(calc_spec),
        "--project",
        str(project),
        "--model",
        "fake-model",
        "--base-url",
        server.base_url,
        "--json",
    )
    assert result.returncode == 0, result.stderr
    stages = json.loads(result.stdout)
    assert [stages[s]["valid"] for s in ("red", "green", "refactor")] == [True, True, True]
    subjects = _git(project, "log", "--reverse", "--format=%s").splitlines()
    assert subjects == [
        "red(SPEC-CALC-1): failing tests for Calculator",
        "green(SPEC-CALC-1): make the RED tests pass",
        "refactor(SPEC-CALC-1): docstrings and types",
    ]
    shas = _git(project, "log", "--reverse", "--format=%H").split()
    assert [stages[s]["commit"] for s in ("red", "green", "refactor")] == shas
    assert _git(project, "show", "--name-only", "--format=", shas[0]).split() == [
        "tests/test_calc.py"
    ]
    assert _git(project, "show", "--name-only", "--format=", shas[1]).split() == ["calc.py"]
    assert _git(project, "show", "HEAD:tests/test_calc.py") == TESTS  # tests untouched
    assert stages["green"]["attempts"] == 2 and stages["green"]["test_count"] == 3
    assert stages["refactor"]["applied"] is True
    artifacts = project / ".tddforge" / "artifacts" / "SPEC-CALC-1"
    assert sorted(p.name for p in artifacts.iterdir()) == [
        "green.yaml",
        "red.yaml",
        "refactor.yaml",
    ]
    assert yaml.safe_load((artifacts / "green.yaml").read_text())["commit"] == shas[1]
    assert _git(project, "status", "--porcelain") == ""
    assert "still failing" in server.requests[2]["messages"][1]["content"]


def test_build_stops_after_an_invalid_red(
    calc_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    server.enqueue(file_block("tests/test_calc.py", "def test_tc001(:\n    pass\n"))
    result = run_cli(
        "build",
        str(calc_spec),
        "--project",
        str(project),
        "--model",
        "fake-model",
        "--base-url",
        server.base_url,
    )
    assert result.returncode == 1, result.stderr
    assert len(server.requests) == 1
    assert _git(project, "log", "--oneline", "--all") == ""  # nothing committed
