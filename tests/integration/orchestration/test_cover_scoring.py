"""A builtin cover run, for real, runs each mutant once per set of tests that reach it.

A small project in tmp_path with a mutant that loops forever; the builtin
generator, the sandbox, pytest, coverage.py and the warm mutation worker, every
request the worker answers recorded. Then the written suite is scored from
scratch (``tddforge mutate --no-cache``'s cold run): the report gave the same verdicts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tddforge.builtin.generator import BuiltinSuiteGenerator
from tddforge.config import Settings
from tddforge.mutation.cache import VerdictCache
from tddforge.mutation.engine import MutationJob, WarmWorker, score
from tddforge.mutation.report import MutationReport
from tddforge.orchestration.cover_loop import CoverOptions, load_target, run_cover
from tddforge.types import Tally

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PY = Path(sys.executable)
STEPS = '''\
"""Halving steps and size labels."""


def steps(n: int) -> int:
    count = 0
    while n > 1:
        n = n // 2
        count += 1
    return count


def label(n: int) -> str:
    if n < 0:
        raise ValueError(f"negative: {n}")
    if n == 0:
        return "zero"
    if n < 10:
        return "small"
    return "large"
'''


def _settings() -> Settings:
    """As ``tddforge cover --engine builtin`` sets them, with fewer reruns."""
    settings = Settings()
    update = {"reruns": 3, "mypy": False, "parallel_reruns": True, "aim_for_best": True}
    return settings.model_copy(update={"cover": settings.cover.model_copy(update=update)})


def _recording(monkeypatch: pytest.MonkeyPatch) -> list[MutationReport]:
    """Every report the warm worker gives from now on, in order."""
    reports: list[MutationReport] = []
    scored = WarmWorker.score

    def recorded(
        self: WarmWorker,
        job: MutationJob,
        progress: Tally | None = None,
        *,
        cache: VerdictCache | None = None,
    ) -> MutationReport:
        report = scored(self, job, progress, cache=cache)
        reports.append(report)
        return report

    monkeypatch.setattr(WarmWorker, "score", recorded)
    return reports


def test_each_mutant_runs_once_per_set_of_tests_and_the_report_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "steps.py").write_text(STEPS, encoding="utf-8")
    options = CoverOptions(project, project / "steps.py", PY, "test_steps_x.py", workers=2)
    settings = _settings()
    reports = _recording(monkeypatch)
    writer = BuiltinSuiteGenerator(settings, PY, budget=5.0)
    outcome = run_cover(load_target(options), writer, None, settings, options, lambda _: None)
    final: dict[str, Any] = outcome.data["final"]
    assert final["test_file"] == "test_steps_x.py" and final["tests_kept"]

    first = {r.mutant.id: r for r in reports[0].results}
    looping = [i for i, r in first.items() if r.verdict == "timeout"]
    assert looping, "n // 1 loops forever"
    # a mutant runs again only when the tests that reach it changed (a new or an edited
    # test), never against the same tests twice: the worker's cache reuses the rest, and
    # a suite whose every verdict an earlier scoring decides (the final one, pruned from
    # an attempt: the timeout's tests are all kept) is not scored again
    runs = [(r.mutant.id, frozenset(r.ran)) for rep in reports for r in rep.results if not r.reused]
    assert len(runs) == len(set(runs)), sorted(runs)
    assert outcome.run_dir is not None
    events = [
        json.loads(line)
        for line in (outcome.run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    scorings = [e for e in events if e["event"] == "mutation"]
    assert [e["ran"] for e in scorings if not e["derived"]] == [
        sum(not r.reused for r in rep.results) for rep in reports
    ]

    # the written suite scored from scratch: the same score, the same survivors
    fresh = score(
        MutationJob(project, project / "steps.py", ("test_steps_x.py",), PY, use_cache=False),
        settings,
    )
    assert fresh.strict_score is not None
    assert final["mutation_score"] == round(fresh.strict_score, 2)
    assert {r["id"] for r in final["likely_equivalent"]} == set(fresh.likely_equivalent())
    assert {r.mutant.id: r.verdict for r in fresh.results}[looping[0]] == "timeout"
