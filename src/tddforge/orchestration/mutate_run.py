"""``tddforge mutate``: score modules' mutants, optionally verify them, store the report.

The engine (``mutation.engine``) does the scoring; this module makes it a
workflow: what to mutate (``mutation.layout``: paths given, configured or
found), the verdict cache, the run directory (``mutation.json`` and
``mutation.md``), the ``--verify`` comparison against a fresh interpreter per
mutant, a Markdown summary for CI, and the goal (``--fail-under``, and no
verdict difference when verifying). One module file named alone gives that
module's report as ``tddforge mutate MODULE`` always has; anything else, the
project report (a table per module).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tddforge.config import Settings
from tddforge.mutation.cache import VerdictCache
from tddforge.mutation.engine import (
    MutationJob,
    run_ground_truth,
    score,
    score_project,
    verdict_differences,
    verify_project,
)
from tddforge.mutation.ground_truth import project_differences
from tddforge.mutation.layout import read_layout
from tddforge.mutation.project import SUMMARY_SURVIVORS
from tddforge.mutation.report import same_here_note
from tddforge.outcome import Outcome
from tddforge.store.rundir import RunDir
from tddforge.types import Tally


@dataclass(frozen=True)
class MutateRequest:
    """What the user named: paths and tests (each may be empty), and how to run."""

    project: Path
    paths: tuple[Path, ...]
    tests: tuple[Path, ...]
    python: Path
    workers: int
    since_ref: str | None = None
    timeout: float = 3600.0
    use_cache: bool = True
    scope: str | None = None  # None: the configured one


@dataclass(frozen=True)
class MutateOptions:
    """What the user asked of the run beyond the job: a floor, a verification, progress."""

    fail_under: float | None = None
    verify: bool = False
    tally: Tally | None = None  # mutants scored
    verify_tally: Tally | None = None  # reference runs done
    every: bool = False  # list every mutant in the JSON
    summary: Path | None = None  # a file the Markdown report is appended to (CI)


def job_for(request: MutateRequest, settings: Settings) -> tuple[MutationJob, bool]:
    """The job for ``request``, and whether it names one module alone (InputError, one line,
    on a path outside the project, nothing to mutate, or no tests)."""
    layout = read_layout(request.project, settings.mutate, request.paths, request.tests)
    single = len(request.paths) == 1 and request.paths[0].is_file()
    job = MutationJob(
        project=request.project,
        module=layout.modules[0],
        tests=layout.tests,
        python=request.python,
        workers=request.workers,
        since_ref=request.since_ref,
        timeout=request.timeout,
        use_cache=request.use_cache,
        modules=() if single else layout.modules,
        scope=request.scope or settings.mutate.scope,
    )
    return job, single


def run_mutate(
    job: MutationJob, settings: Settings, options: MutateOptions, single: bool = True
) -> Outcome:
    """Score ``job``'s mutants; the data is the report (with ``verify`` when asked)."""
    if not single:
        return _run_project(job, settings, options)
    cache = VerdictCache(job.project / ".tddforge" / "mutation-cache")
    report = score(job, settings, options.tally, cache=cache)
    data: dict[str, Any] = report.to_data(options.every)
    run = RunDir.create(job.project, "mutate")
    run.write_data("mutation.json", data)  # kept even if the verification fails
    run.write_text("mutation.md", report.to_markdown())
    headline = report.score_without_equivalent()  # likely-equivalent survivors left out
    met = options.fail_under is None or (headline or 0.0) >= options.fail_under
    reason = "scored" if met else "below_fail_under"
    if options.verify:
        mutants = [r.mutant for r in report.results]
        truth = run_ground_truth(job, settings, mutants, options.verify_tally, report=report)
        diffs = verdict_differences(report, truth)
        data["verify"] = {
            "differences": [{"id": i, "ours": a, "ground_truth": b} for i, a, b in diffs]
        }
        if diffs and met:
            met, reason = False, "verdicts_differ"
        run.write_data("mutation.json", data)
    _append_summary(options.summary, report.to_markdown())
    return Outcome("mutate", met, reason, data, run.path, (run.path / "mutation.json",))


def _run_project(job: MutationJob, settings: Settings, options: MutateOptions) -> Outcome:
    cache = VerdictCache(job.project / ".tddforge" / "mutation-cache")
    report = score_project(job, settings, options.tally, cache=cache)
    data = report.to_data(options.every)
    run = RunDir.create(job.project, "mutate")
    run.write_data("mutation.json", data)  # kept even if the verification fails
    run.write_text("mutation.md", report.to_markdown())
    headline = report.score()
    met = options.fail_under is None or (headline or 0.0) >= options.fail_under
    reason = "scored" if met else "below_fail_under"
    if options.verify:
        truth = verify_project(
            replace(job, use_cache=False), settings, report, options.verify_tally
        )
        diffs = project_differences(report, truth)
        data["verify"] = {
            "differences": [
                {"module": m, "id": i, "ours": a, "ground_truth": b} for m, i, a, b in diffs
            ]
        }
        if diffs and met:
            met, reason = False, "verdicts_differ"
        run.write_data("mutation.json", data)
    _append_summary(options.summary, report.to_markdown(SUMMARY_SURVIVORS))
    return Outcome("mutate", met, reason, data, run.path, (run.path / "mutation.json",))


def _append_summary(path: Path | None, markdown: str) -> None:
    """Append the Markdown report to ``path`` (GitHub's ``$GITHUB_STEP_SUMMARY`` is one)."""
    if path is not None:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(markdown + "\n")


def summary_lines(outcome: Outcome) -> list[str]:
    """What the terminal shows of a mutate run: verification, scores, survivors, the report."""
    data = outcome.data
    lines = _verify_lines(data)
    if "totals" in data:
        lines += _project_lines(data)
    else:
        lines += _module_lines(data)
    lines.append(f"report: {outcome.files[0]} and mutation.md")
    return lines


def _verify_lines(data: Any) -> list[str]:
    if "verify" not in data:
        return []
    diffs = data["verify"]["differences"]
    lines = [f"verify: {len(diffs)} verdict difference(s) against a fresh interpreter per mutant"]
    for diff in diffs:
        where = f"{diff['module']} " if "module" in diff else ""
        lines.append(
            f"  differs {where}{diff['id']}: ours {diff['ours']},"
            f" ground truth {diff['ground_truth']}"
        )
    return lines


def _module_lines(data: Any) -> list[str]:
    c = data["counts"]
    lines = [
        f"mutation score {_pct(data['score_without_equivalent'])} ({_pct(data['score'])}"
        f" counting {data['likely_equivalent']} likely-equivalent survivors;"
        f" strict {_pct(data['strict_score'])}):"
        f" {data['mutants']} mutants, killed {c['killed']}, survived {c['survived']},"
        f" timeout {c['timeout']}, no coverage {c['no-coverage']}, error {c['error']};"
        f" {data['tests']} tests, {data['elapsed']:.1f} s"
        + (f", {data['reused']} verdicts reused" if data["reused"] else "")
    ]
    lines += [f"  warning {w}" for w in data["warnings"]]
    if data.get("same_on_interpreter"):
        lines.append("  " + same_here_note(data["same_on_interpreter"], data["python_version"]))
    return lines + _survivor_lines(data["survivors"])


def _project_lines(data: Any) -> list[str]:
    t = data["totals"]
    c = t["counts"]
    since = f", lines changed since {data['since_ref']}" if data["since_ref"] else ""
    since += ", function bodies only" if data.get("scope") == "functions" else ""
    lines = [
        f"mutation score {_pct(t['score'])} ({_pct(t['score_counting_equivalent'])} counting"
        f" {t['likely_equivalent']} likely-equivalent survivors; strict {_pct(t['strict_score'])}):"
        f" {t['mutants']} mutants in {len(data['modules'])} modules{since}, killed {c['killed']},"
        f" survived {c['survived']}, timeout {c['timeout']}, no coverage {c['no-coverage']},"
        f" error {c['error']}; {data['tests']} tests, {data['elapsed']:.1f} s"
        + (f", {data['reused']} verdicts reused" if data["reused"] else "")
    ]
    width = max([len(row["module"]) for row in data["modules"]] + [6])
    for row in data["modules"]:
        k = row["counts"]
        lines.append(
            f"  {row['module']:<{width}}  {row['mutants']:>5} mutants  {_pct(row['score']):>7}"
            f"  (survived {k['survived']}, timeout {k['timeout']}, no coverage {k['no-coverage']})"
        )
    lines += [f"  warning {w}" for w in data["warnings"]]
    if t.get("same_on_interpreter"):
        lines.append("  " + same_here_note(t["same_on_interpreter"], data["python_version"]))
    return lines + _survivor_lines(data["survivors"])


def _survivor_lines(survivors: list[dict[str, Any]], shown: int = 20) -> list[str]:
    lines = []
    for s in survivors[:shown]:
        where = f"{s['module']}:{s['line']}" if "module" in s else f"line {s['line']}"
        likely = " (likely equivalent)" if s["likely_equivalent"] else ""
        lines.append(
            f"  {s['verdict']} {where} {s['operator']}: {s['original']} → {s['replacement']}{likely}"
        )
    if len(survivors) > shown:
        lines.append(f"  … and {len(survivors) - shown} more (see the report)")
    return lines


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}%"
