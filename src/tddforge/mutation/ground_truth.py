"""``--verify``'s ground truth: each mutant in a fresh interpreter, every test in file order.

The reference run (``tddforge.target``'s ``reference`` entry) does nothing of
the engine's shortcuts, only its CPU budget (``ground_truth_timeout``), so a
difference is one in execution, not in timeout policy.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tddforge.config import Settings
from tddforge.mutation.job import TIMEOUT_FACTOR, TIMEOUT_FLOOR, MutationJob, prepare, worker_config
from tddforge.mutation.mutant import Mutant
from tddforge.mutation.project import ProjectReport
from tddforge.mutation.report import MutationReport
from tddforge.mutation.running import sandbox_for, worker_env, workspace
from tddforge.runner.ship import entry_argv
from tddforge.types import Tally

STARTUP_ALLOWANCE = 3.0  # a fresh interpreter: start-up, pytest import, collection
# The reference reports a failing test the way plain pytest does (the engine's children
# skip that report): a fresh interpreter's first traceback report costs up to a second.
REPORT_ALLOWANCE = 1.0
# The engine's floor at its most (a suite of fast tests gets less there: an endless loop
# ends sooner); a verdict the lower floor changed shows up as a difference.
REFERENCE_FLOOR = TIMEOUT_FLOOR + REPORT_ALLOWANCE
TIMEOUT_TRIES = 2  # runs of a reference that times out, before its verdict is timeout


def ground_truth_timeout(report: MutationReport, mutant: Mutant) -> tuple[float, str]:
    """The CPU budget of ``mutant``'s reference run by the engine's own rule, and the phase
    it counts from: ``"tests"`` (the tests start) or ``"session"`` (collection starts).

    A mutant the engine switches on in live functions gets ``TIMEOUT_FLOOR +
    TIMEOUT_FACTOR x`` its covering tests' baseline time for those tests; the
    reference, which runs every test, gets that plus the other tests' own time
    (twice over, for noise), plus the cost of reporting a failure. A mutant the engine imports fresh (import-time code,
    or a function the collection already ran) gets the whole suite's budget plus
    three collections, counted from collection on, in both. Otherwise --verify
    would report a difference in timeout policy instead of one in execution.
    """
    lines = set(mutant.reached)
    fresh = (
        mutant.strategy != "graft" or not report.test_lines or bool(lines & report.collect_lines)
    )
    if fresh:
        everything = sum(report.test_seconds.values())
        budget = REFERENCE_FLOOR + TIMEOUT_FACTOR * everything + 3 * report.collect_seconds
        return budget, "session"
    covering = {n for n, run in report.test_lines.items() if lines.intersection(run)}
    slow = sum(t for n, t in report.test_seconds.items() if n in covering)
    rest = sum(t for n, t in report.test_seconds.items() if n not in covering)
    return 2 * rest + REFERENCE_FLOOR + TIMEOUT_FACTOR * slow, "tests"


def ground_truth_startup(report: MutationReport) -> float:
    """CPU seconds for a reference run's start-up before its budget starts: the
    interpreter, pytest and its configuration, and for a ``"tests"`` budget the collection
    (a mutant that hangs at import time runs out of them)."""
    return STARTUP_ALLOWANCE + 3 * report.collect_seconds


Budget = tuple[float, float, str] | None  # CPU seconds, start-up seconds, phase
Item = tuple[str, Budget]  # a mutant's id as the worker knows it, its budget


def run_ground_truth(
    job: MutationJob,
    settings: Settings,
    mutants: Sequence[Mutant],
    progress: Tally | None = None,
    *,
    report: MutationReport | None = None,
) -> dict[str, str]:
    """Each of the job's module's ``mutants`` in a fresh interpreter, every test in file
    order: the reference verdicts, by mutant id.

    With the engine's ``report``, slowness is a timeout by the engine's rule: each
    mutant gets ``ground_truth_timeout`` CPU seconds, ``ground_truth_startup``
    before them; the wall-clock limit is a roomy backstop for a mutant that
    blocks without using CPU.
    """
    rel = job.module.resolve().relative_to(job.project.resolve()).as_posix()
    items = [(f"{rel}::{m.id}", _budget(report, m)) for m in mutants]
    found = _reference_runs(job, settings, items, progress)
    return {m.id: found[key] for m, (key, _) in zip(mutants, items, strict=True)}


def verify_project(
    job: MutationJob, settings: Settings, report: ProjectReport, progress: Tally | None = None
) -> dict[tuple[str, str], str]:
    """The reference verdict of every mutant of every module, by (module, mutant id)."""
    items = [
        (f"{module.module}::{r.mutant.id}", _budget(module, r.mutant))
        for module in report.modules
        for r in module.results
    ]
    truth: dict[tuple[str, str], str] = {}
    for key, verdict in _reference_runs(job, settings, items, progress).items():
        module, _, mutant_id = key.partition("::")
        truth[(module, mutant_id)] = verdict
    return truth


def _budget(report: MutationReport | None, mutant: Mutant) -> Budget:
    if report is None:
        return None
    limit, phase = ground_truth_timeout(report, mutant)
    return limit, ground_truth_startup(report), phase


def _reference_runs(
    job: MutationJob, settings: Settings, items: list[Item], progress: Tally | None
) -> dict[str, str]:
    """One fresh interpreter per item, ``job.workers`` at a time."""
    prep = prepare(job, None)
    verdicts: dict[str, str] = {}
    sandbox = sandbox_for(job, settings)
    with workspace(sandbox) as private:
        config = private / "config.json"
        config.write_text(
            json.dumps(worker_config(prep, private / "unused.jsonl")), encoding="utf-8"
        )

        def judge(indexed: tuple[int, Item]) -> tuple[str, str]:
            index, (key, budget) = indexed
            out = private / f"gt-{index}.json"
            argv = entry_argv(job.python, private, "reference", str(config), key, str(out))
            wall = 60.0
            if budget is not None:
                limit, start_up, phase = budget
                argv += [str(limit), str(start_up), phase]
                wall = max(wall, 3 * (limit + start_up))
            verdict = "timeout"
            for _ in range(TIMEOUT_TRIES):  # a timeout is tried again: a busy machine is not a hang
                result = sandbox.run(argv, cwd=job.project, timeout=wall, extra_env=worker_env(job))
                verdict = _ground_verdict(result.timed_out, out)
                if verdict != "timeout":
                    break
            return key, verdict

        with ThreadPoolExecutor(max_workers=job.workers) as pool:
            for key, verdict in pool.map(judge, enumerate(items)):
                verdicts[key] = verdict
                if progress is not None:
                    progress(len(verdicts), len(items))
    sandbox.close()
    return verdicts


def _ground_verdict(timed_out: bool, out: Path) -> str:
    if timed_out:
        return "timeout"
    try:
        return str(json.loads(out.read_text(encoding="utf-8"))["verdict"])
    except (OSError, ValueError, KeyError):
        return "error"


def verdict_differences(
    report: MutationReport, truth: dict[str, str]
) -> list[tuple[str, str, str]]:
    """(mutant id, ours, ground truth) wherever they disagree; no-coverage counts as survived."""
    diffs = []
    for result in report.results:
        ours = "survived" if result.verdict == "no-coverage" else result.verdict
        theirs = truth.get(result.mutant.id)
        if theirs is not None and ours != theirs:
            diffs.append((result.mutant.id, result.verdict, theirs))
    return diffs


def project_differences(
    report: ProjectReport, truth: dict[tuple[str, str], str]
) -> list[tuple[str, str, str, str]]:
    """(module, mutant id, ours, ground truth) wherever they disagree."""
    return [
        (module.module, mutant_id, ours, theirs)
        for module in report.modules
        for mutant_id, ours, theirs in verdict_differences(
            module, {i: v for (m, i), v in truth.items() if m == module.module}
        )
    ]
