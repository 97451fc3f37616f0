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


def _signed(delta: float | None) -> str:
    return "n/a" if delta is None else f"{delta:+.1f}"


def progress_note(critique: Critique) -> str | None:
    """What the attempt gained, when that is below the progress threshold; None otherwise
    (progress, or a first attempt with nothing to compare)."""
    if made_progress(critique):
        return None
    # an attempt whose score is unavailable gained nothing known, not minus the last score
    mutation = None if critique.mutation_score is None else critique.mutation_delta
    return (
        f"gains below the progress threshold ({_signed(critique.coverage_delta)} coverage,"
        f" {_signed(mutation)} mutation; needs +{COVERAGE_PROGRESS:.1f} or"
        f" +{MUTATION_PROGRESS:.1f})"
    )


def stop_detail(reason: str, critique: Critique, iterations_done: int) -> str:
    """``finish_reason``'s reason said in full: what happened, with the figures."""
    if reason == "no_progress":
        return (
            f"{critique.stagnation_count} attempts in a row with "
            f"{progress_note(critique) or 'no progress'}"
        )
    if reason == "targets_met":
        return "the coverage and mutation targets are met"
    if reason == "max_iterations":
        return f"{iterations_done} attempt(s) made, the most allowed (max_iterations)"
    return ""


def finish_reason(critique: Critique, iterations_done: int, max_iterations: int) -> str:
    """Why the loop finished, as a stable name (``stop_detail`` says it in full)."""
    if not critique.low_coverage and not critique.low_mutation and not critique.compile_error:
        return "targets_met"
    if critique.no_progress:
        return "no_progress"
    if iterations_done >= max_iterations:
        return "max_iterations"
    return "finished"
