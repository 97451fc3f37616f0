"""From the worker's events to reports, and to what the cache keeps for the next run.

The worker knows mutants by their module-qualified ids and lines by the
targets' paths; reports and the cache use each module's own mutant ids and
paths relative to the project.
"""

from __future__ import annotations

from tddforge.errors import BaselineError, PytestStartError, RunnerError
from tddforge.mutation.cache import CacheEntry, ModuleEntry, VerdictCache, text_hash
from tddforge.mutation.channel import baseline_event, done_event, error_event, mutant_events
from tddforge.mutation.job import Prepared, Target
from tddforge.mutation.mutant import Mutant
from tddforge.mutation.project import ProjectReport
from tddforge.mutation.report import MutantResult, MutationReport
from tddforge.mutation.shapes import import_run, import_shape
from tddforge.target.protocol import (
    BaselineEvent,
    BaselineRecord,
    DoneEvent,
    Event,
    MutantEvent,
    PriorVerdict,
)


def assemble(
    prep: Prepared,
    lines: list[Event],
    elapsed: float,
    cache: VerdictCache | None,
    stderr: str,
) -> ProjectReport:
    """The run's report (and its cache entry saved); raises on a baseline that failed."""
    baseline = checked_baseline(lines, stderr, prep)
    verdicts = mutant_events(lines)
    done = done_event(lines)
    phases = done["timings"] if done is not None else {}
    mutant_seconds = phases.get("mutants", 0.0)
    results = {
        t.rel: [_result(m, verdicts.get(t.qualified(m.id))) for m in t.mutants]
        for t in prep.targets
    }
    if cache is not None:
        cache.save(prep.key, _entry(prep, baseline, results))
    tests = baseline["tests"]
    seconds = {n: t["duration"] for n, t in tests.items() if t.get("outcome") == "passed"}
    reports = [
        MutationReport(
            t.rel,
            t.source,
            results[t.rel],
            len(tests),
            elapsed,
            baseline_seconds=sum(seconds.values()),
            collect_seconds=baseline["collect_seconds"],
            test_seconds=seconds,
            test_lines=_lines_of(baseline, str(t.path)),
            collect_lines=frozenset(baseline["collect_lines"].get(str(t.path), [])),
            mutant_seconds=mutant_seconds,
            same_here=t.same_here,
            python_version=prep.python_version,
        )
        for t in prep.targets
    ]
    return ProjectReport(
        reports,
        len(tests),
        elapsed,
        mutant_seconds=mutant_seconds,
        baseline_seconds=float(phases.get("baseline", 0.0)),
        since_ref=prep.job.since_ref,
        scope=prep.job.scope,
        strategies=_strategies(done),
        python_version=prep.python_version,
    )


def _strategies(done: DoneEvent | None) -> dict[str, int]:
    """How many mutants ran by each strategy (none when the worker did not finish)."""
    if done is None:
        return {}
    counts = done["counts"]
    return {"graft": counts["graft"], "rebind": counts["rebind"], "fresh": counts["fresh"]}


def _lines_of(baseline: BaselineEvent, target: str) -> dict[str, tuple[int, ...]]:
    """Each test's lines of ``target``, for the tests that ran any."""
    return {
        nodeid: tuple(files[target])
        for nodeid, files in baseline["coverage"].items()
        if files.get(target)
    }


def _entry(
    prep: Prepared, baseline: BaselineEvent, results: dict[str, list[MutantResult]]
) -> CacheEntry:
    """What the next run may reuse: verdicts per module, baseline records, fingerprints."""
    modules = {}
    for target in prep.targets:
        ran = set(baseline["collect_lines"].get(str(target.path), []))
        names = import_run(target.source, ran)
        kept = prep.prior.verdicts_for(target.rel, target.source)
        new = {r.mutant.id: _cached(r) for r in results[target.rel] if r.verdict != "error"}
        modules[target.rel] = ModuleEntry(
            text_hash(target.source),
            import_shape(target.source, set(names)),
            names,
            {**kept, **new},
        )
    records = _baseline_records(baseline, prep.targets)
    return CacheEntry(prep.fingerprints, modules, records, prep.others)


def _baseline_records(baseline: BaselineEvent, targets: list[Target]) -> dict[str, BaselineRecord]:
    """Per-test baseline records (outcome, duration, lines per module) for the cache."""
    rel = {str(t.path): t.rel for t in targets}
    coverage = baseline["coverage"]
    imports = baseline["imports"]
    imported = baseline["imported"]
    writes = baseline.get("writes", {})
    return {
        nodeid: BaselineRecord(
            duration=test["duration"],
            outcome=test["outcome"],
            lines={rel[p]: lines for p, lines in coverage.get(nodeid, {}).items() if p in rel},
            imports={rel[p]: lines for p, lines in imports.get(nodeid, {}).items() if p in rel},
            imported=[rel[p] for p in imported.get(nodeid, []) if p in rel],
            writes=writes.get(nodeid, []),
        )
        for nodeid, test in baseline["tests"].items()
    }


def _one_line(text: object) -> str:
    return " | ".join(part.strip() for part in str(text).splitlines() if part.strip())


def checked_baseline(lines: list[Event], stderr: str, prep: Prepared) -> BaselineEvent:
    """The worker's baseline; the first error it reported, raised, when it reported one."""
    error = error_event(lines)
    baseline = baseline_event(lines)
    if error is None and baseline is not None:
        return baseline
    if error is None:
        tail = stderr.strip().splitlines()[-1:] or ["no output"]
        raise RunnerError(f"the mutation worker produced no baseline: {tail[0]}")
    if error["kind"] == "baseline_failing":
        failing = error.get("failing", [])
        shown = ", ".join(failing[:5]) + (
            f" and {len(failing) - 5} more" if len(failing) > 5 else ""
        )
        raise BaselineError(f"the tests must pass before mutation; failing: {shown}")
    if error["kind"] == "pytest":
        raise PytestStartError(f"the tests cannot run: {_one_line(error.get('message'))}")
    if error["kind"] == "no_tests":
        where = ", ".join(prep.job.tests) or "the project"
        raise BaselineError(f"no tests for {_modules(prep)}: none were collected from {where}")
    if error["kind"] == "collection":
        raise BaselineError(f"the tests cannot run: {_one_line(error.get('message'))}")
    raise RunnerError(f"mutation run failed: {_one_line(error.get('message'))}")


def _modules(prep: Prepared, shown: int = 3) -> str:
    rels = [t.rel for t in prep.targets]
    more = f" and {len(rels) - shown} more" if len(rels) > shown else ""
    return ", ".join(rels[:shown]) + more


def _result(mutant: Mutant, row: MutantEvent | None) -> MutantResult:
    if row is None:
        return MutantResult(mutant, "error", detail="the worker gave no verdict")
    return MutantResult(
        mutant,
        row.get("verdict", "error"),
        killer=row.get("killer"),
        ran=tuple(row.get("ran") or ()),
        duration=float(row.get("duration") or 0.0),
        reused=bool(row.get("reused")),
        detail=row.get("detail"),
        cpu=float(row.get("cpu") or 0.0),
    )


def _cached(result: MutantResult) -> PriorVerdict:
    return PriorVerdict(verdict=result.verdict, killer=result.killer, ran=list(result.ran))
