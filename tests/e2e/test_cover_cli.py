"""``tddforge cover`` end to end: the real CLI, the openai SDK over loopback, real pytest,
coverage.py, the mutation engine and the sandbox on small projects; only the model is scripted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tddforge.llm import TokenLogprob, mean_token_entropy
from tddforge.llm.fakeserver import FakeOpenAIServer
from tddforge.mutation.generate import find_mutants
from tddforge.sandbox.backend import READ_ONLY_ROOT, choose_backend

from . import cover_samples as s
from .conftest import error_lines, run_cli

pytestmark = [pytest.mark.e2e, pytest.mark.integration]


def cover(
    project: Path,
    module: str,
    server: FakeOpenAIServer,
    *extra: str,
    env: dict[str, str] | None = None,
) -> tuple[int, dict[str, Any], str]:
    done = run_cli(
        "cover",
        str(project / module),
        "--project",
        str(project),
        "--model",
        "fake-model",
        "--base-url",
        server.base_url,
        "--json",
        *extra,
        env=env,
        timeout=300,
    )
    data = json.loads(done.stdout) if done.stdout.strip() else {}
    return done.returncode, data, done.stderr


def prompts(server: FakeOpenAIServer) -> list[str]:
    return [request["messages"][-1]["content"] for request in server.requests]


def test_three_attempts_whose_coverage_and_mutation_rise(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    project = s.numbers_project(tmp_path / "numbers")
    before = (project / "numbers_mod.py").read_bytes()
    tokens = [("def", -0.01), (" test", -0.2), ("_add", -0.05)]
    tops = [[(t, lp), ("x", -6.0)] for t, lp in tokens]
    expected = mean_token_entropy(
        [TokenLogprob(t, lp, tuple(top)) for (t, lp), top in zip(tokens, tops, strict=True)]
    )
    for suite in (s.SUITE_0, s.SUITE_1, s.SUITE_2):
        server.enqueue(suite, logprobs=tokens, top_logprobs=tops)
    code, data, stderr = cover(
        project,
        "numbers_mod.py",
        server,
        "--coverage-target",
        "95",
        "--mutation-target",
        "80",
        env={"LLM_COLLECT_LOGPROBS": "true"},
    )
    assert code == 0, stderr
    attempts = data["attempts"]
    assert [a["decision"] for a in attempts] == ["ENHANCE", "ENHANCE", "FINISH"]
    coverage = [a["coverage"] for a in attempts]
    mutation = [a["mutation_score"] for a in attempts]
    assert coverage[0] < coverage[1] < coverage[2] == 100.0
    assert mutation[0] < mutation[1] < mutation[2]
    assert attempts[0]["branch_coverage"] < attempts[2]["branch_coverage"]
    assert expected and attempts[0]["pre_reliability"]["entropy"] == pytest.approx(expected)
    assert attempts[0]["pre_reliability"]["level"] == "high"
    assert attempts[0]["post_reliability"]["level"] == "needs_review"
    assert attempts[0]["critique"]["low_coverage"] and attempts[1]["critique"]["coverage_delta"] > 1
    final = data["final"]
    assert final["targets_met"] and final["from_attempt"] == 2 and final["coverage"] == 100.0
    assert final["mutation_score"] >= mutation[2]
    assert data["stop_reason"] == "targets_met"
    # The Enhancer was told the missing lines and the surviving mutants with their diffs.
    enhance = prompts(server)[1]
    assert "Current test suite:\nfrom numbers_mod import add" in enhance
    assert "Add coverage for lines: " in enhance and "mutant(s) survived the tests" in enhance
    assert "→" in enhance
    written = (project / final["test_file"]).read_text()
    assert "def test_clamp" in written and "```" not in written
    assert (project / "numbers_mod.py").read_bytes() == before
    run_dir = Path(data["run_dir"])
    assert json.loads((run_dir / "cover.json").read_text())["final"] == final
    assert (run_dir / "attempts" / "1" / "test_suite.py").read_text().startswith("from numbers_mod")
    record = json.loads((run_dir / "attempts" / "2" / "record.json").read_text())
    assert record["decision"] == "FINISH" and record["critique"]["instructions"] == []


def test_stops_on_stagnation_and_keeps_the_best(tmp_path: Path, server: FakeOpenAIServer) -> None:
    project = s.numbers_project(tmp_path / "numbers")
    for _ in range(3):
        server.enqueue(s.SUITE_1)
    code, data, stderr = cover(project, "numbers_mod.py", server, "--max-iterations", "6")
    assert code == 1, stderr
    assert len(data["attempts"]) == 3 and server.pending == 0
    assert [a["critique"]["stagnation_count"] for a in data["attempts"]] == [0, 1, 2]
    assert data["attempts"][-1]["critique"]["no_progress"] is True
    assert data["stop_reason"] == "no_progress"  # stable, for scripts; then said in full:
    assert data["stop_detail"] == (
        "2 attempts in a row with gains below the progress threshold"
        " (+0.0 coverage, +0.0 mutation; needs +1.0 or +2.0)"
    )
    assert data["attempts"][1]["progress"] == data["attempts"][2]["progress"]
    assert data["attempts"][2]["progress"].startswith("gains below the progress threshold")
    said = " ".join(stderr.split())  # the console wraps long lines
    assert "stopped: no_progress (2 attempts in a row with gains below the progress" in said
    assert "; gains below the progress threshold (+0.0 coverage" in said  # progress lines
    assert data["final"]["coverage"] == data["attempts"][0]["coverage"]
    assert data["final"]["tests_kept"]


def test_a_compile_error_attempt_gets_repaired(tmp_path: Path, server: FakeOpenAIServer) -> None:
    project = s.numbers_project(tmp_path / "numbers")
    server.enqueue(s.BROKEN_SYNTAX).enqueue(s.SUITE_2)
    code, data, stderr = cover(project, "numbers_mod.py", server)
    assert code == 0, stderr
    first, second = data["attempts"]
    assert first["critique"]["compile_error"] and first["coverage"] is None
    assert (
        first["critique"]["instructions"][0]
        == "Static analyzer found syntax issues; fix parser errors first."
    )
    assert first["pre_reliability"]["level"] == "low"
    assert first["post_reliability"]["level"] == "discard"
    assert first["decision"] == "ENHANCE"
    assert "- Static analyzer found syntax issues; fix parser errors first." in prompts(server)[1]
    assert "current suite:\n    syntax error: line 3" in prompts(server)[1]  # where, too
    assert second["coverage"] == 100.0 and data["final"]["from_attempt"] == 1


def test_unittest_project_with_src_layout_and_unusable_addopts(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    project = s.shapes_project(tmp_path / "shapes")
    before = (project / "src/shapes/area.py").read_bytes()
    server.enqueue(s.UNITTEST_SUITE)
    code, data, stderr = cover(
        project, "src/shapes/area.py", server, "--max-iterations", "1", "--mutation-target", "10"
    )
    assert code == 0, stderr
    generator = prompts(server)[0]
    assert "You MUST generate tests using Python's built-in unittest framework." in generator
    assert "import the file under test as `shapes.area`" in generator
    assert data["framework"] == "unittest"
    config = data["pytest_config"]
    assert config["config_file"] == "setup.cfg" and not config["usable"]
    assert "--cov" in config["reason"]
    assert "neutral pytest configuration" in stderr
    final = data["final"]
    assert final["test_file"] == "tests/test_area_tddforge.py"
    assert "AreaTests::test_project_conftest_applied" in final["tests_kept"] or any(
        d["test"] == "AreaTests::test_project_conftest_applied" for d in final["tests_dropped"]
    )
    assert data["attempts"][0]["tests"]["stable"] == 4  # the conftest ran: its test passed
    assert final["coverage"] == 100.0
    assert (project / "src/shapes/area.py").read_bytes() == before


def test_flaky_test_dropped_and_module_writes_undone(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    project = s.numbers_project(tmp_path / "numbers")
    before = (project / "numbers_mod.py").read_bytes()
    server.enqueue(s.FLAKY_SUITE)
    _, data, stderr = cover(project, "numbers_mod.py", server, "--max-iterations", "1")
    assert data, stderr
    attempt = data["attempts"][0]
    assert attempt["tests"]["flaky"] == 1 and attempt["tests"]["stable"] >= 2
    final = data["final"]
    dropped = {d["test"]: d["reason"] for d in final["tests_dropped"]}
    assert dropped["test_flaky_every_other_run"].startswith("flaky")
    assert "test_flaky_every_other_run" not in (project / final["test_file"]).read_text()
    if choose_backend() in READ_ONLY_ROOT:  # the module is read-only to the tests: refused
        why = dropped["test_writes_the_module"]
        assert why.startswith("failing: OSError") and "Read-only file system" in why
    else:  # written, and put back
        assert any("numbers_mod.py; its bytes were restored" in n for n in attempt["notes"])
        assert (
            dropped["test_writes_the_module"] == "modifies the module under test (numbers_mod.py)"
        )
    assert "test_classify" in final["tests_kept"]
    assert (project / "numbers_mod.py").read_bytes() == before


def test_a_test_that_breaks_the_run_costs_itself_not_the_suite(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    project = s.numbers_project(tmp_path / "numbers")
    server.enqueue(s.BREAKER_SUITE)
    _, data, stderr = cover(project, "numbers_mod.py", server, "--max-iterations", "1")
    assert data, stderr
    assert data["attempts"][0]["tests"]["pollutes"] == 1
    final = data["final"]
    dropped = {d["test"]: d["reason"] for d in final["tests_dropped"]}
    assert dropped["test_add_after_closing_descriptors"].startswith("pollutes: makes")
    assert {"test_classify", "test_clamp"} <= set(final["tests_kept"])
    written = (project / final["test_file"]).read_text()
    assert "closerange" not in written and "def test_clamp" in written


def test_consistently_failing_test_is_a_suspected_bug(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    project = s.numbers_project(tmp_path / "numbers")
    (project / "numbers_mod.py").write_text(s.BUGGY)
    before = (project / "numbers_mod.py").read_bytes()
    server.enqueue(s.BUG_SUITE)
    code, data, stderr = cover(project, "numbers_mod.py", server, "--max-iterations", "1")
    assert code == 1, stderr
    bugs = data["final"]["suspected_bugs"]
    assert [b["test"] for b in bugs] == ["test_classify_hundred_is_positive"]
    assert bugs[0]["kind"] == "AssertionError" and "large" in bugs[0]["message"]
    assert bugs[0]["source"].startswith("def test_classify_hundred_is_positive")
    assert "possible bug" in stderr
    assert data["final"]["tests_kept"] == ["test_classify_negative"]
    assert (project / "numbers_mod.py").read_bytes() == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.py", "--model", "m"], "module not found"),
        (["bad.py", "--model", "m"], "syntax error at line 1"),
        (["numbers_mod.py", "--engine", "llm"], "model"),
        (["net_mod.py", "--engine", "builtin"], "cannot import net_mod safely"),
        (["native_mod.py"], "No module named 'fastmath_ext'"),
        (["numbers_mod.py", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"], "error"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    tmp_path: Path, args: list[str], message: str
) -> None:
    project = s.numbers_project(tmp_path / "numbers")
    (project / "bad.py").write_text("def f(:\n")
    (project / "net_mod.py").write_text(
        "import socket\n\nsocket.create_connection(('127.0.0.1', 9), timeout=2)\n"
    )
    (project / "native_mod.py").write_text("import fastmath_ext\n\n\ndef f(x):\n    return x\n")
    module, *rest = args
    done = run_cli(
        "cover",
        str(project / module),
        "--project",
        str(project),
        *rest,
        env={"TDDFORGE_MAX_RETRIES": "0", "TDDFORGE_REQUEST_TIMEOUT": "5"},
    )
    assert done.returncode == 2, done.stderr
    lines = error_lines(done.stderr)
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0]
    assert not (project / ".tddforge").exists()
    assert not (project / "tests" / "test_numbers_mod_tddforge.py").exists()


def test_what_the_enhancer_is_told_and_an_equivalence_claim(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    project = s.numbers_project(tmp_path / "numbers")
    mutants = find_mutants(s.NUMBERS)
    claimed = next(m for m in mutants if m.line == 28 and m.operator == "return_none")
    reply = f"{s.SUITE_0}\nEQUIVALENT: {claimed.id}: clamp is never given value > high\n"
    server.enqueue(s.SUITE_0).enqueue(reply).enqueue(s.SUITE_0)
    code, data, stderr = cover(project, "numbers_mod.py", server, "--mutation-target", "90")
    assert code == 1, stderr
    generator, first, second = prompts(server)
    for prompt in (generator, first):
        assert "Test file: tests/test_numbers_mod_tddforge.py" in prompt
        assert "coverage of at least 60% (lines and branches)" in prompt
        assert "a mutation score of at least 90%" in prompt
        assert "tmp_path" not in prompt  # the module touches no file
    # the missing lines once, then quoted under their function; the survivors counted
    assert first.count("coverage for lines") == 1
    assert "    in classify:\n        9 |     if n < 0:\n       10 |" in first
    alive = len(mutants) - 2  # SUITE_0 kills add's two mutants
    assert f"- {alive} mutant(s) survived the tests (showing 10 of {alive})" in first
    assert "(no test runs this line)" in first
    assert "`EQUIVALENT: <mutant id>: <reason>`" in first
    first_ids = {m.id for m in mutants if m.id in first}
    assert len(first_ids) == 10
    # the claim is recorded, the mutant left out of the next prompt, which shows new ones first
    claims = data["attempts"][1]["equivalence_claims"]
    assert [(c["id"], c["accepted"], c["line"]) for c in claims] == [(claimed.id, True, 28)]
    assert claimed.id not in second and "Not listed: 1 you claimed equivalent." in second
    assert f"(showing 10 of {alive - 1}, the ones not shown before first)" in second
    assert not first_ids & {m.id for m in mutants if m.id in second}
    # never trusted: the strict score counts it; the score without it is beside it
    final = data["final"]
    assert final["claimed_equivalent"][0]["final_verdict"] == "no-coverage"
    assert final["mutation_score"] == pytest.approx(100 * 2 / len(mutants), abs=0.01)
    assert final["mutation_score_without_claimed"] == pytest.approx(100 * 2 / 40, abs=0.01)
    said = " ".join(stderr.split())  # the console wraps long lines
    without = f"{final['mutation_score_without_claimed']:.2f}%"
    assert f"mutation 4.88% ({without} without the 1 mutant(s) claimed equivalent)" in said
    assert f"claimed equivalent {claimed.id} (line 28): clamp is never given" in said


VERSIONS = """def split_local(version):
    if "+" in version:
        public, local = version.split("+", 1)
        return public, local
    return version, ""
"""

VERSIONS_SUITE = """from versions import split_local


def test_split_local():
    assert split_local("1.0+abc") == ("1.0", "abc")
    assert split_local("1.0") == ("1.0", "")
"""


def test_a_likely_equivalent_survivor_is_marked_not_shown(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    project = tmp_path / "versions"
    project.mkdir()
    (project / "versions.py").write_text(VERSIONS)
    server.enqueue(VERSIONS_SUITE).enqueue(VERSIONS_SUITE)
    args = ("--max-iterations", "2", "--mutation-target", "100")
    code, data, stderr = cover(project, "versions.py", server, *args)
    assert code == 1, stderr
    (raised,) = [m for m in find_mutants(VERSIONS) if m.replacement == "2"]
    enhance = prompts(server)[1]
    assert raised.id not in enhance and "- Not listed: 1 likely equivalent." in enhance
    (marked,) = data["final"]["likely_equivalent"]
    assert marked["id"] == raised.id and marked["line"] == 3
    assert marked["reason"].startswith("split's maxsplit raised from 1 to 2")
    assert data["attempts"][0]["critique"]["likely_equivalent"][0]["id"] == raised.id
    assert data["final"]["mutation_score"] < 100.0  # still a survivor
    assert "1 surviving mutant(s) likely equivalent" in " ".join(stderr.split())
