"""Every agent's prompt at each phase of scripted sessions, compared with checked-in files.

A change to what a model sees shows up in review as a diff of ``tests/golden/prompts``
(``TDDFORGE_UPDATE_GOLDEN=1`` rewrites them). The same tests assert the facts a prompt
must carry: the latest run as the last test output, the commits made, the answers given.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tddforge.llm.fakeserver import FakeOpenAIServer

from ..golden import check_golden, normalise, render
from . import kata_script as ks
from .conftest import DATA, file_block, run_cli

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

DOCUMENTED = 'def fizzbuzz(n):\n    """The word for ``n``, or ``n`` itself as a string."""\n    return str(n)\n'


def _kata_session(tmp_path: Path, server: FakeOpenAIServer, *extra: str) -> list[str]:
    kata = tmp_path / "KATA.md"
    shutil.copyfile(DATA / "katas" / "fizzbuzz" / "KATA.md", kata)
    work = tmp_path / "work"
    args = ["kata", str(kata), "--work-dir", str(work), "--model", "m"]
    done = run_cli(*args, "--base-url", server.base_url, *extra)
    assert done.returncode == 0, done.stderr
    paths = [(work, "<work>"), (tmp_path, "<tmp>")]
    return [normalise(render(r), paths) for r in server.requests]


def _user(prompt: str) -> str:
    return prompt.split("## user\n", 1)[1]


def _section(prompt: str, title: str) -> str:
    return _user(prompt).split(f"# {title}\n", 1)[1].split("\n# ", 1)[0]


def test_kata_prompts_cycle_by_cycle(tmp_path: Path, server: FakeOpenAIServer) -> None:
    server.enqueue(ks.tester(1))
    server.enqueue(file_block(ks.CODE_PATH, "def fizzbuzz(n):\n    return n\n"))  # still red
    server.enqueue(ks.implementer(1)).enqueue(ks.refactorer(DOCUMENTED, "a docstring"))
    server.enqueue(ks.tester(2)).enqueue(ks.implementer(2)).enqueue(ks.NO_CHANGES)
    prompts = _kata_session(tmp_path, server, "--max-cycles", "2")
    names = [
        "cycle1_tester",
        "cycle1_implementer",
        "cycle1_implementer_retry",
        "cycle1_refactorer",
        "cycle2_tester_after_a_kept_refactor",
    ]
    for name, prompt in zip(names, prompts, strict=False):
        check_golden(f"kata/{name}", prompt)
    tester1, implementer, retry, refactorer, tester2 = prompts[:5]
    assert "ModuleNotFoundError" in _section(implementer, "Last Test Output")
    assert "still failing" in _user(retry)
    assert "1 passed" in _section(refactorer, "Last Test Output")
    assert "ModuleNotFoundError" not in _section(refactorer, "Last Test Output")
    assert "green(cycle 1)" in _section(refactorer, "Recent Commits")
    assert "passed" in _section(tester2, "Last Test Output")
    assert "kept, committed as" in _section(tester2, "Last Refactoring")
    assert "refactor(cycle 1)" in _section(tester2, "Recent Commits")
    assert _user(tester1).count("# Last Test Output") == 1


def test_kata_prompt_after_a_reverted_refactor(tmp_path: Path, server: FakeOpenAIServer) -> None:
    breaking = ks.refactorer("def fizzbuzz(n):\n    return n\n", "simpler")
    server.enqueue(ks.tester(1)).enqueue(ks.implementer(1))
    for _ in range(3):
        server.enqueue(breaking)
    server.enqueue(ks.tester(2)).enqueue(ks.implementer(2)).enqueue(ks.NO_CHANGES)
    prompts = _kata_session(tmp_path, server, "--max-cycles", "2")
    tester2 = prompts[5]
    check_golden("kata/cycle2_tester_after_a_reverted_refactor", tester2)
    assert "reverted after 3 attempt(s)" in _section(tester2, "Last Refactoring")
    assert "1 passed" in _section(tester2, "Last Test Output")


def test_kata_prompt_after_a_clarification(tmp_path: Path, server: FakeOpenAIServer) -> None:
    kata = tmp_path / "KATA.md"
    shutil.copyfile(DATA / "katas" / "fizzbuzz" / "KATA.md", kata)
    work = tmp_path / "work"
    base = ["kata", str(kata), "--work-dir", str(work), "--model", "m", "--base-url"]
    server.enqueue("CLARIFICATION_NEEDED: What is fizzbuzz(0)?\n")
    assert run_cli(*base, server.base_url, "--max-cycles", "1").returncode == 3
    server.enqueue(ks.tester(1)).enqueue(ks.implementer(1)).enqueue(ks.NO_CHANGES)
    resumed = run_cli(*base, server.base_url, "--resume", "--answer", "It is never asked.")
    assert resumed.returncode == 0, resumed.stderr
    requests: list[dict[str, Any]] = server.requests
    prompt = normalise(render(requests[1]), [(work, "<work>"), (tmp_path, "<tmp>")])
    check_golden("kata/cycle1_tester_after_a_clarification", prompt)
    assert "- Q: What is fizzbuzz(0)?\n  A: It is never asked." in _section(
        prompt, "Clarifications"
    )


def test_build_prompts_stage_by_stage(
    tmp_path: Path, server: FakeOpenAIServer, calc_spec: Path
) -> None:
    from .test_build_cli import GREEN, REFACTORED, TESTS

    project = tmp_path / "project"
    project.mkdir()
    server.enqueue(file_block("tests/test_calc.py", TESTS))
    server.enqueue(file_block("calc.py", GREEN))
    server.enqueue(
        file_block("calc.py", REFACTORED) + "\n---\nMESSAGE: docstrings and types\n---\n"
    )
    args = ["build", str(calc_spec), "--project", str(project), "--model", "m"]
    done = run_cli(*args, "--base-url", server.base_url)
    assert done.returncode == 0, done.stderr
    paths = [(project, "<project>"), (tmp_path, "<tmp>")]
    red, green, refactor = (normalise(render(r), paths) for r in server.requests)
    for name, prompt in (("red", red), ("green", green), ("refactor", refactor)):
        check_golden(f"build/{name}", prompt)
    assert "DivisionByZero" in _user(red)  # the component's errors reach RED
    assert "# Specification" in _user(green) and "# Kata Description" not in _user(green)
    assert "red(SPEC-CALC-1)" in _section(green, "Recent Commits")
    assert "green(SPEC-CALC-1)" in _section(refactor, "Recent Commits")
    assert "3 passed" in _section(refactor, "Last Test Output")
    rules = [line.lstrip("- ") for line in red.splitlines() if "ruff format" in line]
    assert rules and all(any(rule in p for rule in rules) for p in (green, refactor))


def test_cover_prompts_generator_and_enhancer(tmp_path: Path, server: FakeOpenAIServer) -> None:
    from . import cover_samples as samples

    project = samples.numbers_project(tmp_path / "numbers")
    server.enqueue(samples.SUITE_0).enqueue(samples.SUITE_1)
    args = ["cover", str(project / "numbers_mod.py"), "--project", str(project), "--model", "m"]
    args += ["--coverage-target", "100", "--mutation-target", "100", "--max-iterations", "2"]
    done = run_cli(*args, "--base-url", server.base_url, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    paths = [(project, "<project>"), (tmp_path, "<tmp>")]
    generator, enhancer = (normalise(render(r), paths) for r in server.requests)
    check_golden("cover/generator", generator)
    check_golden("cover/enhancer", enhancer)
    assert "tests/test_numbers_mod_tddforge.py" in generator  # the test path
    assert "100" in generator and "tmp_path" not in generator  # targets; no I/O rules
    assert "mutant(s) survived the tests" in enhancer and "EQUIVALENT:" in enhancer


def test_red_prompt_of_a_spec_with_constructors_attributes_and_errors(tmp_path: Path) -> None:
    from tddforge.agents.red import RedAgent
    from tddforge.config import RedStageConfig
    from tddforge.llm import ScriptedClient
    from tddforge.spec import load_spec

    spec = load_spec(DATA / "specs" / "ratelimit.yaml")
    messages = RedAgent(ScriptedClient(), RedStageConfig(), tmp_path).messages(spec)
    prompt = render({"messages": [{"role": m.role, "content": m.content} for m in messages]})
    check_golden("build/red_rate_limiter", prompt)
    user = _user(prompt)
    for fact in ("refill_per_second: float", "capacity: int", "RateLimitExceeded", "ValueError"):
        assert fact in user
