"""The baseline's tests run in parts side by side, and as one process would when a part
depends on what an earlier file's tests did."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.config import Settings
from tddforge.mutation.engine import score

from .conftest import job_for, write_files

pytestmark = pytest.mark.integration

MODULE = """\
SEEN = []


def note(value):
    SEEN.append(value)
    return len(SEEN)
"""

FIRST = """\
import os

from sample import note


def _pid(name):
    with open(os.path.join(os.path.dirname(__file__), name + ".pid"), "a") as handle:
        handle.write(f"{os.getpid()}\\n")


def test_a_note():
    _pid("first")
    assert note("a") == 1


def test_another():
    _pid("first")
    assert note("b") == 2
"""

SECOND = """\
import os

from sample import SEEN, note


def test_more_notes():
    with open(os.path.join(os.path.dirname(__file__), "second.pid"), "a") as handle:
        handle.write(f"{os.getpid()}\\n")
    assert note("c") >= 1
"""

# passes only after the first file's tests ran in the same process
AFTER_FIRST = (
    SECOND
    + """

def test_the_first_files_notes_are_there():
    assert SEEN[:2] == ["a", "b"]
"""
)


def _project(root: Path, second: str) -> Path:
    files = {"sample.py": MODULE, "tests/test_first.py": FIRST, "tests/test_second.py": second}
    return write_files(root, files)


def _job(project: Path):  # type: ignore[no-untyped-def]
    tests = ("tests/test_first.py", "tests/test_second.py")
    return job_for(project, tests=tests, workers=2)


def _baseline_pids(project: Path, name: str) -> set[str]:
    """The processes the baseline ran the file's tests in: its first lines (mutants'
    children append theirs after)."""
    lines = (project / "tests" / f"{name}.pid").read_text().split()
    return set(lines[: 2 if name == "first" else 1])


def test_files_run_in_parts_side_by_side(tmp_path: Path, settings: Settings) -> None:
    project = _project(tmp_path / "parts", SECOND)
    report = score(_job(project), settings)
    assert report.results and all(r.verdict != "error" for r in report.results)
    first, second = _baseline_pids(project, "first"), _baseline_pids(project, "second")
    assert len(first) == 1 and len(second) == 1
    assert first != second  # the second file's part ran in a process of its own


def test_a_part_needing_an_earlier_files_state_runs_again_after_it(
    tmp_path: Path, settings: Settings
) -> None:
    project = _project(tmp_path / "after", AFTER_FIRST)
    report = score(_job(project), settings)  # a baseline failure would raise BaselineError
    assert report.tests == 4
    killed = {r.killer for r in report.results if r.verdict == "killed"}
    assert killed  # the run went on to judge the mutants
