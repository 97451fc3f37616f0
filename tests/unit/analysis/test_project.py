"""The line length ruff formats a project to, found as ruff finds it (and checked with ruff)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tddforge.analysis.project import ruff_line_length
from tddforge.analysis.static import find_ruff
from tddforge.languages.python import PythonRunner, format_rules

# files (path → text) under a root; the project is root/project
CASES = {
    "no configuration": ({}, 88),
    "pyproject": ({"project/pyproject.toml": "[tool.ruff]\nline-length = 100\n"}, 100),
    "pyproject without [tool.ruff]": (
        {"project/pyproject.toml": "[project]\nname = 'x'\n", "ruff.toml": "line-length = 70\n"},
        70,
    ),
    "[tool.ruff] without a line length": (
        {"project/pyproject.toml": "[tool.ruff]\nsrc = ['.']\n", "ruff.toml": "line-length = 70\n"},
        88,
    ),
    "ruff.toml before pyproject": (
        {
            "project/pyproject.toml": "[tool.ruff]\nline-length = 100\n",
            "project/ruff.toml": "line-length = 79\n",
        },
        79,
    ),
    ".ruff.toml before ruff.toml": (
        {"project/ruff.toml": "line-length = 79\n", "project/.ruff.toml": "line-length = 120\n"},
        120,
    ),
    "a parent's configuration": ({"pyproject.toml": "[tool.ruff]\nline-length = 96\n"}, 96),
    "the nearest wins": (
        {
            "ruff.toml": "line-length = 60\n",
            "project/pyproject.toml": "[tool.ruff]\nline-length = 110\n",
        },
        110,
    ),
}


def _layout(root: Path, files: dict[str, str]) -> Path:
    (root / "project").mkdir()
    for rel, text in files.items():
        (root / rel).write_text(text, encoding="utf-8")
    return root / "project"


@pytest.mark.parametrize(("files", "length"), CASES.values(), ids=list(CASES))
def test_ruff_line_length(tmp_path: Path, files: dict[str, str], length: int) -> None:
    assert ruff_line_length(_layout(tmp_path, files)) == length


@pytest.mark.integration
@pytest.mark.parametrize(("files", "length"), CASES.values(), ids=list(CASES))
def test_ruff_itself_agrees(tmp_path: Path, files: dict[str, str], length: int) -> None:
    ruff = find_ruff()
    if ruff is None:
        pytest.skip("ruff is not installed")
    project = _layout(tmp_path, files)
    (project / "m.py").write_text("x = 1\n", encoding="utf-8")
    shown = subprocess.run(
        [str(ruff), "check", "--no-cache", "--show-settings", "m.py"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = re.search(r"^formatter\.line_width = (\d+)$", shown, re.M)
    assert found is not None and int(found.group(1)) == length


def test_the_format_rules_name_the_projects_line_length(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    rules = format_rules(tmp_path)
    assert rules == (
        "Format code as `ruff format` does here (line length 100)"
        " and keep it free of `ruff check` findings."
    )
    assert PythonRunner(Path("python")).format_rules(tmp_path) == rules
