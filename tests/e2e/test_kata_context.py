"""What each kata agent is told is the session's real state: the latest run, the commits, the
fate of the last refactoring; and what tools can fix is fixed, not held against a test."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tddforge.llm.fakeserver import FakeOpenAIServer

from . import kata_script as ks
from .conftest import DATA, clean_env, file_block, run_cli

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


def test_a_question_stops_the_session_and_the_answer_reaches_every_later_prompt(
    kata: Path, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    work = tmp_path / "work"
    server.enqueue("The kata is silent on zero.\n\nCLARIFICATION_NEEDED: What is fizzbuzz(0)?\n")
    code, summary, stderr = _kata(kata, work, server, "--max-cycles", "1")
    assert code == 3, stderr
    assert summary["stop_reason"] == "clarification_needed"
    assert summary["question"] == "What is fizzbuzz(0)?"
    assert "What is fizzbuzz(0)?" in stderr and "--resume --answer" in stderr
    # resuming without an answer is one line, exit 2
    unanswered = run_cli("kata", str(kata), "--work-dir", str(work), "--model", "m", "--resume")
    assert unanswered.returncode == 2
    assert "waits for an answer to: What is fizzbuzz(0)?" in unanswered.stderr
    # the answer comes from a file here; the next prompts carry it
    answers = tmp_path / "answer.txt"
    answers.write_text("n is always positive; zero is never passed.\n")
    server.enqueue(ks.tester(1)).enqueue(ks.implementer(1)).enqueue(ks.NO_CHANGES)
    code, summary, stderr = _kata(kata, work, server, "--resume", "--answers", str(answers))
    assert code == 0, stderr
    assert summary["clarifications"] == [
        {
            "question": "What is fizzbuzz(0)?",
            "answer": "n is always positive; zero is never passed.",
        }
    ]
    for request in server.requests[1:]:
        clarified = _section(_user(request), "Clarifications")
        assert "Q: What is fizzbuzz(0)?" in clarified and "zero is never passed" in clarified
    assert summary["green_cycles"] == 1


def test_an_answer_without_a_question_is_bad_input(kata: Path, tmp_path: Path) -> None:
    done = run_cli("kata", str(kata), "--work-dir", str(tmp_path / "w"), "--answer", "yes")
    assert done.returncode == 2 and "--answer goes with --resume" in done.stderr
    assert not (tmp_path / "w").exists()


def test_on_a_terminal_the_question_is_asked_and_the_session_goes_on(
    kata: Path, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    server.enqueue("CLARIFICATION_NEEDED: What is fizzbuzz(0)?\n")
    server.enqueue(ks.tester(1)).enqueue(ks.implementer(1)).enqueue(ks.NO_CHANGES)
    controller, terminal = pty.openpty()
    args = ["kata", str(kata), "--work-dir", str(tmp_path / "w"), "--model", "m", "--json"]
    argv = [sys.executable, "-m", "tddforge", *args, "--base-url", server.base_url]
    argv += ["--max-cycles", "1"]
    proc = subprocess.Popen(
        argv, stdin=terminal, stderr=terminal, stdout=subprocess.PIPE, env=clean_env()
    )
    os.close(terminal)
    seen, deadline = b"", time.monotonic() + 120
    while b"your answer" not in seen and time.monotonic() < deadline:
        if select.select([controller], [], [], 1)[0]:
            seen += os.read(controller, 4096)
    assert b"What is fizzbuzz(0)?" in seen
    os.write(controller, b"zero is never passed\n")
    out, _ = proc.communicate(timeout=120)
    os.close(controller)
    summary = json.loads(out)
    assert proc.returncode == 0
    assert summary["clarifications"][0]["answer"] == "zero is never passed"
    assert "zero is never passed" in _user(server.requests[1])


def test_replies_in_other_shapes_are_taken_and_a_cut_off_one_is_asked_again(
    kata: Path, tmp_path: Path, server: FakeOpenAIServer
) -> None:
    work = tmp_path / "work"
    cut_off = f"Here it is:\n```python {ks.TEST_PATH}\nfrom fizzbuzz import fizz"
    named_in_the_fence = f"```python {ks.TEST_PATH}\n{ks.test_source(1)}```\n"
    comment_first = f"```python\n# file: {ks.CODE_PATH}\n{ks.code(1)}```\n"
    server.enqueue(cut_off).enqueue(named_in_the_fence).enqueue(comment_first)
    server.enqueue(ks.NO_CHANGES)
    code, summary, stderr = _kata(kata, work, server, "--max-cycles", "1")
    assert code == 0, stderr
    retry = _user(server.requests[1])
    assert "cut off inside the block for 'tests/test_fizzbuzz.py'" in retry
    assert summary["green_cycles"] == 1
    assert _show(work, "HEAD:fizzbuzz.py") == ks.code(1)
