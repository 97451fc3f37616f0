"""``tddforge kata`` end to end: the real CLI, openai SDK over loopback, pytest, ruff and git."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tddforge.llm.fakeserver import FakeOpenAIServer

from . import kata_script as ks
from .conftest import DATA, clean_env, error_lines, file_block, run_cli

pytestmark = [pytest.mark.e2e, pytest.mark.integration]


@pytest.fixture
def kata(tmp_path: Path) -> Path:
    target = tmp_path / "KATA.md"
    shutil.copyfile(DATA / "katas" / "fizzbuzz" / "KATA.md", target)
    return target


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return tmp_path / "work"


def _args(kata: Path, work: Path, server: FakeOpenAIServer, *extra: str) -> list[str]:
    return [
        "kata",
        str(kata),
        "--work-dir",
        str(work),
        "--model",
        "fake-model",
        "--base-url",
        server.base_url,
        "--json",
        *extra,
    ]


def _kata(
    kata: Path, work: Path, server: FakeOpenAIServer, *extra: str
) -> tuple[int, dict[str, Any], str]:
    result = run_cli(*_args(kata, work, server, *extra))
    summary = json.loads(result.stdout) if result.stdout.strip() else {}
    return result.returncode, summary, result.stderr


def _git(work: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=work, capture_output=True, text=True, check=True
    ).stdout


def _history(work: Path) -> list[tuple[str, str]]:
    """(sha, subject) from the first commit to HEAD."""
    lines = _git(work, "log", "--reverse", "--format=%H %s").splitlines()
    return [(line[:40], line[41:]) for line in lines]


def _tree_is_green(work: Path, sha: str, scratch: Path) -> tuple[int, str]:
    """Check out ``sha`` into a fresh directory and run its tests there with pytest."""
    target = scratch / sha[:12]
    target.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", sha], cwd=work, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=target,
        capture_output=True,
        text=True,
        check=False,
    )
    return proc.returncode, proc.stdout


def _system(request: dict[str, Any]) -> str:
    return str(request["messages"][0]["content"])


def _user(request: dict[str, Any]) -> str:
    return str(request["messages"][1]["content"])


def test_four_green_cycles_leave_a_green_history(
    kata: Path, work: Path, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    for n in range(1, 5):
        server.enqueue(ks.tester(n), usage=(900, 120))
        server.enqueue(ks.implementer(n), usage=(1000, 80))
        server.enqueue(ks.refactorer() if n == 4 else ks.NO_CHANGES, usage=(1100, 60))
    server.enqueue(ks.KATA_COMPLETE)
    code, summary, stderr = _kata(kata, work, server)
    assert code == 0, stderr
    assert summary["stop_reason"] == "kata_complete"
    assert summary["green_cycles"] == 4 and summary["tests"] == 4
    history = _history(work)
    subjects = [s for _, s in history]
    assert subjects == [
        "chore: scaffold the kata work dir",
        "green(cycle 1): one is returned as a string",
        "green(cycle 2): three is fizz",
        "green(cycle 3): five is buzz",
        "green(cycle 4): fifteen is fizzbuzz",
        "refactor(cycle 4): after fifteen is fizzbuzz: table of rules",
    ]
    # Every green commit holds the new test and its implementation together.
    for sha, subject in history[1:5]:
        changed = _git(work, "show", "--name-only", "--format=", sha).split()
        assert sorted(changed) == ["fizzbuzz.py", "tests/test_fizzbuzz.py"], subject
    # No red commit: every commit's tree passes its own tests (the scaffold has none yet).
    for sha, subject in history:
        returncode, output = _tree_is_green(work, sha, tmp_path / "trees")
        assert returncode == (5 if subject.startswith("chore") else 0), (subject, output)
    assert _git(work, "show", "HEAD:fizzbuzz.py") == ks.REFACTORED
    assert _git(work, "show", "HEAD:tests/test_fizzbuzz.py") == ks.test_source(4)
    assert _git(work, "status", "--porcelain") == ""
    assert not any(p.startswith(".tddforge") for p in _git(work, "ls-files").split())
    assert ".tddforge/" in (work / ".gitignore").read_text()
    # The protocol: seed system prompts, roles in order, the status block only informational.
    roles = [_system(r).split(" agent", 1)[0] for r in server.requests]
    assert roles[:3] == ["You are a Tester", "You are an Implementer", "You are a Refactorer"]
    assert all(_system(r).endswith("TDD system.") is False for r in server.requests)
    assert "Cycle 4 of 10" in _user(server.requests[9])
    # Per-cycle metrics stored with the run.
    cycle = summary["cycle_metrics"][3]
    assert cycle["commits"] == [sha for sha, _ in history[4:6]]
    assert cycle["gates"] == {
        "format": "passed",
        "lint": "passed",
        "tests": "passed",
        "build": "passed",
    }
    assert cycle["phases"]["tester"]["prompt_tokens"] == 900
    assert cycle["phases"]["implementer"]["completion_tokens"] == 80
    assert cycle["test_count"] == 4 and cycle["refactor"] == "committed"
    assert summary["llm"]["by_agent"]["refactorer"]["calls"] == 4
    assert summary["overhead_seconds_median"] > 0
    run_dir = Path(summary["run_dir"])
    stored = json.loads((run_dir / "summary.json").read_text())
    assert stored["commits"] == summary["commits"]
    events = [
        json.loads(line)["event"] for line in (run_dir / "events.jsonl").read_text().splitlines()
    ]
    assert events.count("commit") == 5 and events[-1] == "session_stop"
    assert (run_dir / "transcripts" / "cycle-001-tester.md").is_file()


def test_overshoot_is_discarded_and_the_limit_stops_the_session(
    kata: Path, work: Path, server: FakeOpenAIServer
) -> None:
    passing = '\n\ndef test_two_is_returned_as_a_string():\n    assert fizzbuzz(2) == "2"\n'
    server.enqueue(ks.tester(1))
    server.enqueue(ks.implementer(1))
    server.enqueue(ks.NO_CHANGES)
    server.enqueue(file_block(ks.TEST_PATH, ks.test_source(1, passing)))  # overshoot
    server.enqueue(ks.tester(2))  # the different test asked for
    server.enqueue(ks.implementer(2))
    server.enqueue(ks.NO_CHANGES)
    for _ in range(3):  # three overshoots in a row end the session
        server.enqueue(file_block(ks.TEST_PATH, ks.test_source(2, passing)))
    code, summary, stderr = _kata(kata, work, server)
    assert code == 1, stderr
    assert summary["stop_reason"] == "overshoot_limit"
    assert summary["overshoots"] == 4 and summary["green_cycles"] == 2
    assert "test_two" not in _git(work, "show", "HEAD:tests/test_fizzbuzz.py")
    assert _git(work, "status", "--porcelain") == ""  # the passing test was not kept
    asked_again = _user(server.requests[4])
    assert "Already works" in asked_again and "two is returned as a string" in asked_again
    assert summary["cycle_metrics"][1]["overshoots"] == 1
    assert summary["cycle_metrics"][2]["outcome"] == "overshoot_limit"


def test_implementer_that_tampers_with_the_test_is_refused(
    kata: Path, work: Path, server: FakeOpenAIServer
) -> None:
    weakened = ks.test_source(1).replace('assert fizzbuzz(1) == "1"', "assert True")
    server.enqueue(ks.tester(1))
    server.enqueue(
        file_block(ks.TEST_PATH, weakened)
        + file_block(ks.CODE_PATH, "def fizzbuzz(n):\n    return None\n")
    )
    server.enqueue(ks.implementer(1))
    server.enqueue(ks.NO_CHANGES)
    code, summary, stderr = _kata(kata, work, server, "--max-cycles", "1")
    assert code == 0, stderr
    assert summary["stop_reason"] == "max_cycles"
    assert "test files may not be modified" in _user(server.requests[2])
    assert _git(work, "show", "HEAD:tests/test_fizzbuzz.py") == ks.test_source(1)
    assert _git(work, "show", "HEAD:fizzbuzz.py") == ks.code(1)
    assert summary["cycle_metrics"][0]["retries"]["implementer"] == 1


def test_implementer_that_never_gets_green_drops_the_test_then_stops(
    kata: Path, work: Path, server: FakeOpenAIServer
) -> None:
    wrong = file_block(ks.CODE_PATH, 'def fizzbuzz(n):\n    return "wrong"\n')
    for _ in range(2):
        server.enqueue(ks.tester(1))
        for _ in range(3):
            server.enqueue(wrong)
    code, summary, stderr = _kata(kata, work, server)
    assert code == 1, stderr
    assert summary["stop_reason"] == "implementer_failed"
    assert len(server.requests) == 8
    assert "could not be made to pass in 3 attempts" in _user(server.requests[4])
    assert [s for _, s in _history(work)] == ["chore: scaffold the kata work dir"]
    assert _git(work, "status", "--porcelain") == ""
    assert [c["outcome"] for c in summary["cycle_metrics"]] == ["implementer_failed"] * 2


def test_refactors_that_break_or_weaken_tests_are_reverted(
    kata: Path, work: Path, server: FakeOpenAIServer
) -> None:
    server.enqueue(ks.tester(1))
    server.enqueue(ks.implementer(1))
    server.enqueue(ks.refactorer("def fizzbuzz(n):\n    return str(n + 1)\n", "breaks it"))
    server.enqueue(
        file_block(
            ks.TEST_PATH,
            "from fizzbuzz import fizzbuzz\n\n\ndef test_one_is_returned_as_a_string():\n    fizzbuzz(1)\n",
        )
    )
    server.enqueue(ks.refactorer("def fizzbuzz(number):\n    return str(number)\n", "clearer name"))
    code, summary, stderr = _kata(kata, work, server, "--max-cycles", "1")
    assert code == 0, stderr
    assert "the refactoring broke the tests" in _user(server.requests[3])
    assert "assertion count went down from 1 to 0" in _user(server.requests[4])
    subjects = [s for _, s in _history(work)]
    assert subjects[-1] == "refactor(cycle 1): after one is returned as a string: clearer name"
    assert _git(work, "show", "HEAD:tests/test_fizzbuzz.py") == ks.test_source(1)
    assert summary["cycle_metrics"][0]["refactor"] == "committed"
    assert summary["cycle_metrics"][0]["retries"]["refactorer"] == 2


def test_refactor_reverted_three_times_is_skipped(
    kata: Path, work: Path, server: FakeOpenAIServer
) -> None:
    server.enqueue(ks.tester(1))
    server.enqueue(ks.implementer(1))
    for _ in range(3):
        server.enqueue(ks.refactorer("def fizzbuzz(n):\n    return n\n", "breaks it"))
    code, summary, stderr = _kata(kata, work, server, "--max-cycles", "1")
    assert code == 0, stderr
    assert summary["cycle_metrics"][0]["refactor"] == "skipped"
    assert [s for _, s in _history(work)][-1].startswith("green(cycle 1)")
    assert (work / "fizzbuzz.py").read_text() == ks.code(1)
    assert _git(work, "status", "--porcelain") == ""


def test_syntax_error_test_is_not_accepted_as_red(
    kata: Path, work: Path, server: FakeOpenAIServer
) -> None:
    broken = "from fizzbuzz import fizzbuzz\n\n\ndef test_one_is_returned_as_a_string(:\n    assert fizzbuzz(1) == '1'\n"
    server.enqueue(file_block(ks.TEST_PATH, broken))
    server.enqueue(ks.tester(1))
    server.enqueue(ks.implementer(1))
    server.enqueue(ks.NO_CHANGES)
    code, summary, stderr = _kata(kata, work, server, "--max-cycles", "1")
    assert code == 0, stderr
    retry = _user(server.requests[1])
    assert "does not compile" in retry and "SyntaxError" in retry
    assert _git(work, "show", "HEAD:tests/test_fizzbuzz.py") == ks.test_source(1)
    assert summary["cycle_metrics"][0]["retries"]["tester"] == 1


def test_kill_minus_nine_mid_cycle_then_resume(
    kata: Path, work: Path, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    server.enqueue(ks.tester(1))
    server.enqueue(ks.implementer(1))
    server.enqueue(ks.NO_CHANGES)
    server.enqueue(ks.tester(2))
    server.delay(60, ks.implementer(2))  # the Implementer of cycle 2 is waiting when we kill
    base = clean_env()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tddforge", *_args(kata, work, server, "--max-cycles", "2")],
        env=base,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while len(server.requests) < 5 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert len(server.requests) == 5, "the session never reached cycle 2's Implementer"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    saved = json.loads((work / ".tddforge" / "session.json").read_text())
    assert saved["cycles"][1]["completed_phases"] == ["testing"]
    assert len(_history(work)) == 2  # scaffold + cycle 1; the RED test is staged, not committed
    (work / "fizzbuzz.py").write_text("half written by the killed implementer")

    server.enqueue(ks.implementer(2))
    server.enqueue(ks.NO_CHANGES)
    code, summary, stderr = _kata(kata, work, server, "--resume")
    assert code == 0, stderr
    assert summary["resumed"] == 1 and summary["green_cycles"] == 2
    assert _system(server.requests[5]).startswith(
        "You are an Implementer agent"
    )  # not the Tester again
    history = _history(work)
    assert [s for _, s in history][1:] == [
        "green(cycle 1): one is returned as a string",
        "green(cycle 2): three is fizz",
    ]
    for sha, subject in history[1:]:
        returncode, output = _tree_is_green(work, sha, tmp_path / "trees")
        assert returncode == 0, (subject, output)
    assert summary["run_id"] == saved["run_id"]


@pytest.mark.parametrize(
    "case", ["missing_kata", "busy_dir", "no_model", "unreachable", "resume_nothing"]
)
def test_bad_input_is_one_error_line_and_nothing_written(
    case: str, kata: Path, work: Path, tmp_path: Path
) -> None:
    env = {"TDDFORGE_MAX_RETRIES": "0", "TDDFORGE_REQUEST_TIMEOUT": "5"}
    args = [
        "kata",
        str(kata),
        "--work-dir",
        str(work),
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
    ]
    if case == "missing_kata":
        args[1] = str(tmp_path / "nope.md")
    elif case == "busy_dir":
        work.mkdir()
        (work / "notes.txt").write_text("mine")
    elif case == "no_model":
        args = args[:4]
    elif case == "resume_nothing":
        args.append("--resume")
    result = run_cli(*args, env=env)
    assert result.returncode == 2, result.stderr
    lines = error_lines(result.stderr)
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    if case == "busy_dir":
        assert sorted(p.name for p in work.iterdir()) == ["notes.txt"]
    else:
        assert not work.exists()
