"""The cover loop's Router: ENHANCE or FINISH, and the progress tracking that feeds it (pure)."""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from tddforge.decisions.critique import Critique

#: The Router's two answers.
Route = Literal["ENHANCE", "FINISH"]
ENHANCE: Route = "ENHANCE"
FINISH: Route = "FINISH"
COVERAGE_PROGRESS = 1.0  # percentage points
MUTATION_PROGRESS = 2.0
STAGNATION_LIMIT = 2


def decide(critique: Critique, iterations_done: int, max_iterations: int) -> Route:
    """FINISH at the iteration limit, without progress, or with both targets met; else ENHANCE."""
    if iterations_done >= max_iterations:
        return FINISH
    if critique.no_progress:
        return FINISH
    if critique.compile_error:
        return ENHANCE  # try to fix compilation
    if not critique.low_coverage and not critique.low_mutation:
        return FINISH  # targets met
    return ENHANCE


def made_progress(critique: Critique) -> bool:
    """coverage_delta ≥ 1.0 or mutation_delta ≥ 2.0; the first attempt has nothing to compare."""
    if critique.coverage_delta is None and critique.mutation_delta is None:
        return True
    return (critique.coverage_delta or 0.0) >= COVERAGE_PROGRESS or (
        critique.mutation_delta or 0.0
    ) >= MUTATION_PROGRESS


def track_progress(critique: Critique, stagnation_count: int) -> Critique:
    """The critique with ``stagnation_count`` and ``no_progress`` updated.

    No progress while a target is still missed adds one; progress resets the
    count (stagnation means attempts *in a row* without improvement).
    """
    if made_progress(critique):
        count = 0
    elif critique.low_coverage or critique.low_mutation:
        count = stagnation_count + 1
    else:
        count = stagnation_count
    return replace(critique, stagnation_count=count, no_progress=count >= STAGNATION_LIMIT)


def finish_reason(critique: Critique, iterations_done: int, max_iterations: int) -> str:
    """Why the loop finished, in words for the report."""
    if not critique.low_coverage and not critique.low_mutation and not critique.compile_error:
        return "targets_met"
    if critique.no_progress:
        return "no_progress"
    if iterations_done >= max_iterations:
        return "max_iterations"
    return "finished"
