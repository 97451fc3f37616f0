"""The ``--max-cost`` cap stops every LLM mode the same way: cleanly, summary written, exit 1.

Each session runs against the fake server as ``gpt-4o`` (a priced model) with a cap
one call passes: the first request is answered, the next one is never sent.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tddforge.llm.fakeserver import FakeOpenAIServer

from . import cover_samples as s
from . import kata_script as ks
from .conftest import DATA, file_block, run_cli

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

CAP = ["--model", "gpt-4o", "--max-cost", "0.000001"]
USAGE = (1000, 100)  # $0.0035 at gpt-4o's price: past the cap after one call


def _json(stdout: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(stdout)
    return data


def test_kata_stops_cleanly_with_the_summary_written_and_resumes(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    kata = tmp_path / "KATA.md"
    shutil.copyfile(DATA / "katas" / "fizzbuzz" / "KATA.md", kata)
    work = tmp_path / "work"
    server.enqueue(ks.tester(1), usage=USAGE)
    args = ["kata", str(kata), "--work-dir", str(work), "--base-url", server.base_url, "--json"]
    done = run_cli(*args, *CAP)
    assert done.returncode == 1, done.stderr
    summary = _json(done.stdout)
    assert summary["stop_reason"] == "budget" and summary["exit_code"] == 1
    assert len(server.requests) == 1  # the Implementer's request was never sent
    stored = json.loads((Path(summary["run_dir"]) / "summary.json").read_text())
    assert stored == summary
    assert "max-cost" in done.stderr
    # the RED test stays staged for the resumed session, which goes on from GREEN
    server.enqueue(ks.implementer(1), usage=USAGE).enqueue(ks.NO_CHANGES).enqueue(ks.KATA_COMPLETE)
    resumed = run_cli(*args, "--resume", "--model", "gpt-4o")
    assert resumed.returncode == 0, resumed.stderr
    again = _json(resumed.stdout)
    assert again["stop_reason"] == "kata_complete" and again["green_cycles"] == 1


def test_build_stops_in_green_with_the_stage_artifact_written(
    calc_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    tests = "from calc import Calculator\n\n\ndef test_tc001_add():\n    assert Calculator().add(2, 3) == 5\n"
    server.enqueue(file_block("tests/test_calc.py", tests), usage=USAGE)
    done = run_cli(
        "build",
        str(calc_spec),
        "--project",
        str(project),
        "--base-url",
        server.base_url,
        "--json",
        *CAP,
    )
    assert done.returncode == 1, done.stderr
    stages = _json(done.stdout)
    assert stages["red"]["valid"] is True and stages["green"]["valid"] is False
    assert stages["green"]["stopped"].startswith("budget:")
    assert len(server.requests) == 1
    green = project / ".tddforge" / "artifacts" / "SPEC-CALC-1" / "green.yaml"
    assert yaml.safe_load(green.read_text())["stopped"].startswith("budget:")
    assert "max-cost budget was reached" in done.stderr


def test_red_stops_before_the_repair_request_with_the_artifact_written(
    calc_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    server.enqueue("I would rather describe the tests in words.", usage=USAGE)
    done = run_cli(
        "red",
        str(calc_spec),
        "--project",
        str(project),
        "--base-url",
        server.base_url,
        "--json",
        *CAP,
    )
    assert done.returncode == 1, done.stderr
    artifact = _json(done.stdout)
    assert artifact["valid"] is False
    assert any(w.startswith("stopped early: budget:") for w in artifact["warnings"])
    assert len(server.requests) == 1
    assert (project / ".tddforge" / "artifacts" / "SPEC-CALC-1" / "red.yaml").is_file()


def test_cover_stops_after_the_first_attempt_with_the_report_written(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    project = s.numbers_project(tmp_path / "numbers")
    server.enqueue(s.SUITE_1, usage=USAGE)
    done = run_cli(
        "cover",
        str(project / "numbers_mod.py"),
        "--project",
        str(project),
        "--base-url",
        server.base_url,
        "--json",
        "--coverage-target",
        "100",
        "--mutation-target",
        "100",
        *CAP,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    report = _json(done.stdout)
    assert report["stop_reason"] == "budget" and len(report["attempts"]) == 1
    assert len(server.requests) == 1
    assert json.loads((Path(report["run_dir"]) / "cover.json").read_text()) == report
    assert report["final"]["tests_kept"]
