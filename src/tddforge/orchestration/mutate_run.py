"""``tddforge mutate``: score a module's mutants, optionally verify them, store the report.

The engine (``mutation.engine``) does the scoring; this module makes it a
workflow: the verdict cache, the run directory (``mutation.json`` and
``mutation.md``), the ``--verify`` comparison against a fresh interpreter per
mutant, and the goal (``--fail-under``, and no verdict difference when verifying).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tddforge.config import Settings
from tddforge.mutation.cache import VerdictCache
from tddforge.mutation.engine import MutationJob, run_ground_truth, score, verdict_differences
from tddforge.outcome import Outcome
from tddforge.store.rundir import RunDir
from tddforge.types import Tally


@dataclass(frozen=True)
class MutateOptions:
    """What the user asked of the run beyond the job: a floor, a verification, progress."""

    fail_under: float | None = None
    verify: bool = False
    tally: Tally | None = None  # mutants scored
    verify_tally: Tally | None = None  # reference runs done


def run_mutate(job: MutationJob, settings: Settings, options: MutateOptions) -> Outcome:
    """Score ``job``'s mutants; the data is the report (with ``verify`` when asked)."""
    cache = VerdictCache(job.project / ".tddforge" / "mutation-cache")
    report = score(job, settings, options.tally, cache=cache)
    data: dict[str, Any] = report.to_data()
    run = RunDir.create(job.project, "mutate")
    run.write_data("mutation.json", data)  # kept even if the verification fails
    run.write_text("mutation.md", report.to_markdown())
    met = options.fail_under is None or (report.score or 0.0) >= options.fail_under
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
    return Outcome("mutate", met, reason, data, run.path, (run.path / "mutation.json",))
