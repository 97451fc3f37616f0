"""The mutant-directed phase's decisions (pure): which calls to try on which mutant, which to keep.

After the coverage search, the loop measures the suite and some mutants
survive it. A call *can kill* a mutant when what the written test would
assert about the call (:func:`observed`) differs between the original module
and the mutant. ``plan`` pairs each surviving mutant with the deterministic
calls that ran its lines (or, for code run at import time, which no call
traces, with any calls); ``choose`` then keeps few calls that kill as many
mutants as possible, greedily (a call that kills three mutants beats three
calls that kill one each).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tddforge.builtin.explore import CallResult, Outcome
from tddforge.mutation.mutant import Mutant

Observed = tuple[object, ...]


@dataclass(frozen=True)
class MutantPlan:
    """One surviving mutant and the indexes (into the pool) of the calls to run against it."""

    mutant: Mutant
    calls: tuple[int, ...]


def observed(outcome: Outcome) -> Observed:
    """What the writer's assertions pin down about an outcome (see ``writer._assertions``)."""
    if outcome.kind == "raise":
        return ("raise", outcome.type, outcome.message)
    if outcome.kind != "return":
        return (outcome.kind,)  # a timeout or crash: no test would pass
    if outcome.literal:
        return ("return", outcome.repr, outcome.after)
    if outcome.state:
        return ("return", outcome.type, outcome.state, outcome.after)
    return ("return", outcome.type, outcome.after)


def plan(
    survivors: Sequence[Mutant], pool: Sequence[CallResult], *, per_mutant: int = 12
) -> list[MutantPlan]:
    """For each mutant, up to ``per_mutant`` deterministic calls worth trying, nearest first."""
    usable = [i for i, r in enumerate(pool) if r.deterministic]
    plans = []
    for mutant in survivors:
        lines = set(mutant.lines)
        touching = [i for i in usable if _touches(pool[i], lines)]
        if not touching and not any(_touches(pool[i], lines) for i in range(len(pool))):
            touching = usable  # import-time code: any call may see it
        if touching:
            plans.append(MutantPlan(mutant, tuple(_spread(touching, pool, per_mutant))))
    return plans


def _touches(result: CallResult, lines: set[int]) -> bool:
    return any(a in lines or b in lines for a, b in result.arcs)


def _spread(indexes: list[int], pool: Sequence[CallResult], limit: int) -> list[int]:
    """Up to ``limit`` indexes, taking each target's calls in turn so no target crowds out others."""
    by_target: dict[str, list[int]] = {}
    for i in indexes:
        by_target.setdefault(pool[i].call.target, []).append(i)
    chosen: list[int] = []
    queues = list(by_target.values())
    while len(chosen) < limit and any(queues):
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    return chosen


def kills(
    pool: Sequence[CallResult], runs: Mapping[str, Mapping[int, Outcome]]
) -> dict[int, set[str]]:
    """Pool index → the mutant ids whose outcome for that call differs from the original's."""
    found: dict[int, set[str]] = {}
    for mutant_id, outcomes in runs.items():
        for index, outcome in outcomes.items():
            original = pool[index].outcome
            # a call that hangs on the mutant makes a timeout, which the score does not count
            if outcome.kind != "timeout" and observed(outcome) != observed(original):
                found.setdefault(index, set()).add(mutant_id)
    return found


def choose(killers: Mapping[int, set[str]]) -> list[int]:
    """Greedy cover: calls in the order that kills the most not-yet-killed mutants."""
    left = {index: set(ids) for index, ids in killers.items()}
    chosen: list[int] = []
    while left:
        best = max(sorted(left), key=lambda i: len(left[i]))
        if not left[best]:
            break
        chosen.append(best)
        done = left.pop(best)
        left = {i: ids - done for i, ids in left.items() if ids - done}
    return chosen
