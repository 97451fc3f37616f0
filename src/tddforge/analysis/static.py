"""Static analysis of a generated test module: syntax, ruff lint and complexity, mypy, smells.

Nothing here runs the code under test. ruff reads the suite from stdin with
our own rule selection (``--isolated``: the project's lint config is not ours
to judge generated tests by); mypy is optional and runs only when installed
and asked for. Tool failures become notes, never exceptions: a missing linter
must not stop the loop.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tddforge.analysis.smells import Smell, defined_names, find_smells

# pyflakes, pycodestyle errors/warnings, bugbear, pylint errors, mccabe (C901).
RUFF_SELECT = "E,F,W,B,C90,PLE"
RUFF_IGNORE = "E501"
MAX_COMPLEXITY = 10


@dataclass(frozen=True)
class Issue:
    """One finding of a tool: ``ruff``/``mypy`` code, line and message."""

    tool: str
    code: str
    line: int
    message: str


@dataclass(frozen=True)
class StaticReport:
    """What the static checks found in one test module."""

    syntax_ok: bool
    syntax_error: str | None = None
    lint: tuple[Issue, ...] = ()
    types: tuple[Issue, ...] = ()
    smells: tuple[Smell, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def complexity(self) -> tuple[Issue, ...]:
        """The C901 findings (functions more complex than ``MAX_COMPLEXITY``)."""
        return tuple(i for i in self.lint if i.code == "C901")

    @property
    def lint_issue_count(self) -> int:
        """Lint and type issues together: the critique's ``lint_issue_count``."""
        return len(self.lint) + len(self.types)

    def to_data(self) -> dict[str, Any]:
        """Plain data for reports."""
        return {
            "syntax_ok": self.syntax_ok,
            "syntax_error": self.syntax_error,
            "lint_issue_count": self.lint_issue_count,
            "complexity_issues": len(self.complexity),
            "lint": [vars(i) for i in self.lint],
            "types": [vars(i) for i in self.types],
            "smells": [vars(s) for s in self.smells],
            "notes": list(self.notes),
        }


def check_syntax(source: str) -> str | None:
    """None when ``source`` parses, else ``"line N: message"`` (or why it could not be
    parsed at all: nested too deeply, or too large for the memory at hand)."""
    try:
        ast.parse(source)
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    except (MemoryError, RecursionError) as exc:
        return f"too complex to parse ({type(exc).__name__})"
    return None


def analyze(
    source: str,
    test_path: str,
    *,
    module_name: str,
    module_source: str,
    project: Path,
    mypy: bool = False,
) -> StaticReport:
    """Run every static check on ``source`` (to be written at ``test_path`` in ``project``)."""
    error = check_syntax(source)
    if error is not None:
        return StaticReport(syntax_ok=False, syntax_error=error)
    notes: list[str] = []
    lint = ruff_issues(source, test_path, project, notes)
    types = mypy_issues(source, test_path, project, notes) if mypy else ()
    smells = find_smells(source, module_name, defined_names(module_source))
    return StaticReport(True, None, lint, types, tuple(smells), tuple(notes))


def find_ruff() -> Path | None:
    """The ruff binary installed with tddforge (beside this interpreter), else the one on PATH."""
    beside = Path(sys.executable).parent / "ruff"
    if beside.is_file():
        return beside
    found = shutil.which("ruff")
    return Path(found) if found else None


class RuffMissing(Exception):
    """ruff is neither beside this interpreter nor on PATH."""


def run_ruff(args: list[str], source: str, test_path: str, project: Path) -> str:
    """ruff's stdout for ``source`` given on stdin as ``test_path``, run in ``project``.

    Raises ``RuffMissing``, ``OSError`` or ``subprocess.TimeoutExpired``.
    """
    ruff = find_ruff()
    if ruff is None:
        raise RuffMissing
    argv = [str(ruff), *args, "--no-cache", "--stdin-filename", test_path, "-"]
    done = subprocess.run(
        argv, input=source, capture_output=True, text=True, cwd=project, timeout=60, check=False
    )
    return done.stdout


def format_source(source: str, test_path: str, project: Path) -> str:
    """``source`` as ``ruff format`` writes it under the project's configuration (as is
    without ruff, or when it cannot be formatted)."""
    try:
        formatted = run_ruff(["format"], source, test_path, project)
    except (RuffMissing, OSError, subprocess.TimeoutExpired):
        return source
    return formatted if formatted and check_syntax(formatted) is None else source


def drop_unused_imports(source: str, test_path: str, project: Path) -> str:
    """``source`` without the imports nothing uses any more (ruff's F401 fix), e.g. after
    tests were pruned from it; as is when ruff is missing or fails."""
    args = ["check", "--isolated", "--select", "F401", "--fix"]
    try:
        fixed = run_ruff(args, source, test_path, project)
    except (RuffMissing, OSError, subprocess.TimeoutExpired):
        return source
    return fixed if fixed.strip() and check_syntax(fixed) is None else source


def ruff_issues(source: str, test_path: str, project: Path, notes: list[str]) -> tuple[Issue, ...]:
    """ruff's findings for ``source``, read from its JSON output."""
    args = ["check", "--isolated", "--select", RUFF_SELECT, "--ignore", RUFF_IGNORE]
    args += ["--config", f"lint.mccabe.max-complexity={MAX_COMPLEXITY}"]
    args += ["--output-format=json", "--exit-zero"]
    try:
        rows = json.loads(run_ruff(args, source, test_path, project) or "[]")
    except RuffMissing:
        notes.append("ruff is not installed: lint skipped")
        return ()
    except (OSError, subprocess.TimeoutExpired, ValueError) as exc:
        notes.append(f"ruff failed: {exc}")
        return ()
    return tuple(
        Issue("ruff", str(r.get("code") or "syntax"), int(r["location"]["row"]), str(r["message"]))
        for r in rows
    )


def mypy_available() -> bool:
    """True when mypy can be imported by this interpreter."""
    import importlib.util

    return importlib.util.find_spec("mypy") is not None


def mypy_issues(source: str, test_path: str, project: Path, notes: list[str]) -> tuple[Issue, ...]:
    """mypy's errors in the test module itself (imports followed silently, not reported)."""
    if not mypy_available():
        notes.append("mypy is not installed: type check skipped")
        return ()
    with tempfile.TemporaryDirectory(prefix="tddforge-mypy-") as scratch:
        target = Path(scratch) / Path(test_path).name
        target.write_text(source, encoding="utf-8")
        src = [str(project), *([str(project / "src")] if (project / "src").is_dir() else [])]
        argv = [sys.executable, "-m", "mypy", "--ignore-missing-imports", "--follow-imports=silent"]
        argv += ["--no-error-summary", "--show-error-codes", "--no-incremental"]
        argv += ["--cache-dir", os.devnull, str(target)]
        env = {**os.environ, "MYPYPATH": os.pathsep.join(src)}
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, cwd=scratch, env=env, timeout=120, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            notes.append(f"mypy failed: {exc}")
            return ()
    return tuple(_mypy_rows(done.stdout))


def _mypy_rows(output: str) -> list[Issue]:
    issues = []
    for row in output.splitlines():
        parts = row.split(":", 3)
        if len(parts) == 4 and parts[1].strip().isdigit() and parts[2].strip() == "error":
            message = parts[3].strip()
            code = message.rsplit("[", 1)[-1].rstrip("]") if message.endswith("]") else "error"
            issues.append(Issue("mypy", code, int(parts[1]), message))
    return issues
