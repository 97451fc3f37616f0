"""A suite's mutation verdicts taken from an earlier scoring in the same cover run (pure).

Within one cover run the module under test never changes (the lab restores its
bytes after every run). When every test of a suite was scored before and is
unchanged since (the same fingerprint, ``mutation.fingerprints``), the earlier
scoring already holds each mutant's verdict for the suite:

- killed by a test the suite keeps: killed by it (it ran the mutant and failed);
- killed at collection (the mutated module cannot run): killed, when the suite
  keeps every test (the report does not say which tests reach such a mutant);
- survived: survived, by the kept tests among those it ran (they all passed; a
  survivor's ``ran`` is every test that reaches it), or no-coverage when the
  suite keeps none of them;
- no-coverage: no-coverage;
- timed out: timed out, when the suite keeps the test it timed out in (the
  report's ``killer``), or every test its child ran when that test is not known:
  the same test loops again, and running it again waits out its budget for the
  same verdict.

A kill by a test the suite no longer has, or an error, cannot be known without
running: ``derive`` then gives None and the lab asks the worker, whose own
cache reuses what it can prove.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace

from tddforge.mutation.report import MutantResult, MutationReport
from tddforge.target.reuse import test_keys


@dataclass(frozen=True)
class Scoring:
    """One scoring the worker did: its report, and the fingerprints of the tests it scored
    (``fingerprints.file_fingerprints`` of the suite as written then)."""

    report: MutationReport
    prints: Mapping[str, str]

    @property
    def tests(self) -> frozenset[str]:
        """The node ids scored (every one passed the worker's baseline)."""
        return frozenset(self.report.test_seconds)


def derive(
    before: Scoring, tests: Collection[str], prints: Mapping[str, str]
) -> MutationReport | None:
    """The report of scoring ``tests`` (node ids; ``prints``: the suite's fingerprints now),
    when ``before`` decides every mutant's verdict; None when some mutant has to run."""
    kept = frozenset(tests)
    if not kept or not kept <= before.tests:
        return None
    if not all(_unchanged(n, before.prints, prints) for n in kept):
        return None
    whole = kept == before.tests
    results = []
    for result in before.report.results:
        found = verdict(result, kept, whole=whole)
        if found is None:
            return None
        results.append(found)
    return _report(before.report, kept, results)


def verdict(result: MutantResult, kept: frozenset[str], *, whole: bool) -> MutantResult | None:
    """``result`` for a suite of the ``kept`` tests alone (``whole``: every test scored
    with it), or None when it cannot be known without running the mutant."""
    ran = tuple(n for n in result.ran if n in kept)
    if result.verdict == "killed":
        killer = result.killer or ""
        return _reused(result, "killed", ran) if killer in kept or whole else None
    if result.verdict == "survived":
        return _reused(result, "survived" if ran else "no-coverage", ran)
    if result.verdict == "no-coverage":
        return _reused(result, "no-coverage", ())
    if result.verdict == "timeout" and (
        whole or result.killer in kept or (result.ran and set(result.ran) <= kept)
    ):
        return _reused(result, "timeout", ran)
    return None


def _reused(result: MutantResult, verdict: str, ran: tuple[str, ...]) -> MutantResult:
    killer = result.killer if verdict in ("killed", "timeout") else None
    return replace(result, verdict=verdict, killer=killer, ran=ran, duration=0.0, reused=True)


def _unchanged(nodeid: str, before: Mapping[str, str], now: Mapping[str, str]) -> bool:
    """Whether the test's fingerprint is the same: its class's, or its own as a method."""
    return any(key in before and before[key] == now.get(key) for key in test_keys(nodeid))


def _report(
    before: MutationReport, kept: frozenset[str], results: list[MutantResult]
) -> MutationReport:
    """``before`` as the worker would have reported the ``kept`` tests alone (no time spent)."""
    seconds = {n: s for n, s in before.test_seconds.items() if n in kept}
    return MutationReport(
        before.module,
        before.source,
        results,
        len(kept),
        0.0,
        warnings=list(before.warnings),
        baseline_seconds=sum(seconds.values()),
        collect_seconds=before.collect_seconds,
        test_seconds=seconds,
        test_lines={n: lines for n, lines in before.test_lines.items() if n in kept},
        collect_lines=before.collect_lines,
    )
