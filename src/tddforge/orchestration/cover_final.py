"""The final cover suite: from the best attempt, only the tests that help.

``assemble`` takes the best attempt (coverage + mutation), drops the tests that
are not stable over every run or fail alone, then those ``select_tests`` finds
redundant; the pruned suite's figures come from the per-test data when that is
exact (``covered_without``), else from running it again; its mutants are run
again only where the best attempt's scoring does not decide them
(``cover_reuse``). If pruning lowered the figures, the dropped tests stay.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from tddforge.analysis.checks import observables
from tddforge.analysis.static import drop_unused_imports, format_source
from tddforge.decisions import cover_suite as suites
from tddforge.orchestration.cover_lab import Measurement, SuiteLab
from tddforge.orchestration.cover_records import Attempt
from tddforge.types import Progress


def _quality(found: Measurement) -> tuple[float, float]:
    return (found.coverage_percent or 0.0) if found.ran else 0.0, found.mutation_score or 0.0


def _best(attempts: list[Attempt]) -> Attempt | None:
    usable = [a for a in attempts if a.found.ran and a.found.stable]
    return max(usable, key=lambda a: (sum(_quality(a.found)), a.index), default=None)


@dataclass
class Final:
    """The final suite's measurement, the attempt it came from, kept and dropped tests."""

    source: Measurement | None = None
    attempt: int | None = None
    kept: list[str] = field(default_factory=list)
    dropped: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def assemble(attempts: list[Attempt], lab: SuiteLab, progress: Progress) -> Final:
    """The final suite from the best attempt: only its stable tests that help."""
    best = _best(attempts)
    final = Final()
    if best is None:
        return final
    found = best.found
    final.attempt = best.index
    for key, verdict in found.verdicts.items():
        if verdict.status != "stable":
            why = " ".join(part for part in (verdict.kind, verdict.message) if part)
            final.dropped[key] = f"{verdict.status}: {why}".strip()[:300]
    final.dropped.update(found.alone.result() if found.alone else lab.alone(found.stable_verdicts))
    stable = [k for k in found.verdicts if k not in final.dropped]
    if len(stable) < len(found.verdicts):
        found = _remeasure(lab, _pruned(lab, found.code, stable), final)
    killers = kills(found)
    units = suites.units_by_test(found.coverage, found.stable) if found.coverage else {}
    checks = observables(found.code, lab.target.source)
    selection = suites.select_tests(found.stable, units, killers, checks)
    final.dropped.update(selection.dropped)
    if selection.dropped:
        pruned = _without(lab, found, selection, final) or _remeasure(
            lab, _pruned(lab, found.code, selection.kept), final
        )
        if (
            pruned.ran
            and _quality(pruned) >= _quality(found)
            and len(pruned.stable) == len(selection.kept)
        ):
            found = pruned
        else:
            final.notes.append("dropping the tests that add nothing lowered the numbers; kept them")
            for key in selection.dropped:
                final.dropped.pop(key, None)
            lab.write(found.code)
    final.source = found
    final.kept = found.stable
    return final


def _pruned(lab: SuiteLab, code: str, keep: Iterable[str]) -> str:
    """``code`` with only the ``keep`` tests, without the imports only dropped tests used,
    and formatted again when it was formatted (the builtin's is; an LLM's keeps its style)."""
    path, project = lab.target.test_path, lab.project
    pruned = drop_unused_imports(suites.prune_source(code, keep), path, project)
    return (
        format_source(pruned, path, project)
        if format_source(code, path, project) == code
        else pruned
    )


def _without(
    lab: SuiteLab, found: Measurement, selection: suites.Selection, final: Final
) -> Measurement | None:
    """``found`` without the dropped tests, without running the suite again, when that is
    exact: they ran no arc that no other test ran (so the coverage is the same) and the
    kept tests passed every run and alone. The mutants' verdicts follow from ``found``'s
    scoring when it decides them all (``SuiteLab.score``); else the worker scores them,
    its verdict cache reusing what is provably unchanged. None when coverage was not
    measured per test.
    """
    coverage = found.coverage and suites.covered_without(found.coverage, selection.dropped)
    if not coverage:
        return None
    code = _pruned(lab, found.code, selection.kept)
    derived = Measurement(code, lab.analyze(code), coverage=coverage)
    if not derived.static.syntax_ok:
        return None
    derived.verdicts = {k: v for k, v in found.verdicts.items() if k in selection.kept}
    derived.collected = sum(len(v.nodeids) for v in derived.verdicts.values())
    lab.write(code)
    derived.mutation = derived.take(lab.score(derived))
    final.notes += derived.notes
    lab.run.event("pruned_without_rerun", dropped=sorted(selection.dropped))
    return derived


def _remeasure(lab: SuiteLab, code: str, final: Final) -> Measurement:
    found = lab.measure(code, alone=False)  # the final suite's tests were checked alone
    final.notes += found.notes
    return found


def kills(found: Measurement) -> dict[str, set[str]]:
    """Test key → the ids of the mutants it is credited with killing, or with timing out
    (a timeout's ``killer`` is the test that ran out of time: without it, the mutant could
    survive)."""
    kills: dict[str, set[str]] = {}
    for result in found.mutation.results if found.mutation else []:
        if result.verdict in ("killed", "timeout") and result.killer:
            kills.setdefault(suites.test_key(result.killer), set()).add(result.mutant.id)
    return kills
