"""What each kata agent is told is the session's real state: the latest run, the commits, the
fate of the last refactoring; and what tools can fix is fixed, not held against a test."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tddforge.llm.fakeserver import FakeOpenAIServer

from . import kata_script as ks
from .conftest import DATA, file_block, run_cli

pytestmark = [pytest.mark.e2e, pytest.mark.integration]


@pytest.fixture
def kata(tmp_path: Path) -> Path:
    target = tmp_path / "KATA.md"
    shutil.copyfile(DATA / "katas" / "fizzbuzz" / "KATA.md", target)
    return target


def _kata(kata: Path, work: Path, server: FakeOpenAIServer, *extra: str) -> tuple[int, Any, str]:
    args = ["kata", str(kata), "--work-dir", str(work), "--model", "m"]
    done = run_cli(*args, "--base-url", server.base_url, "--json", *extra)
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else {}, done.stderr


def _user(request: dict[str, Any]) -> str:
    return str(request["messages"][-1]["content"])


def _section(prompt: str, title: str) -> str:
    """The text of ``# title`` up to the next top-level heading."""
    body = prompt.split(f"# {title}\n", 1)[1]
    return body.split("\n# ", 1)[0]


def _show(work: Path, what: str) -> str:
    git = ["git", "-C", str(work), "show", what]
    return subprocess.run(git, capture_output=True, text=True, check=True).stdout


def test_each_prompt_carries_the_latest_run_the_commits_and_the_last_refactoring(
    kata: Path, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    work = tmp_path / "work"
    server.enqueue(ks.tester(1)).enqueue(ks.implementer(1)).enqueue(
        ks.refactorer(ks.code(1), "tidy")
    )
    server.enqueue(ks.tester(2)).enqueue(ks.implementer(2)).enqueue(ks.NO_CHANGES)
    code, summary, stderr = _kata(kata, work, server, "--max-cycles", "2")
    assert code == 0, stderr
    prompts = [_user(r) for r in server.requests]
    # the Refactorer starts from the green run, not the red one
    refactor_output = _section(prompts[2], "Last Test Output")
    assert "1 passed" in refactor_output and "ModuleNotFoundError" not in refactor_output
    # the Tester of cycle 2 sees the suite as it is now, and what became of the refactoring
    tester_output = _section(prompts[3], "Last Test Output")
    assert "passed" in tester_output and "no test run yet" not in tester_output
    assert "cycle 1: " in _section(prompts[3], "Last Refactoring")
    # the commits made so far are listed
    assert "green(cycle 1)" in _section(prompts[3], "Recent Commits")
    assert summary["stop_reason"] == "max_cycles"


def test_a_max_cycles_stop_says_the_kata_may_be_unfinished(
    kata: Path, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    work = tmp_path / "work"
    server.enqueue(ks.tester(1)).enqueue(ks.implementer(1)).enqueue(ks.NO_CHANGES)
    code, summary, stderr = _kata(kata, work, server, "--max-cycles", "1")
    assert code == 0, stderr
    assert summary["kata_complete"] is False
    assert "may be unfinished" in stderr and "may be unfinished" in summary["note"]


def test_fixable_lint_is_fixed_and_the_test_kept(
    kata: Path, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    work = tmp_path / "work"
    sloppy = "import os\n" + ks.test_source(1)  # an unused import: ruff removes it
    server.enqueue(file_block(ks.TEST_PATH, sloppy)).enqueue(ks.implementer(1))
    server.enqueue(ks.NO_CHANGES)
    code, summary, stderr = _kata(kata, work, server, "--max-cycles", "1")
    assert code == 0, stderr
    assert summary["cycle_metrics"][0]["retries"].get("tester", 0) == 0
    committed = _show(work, "HEAD:tests/test_fizzbuzz.py")
    assert "import os" not in committed and "def test_one_is_returned_as_a_string" in committed
    assert "ruff fixed lint" in stderr


def test_lint_no_fix_removes_is_still_refused(
    kata: Path, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    work = tmp_path / "work"
    bare_except = ks.test_source(1).replace(
        'assert fizzbuzz(1) == "1"',
        'try:\n        result = fizzbuzz(1)\n    except:\n        raise\n    assert result == "1"',
    )
    server.enqueue(file_block(ks.TEST_PATH, bare_except)).enqueue(ks.tester(1))
    server.enqueue(ks.implementer(1)).enqueue(ks.NO_CHANGES)
    code, summary, stderr = _kata(kata, work, server, "--max-cycles", "1")
    assert code == 0, stderr
    retry = _user(server.requests[1])
    assert "does not pass the linter" in retry and "tests/test_fizzbuzz.py:7:" in retry
    assert summary["cycle_metrics"][0]["retries"]["tester"] == 1


def test_the_katas_own_code_raising_before_the_assertion_is_red(
    kata: Path, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    work = tmp_path / "work"
    words = "WORDS = []\n\n\ndef fizzbuzz(n):\n    if n % 3 == 0:\n        return WORDS[0]\n    return str(n)\n"
    server.enqueue(ks.tester(1)).enqueue(file_block(ks.CODE_PATH, words)).enqueue(ks.NO_CHANGES)
    server.enqueue(ks.tester(2)).enqueue(ks.implementer(2)).enqueue(ks.NO_CHANGES)
    code, summary, stderr = _kata(kata, work, server, "--max-cycles", "2")
    assert code == 0, stderr
    assert summary["green_cycles"] == 2
    assert "the kata's code raises IndexError in fizzbuzz.py" in stderr
