"""Regression tests: a path a model wrote never makes tddforge read or write outside the project.

Each test scripts the model's reply (only the model is scripted) and runs the real
agent or stage, git and sandbox. An audit hook records every file this process opens,
so "nothing was read outside" is observed, not assumed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tddforge.agents import tester
from tddforge.agents.base import AgentContext
from tddforge.agents.implementer import ImplementerAgent
from tddforge.agents.kata import KataAgent
from tddforge.agents.refactorer import RefactorerAgent
from tddforge.config import Settings
from tddforge.languages.python import PythonRunner
from tddforge.llm import ScriptedClient
from tddforge.orchestration.kata_session import scaffold
from tddforge.orchestration.red_stage import RedOptions, red_stage
from tddforge.spec import Spec

pytestmark = pytest.mark.integration

FENCE = "```"
SECRET = "SECRET = 'outside the project'\n"
_opened: list[str] | None = None


def _audit(event: str, args: tuple[object, ...]) -> None:
    if _opened is not None and event == "open" and isinstance(args[0], (str, bytes)):
        _opened.append(str(args[0]))


sys.addaudithook(_audit)  # hooks cannot be removed: this one records only inside ``opened``


@pytest.fixture
def opened() -> Iterator[list[str]]:
    global _opened
    _opened = []
    try:
        yield _opened
    finally:
        _opened = None


def block(path: str, content: str) -> str:
    return f"### FILE: {path}\n{FENCE}python\n{content}{FENCE}\n"


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (symlinks not followed), with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def touched_outside(opened: list[str], outside: Path) -> list[str]:
    return [p for p in opened if Path(p).resolve().is_relative_to(outside.resolve())]


SPEC = Spec.model_validate(
    {
        "spec_id": "S",
        "components": [{"name": "calc", "file_path": "calc.py"}],
        "test_cases": [{"id": "TC001", "component": "calc"}],
    }
)


def test_red_stage_never_reads_or_copies_a_file_outside_the_project(
    tmp_path: Path, opened: list[str]
) -> None:
    """``tests/../../x/b.py`` once made the stage read ``x/b.py`` and keep a copy of it."""
    project = tmp_path / "a" / "project"
    (project / "tests").mkdir(parents=True)
    outside = tmp_path / "a" / "x"  # project/tests/../../x
    outside.mkdir()
    (outside / "b.py").write_text(SECRET)
    before_outside = tree(outside)
    test = "from calc import add\n\n\ndef test_tc001():\n    assert add(1, 2) == 3\n"
    reply = block("tests/../../x/b.py", "X = 1\n") + block("tests/test_calc.py", test)
    llm = ScriptedClient().enqueue(reply)
    options = RedOptions(project=project, python=Path(sys.executable))
    opened.clear()
    outcome = red_stage(SPEC, llm, Settings(), options, lambda _: None)
    read_outside = touched_outside(opened, outside)  # before this test reads it itself
    assert [r.path for r in outcome.artifact.refused_files] == ["tests/../../x/b.py"]
    assert not read_outside
    assert tree(outside) == before_outside
    written = tree(tmp_path)
    assert [p for p, data in written.items() if data == SECRET.encode()] == ["a/x/b.py"]
    assert sorted(p for p in written if not p.startswith("a/project/")) == ["a/x/b.py"]


@pytest.fixture
def kata_work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    runner = PythonRunner(Path(sys.executable))
    scaffold(work, runner, "# FizzBuzz\n")
    (tmp_path / "outside.py").write_text(SECRET)
    return work


def _agent(kind: type[KataAgent], reply: str, work: Path) -> KataAgent:
    llm = ScriptedClient().enqueue(reply)
    return kind(llm, work, PythonRunner(Path(sys.executable)))


REPLIES = {
    "relative escape first": [("../outside.py", "X = 1\n"), ("tests/test_a.py", "X = 1\n")],
    "absolute path first": [("{outside}", "X = 1\n"), ("tests/test_a.py", "X = 1\n")],
    "escape last": [("tests/test_a.py", "X = 1\n"), ("../outside.py", "X = 1\n")],
}


@pytest.mark.parametrize("kind", [tester.TesterAgent, ImplementerAgent, RefactorerAgent])
@pytest.mark.parametrize("files", list(REPLIES.values()), ids=list(REPLIES))
def test_kata_agents_leave_no_stray_file_and_read_nothing_outside(
    kata_work: Path,
    opened: list[str],
    kind: type[KataAgent],
    files: list[tuple[str, str]],
) -> None:
    """``["../outside.py", "tests/test_a.py"]`` once left ``tests/test_a.py`` on disk."""
    outside = kata_work.parent / "outside.py"
    reply = "".join(block(p.format(outside=outside), c) for p, c in files)
    before = tree(kata_work)
    opened.clear()
    result = _agent(kind, reply, kata_work).execute(AgentContext("# FizzBuzz"))
    read_outside = touched_outside(opened, outside)  # before this test reads it itself
    assert not result.success
    assert "refused" in result.message
    assert tree(kata_work) == before  # no stray test, nothing half-written
    assert not read_outside
    assert outside.read_text() == SECRET
