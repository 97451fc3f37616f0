"""Which verdicts of an earlier scoring hold for a suite of some of its tests (a table)."""

from __future__ import annotations

import pytest

from tddforge.mutation.mutant import Mutant
from tddforge.mutation.report import MutantResult, MutationReport
from tddforge.orchestration.cover_reuse import Scoring, derive, verdict

A, B, C = "t.py::test_a", "t.py::test_b", "t.py::test_c"
PRINTS = {"t.py": "file", A: "a", B: "b", C: "c"}
SOURCE = "def f(x):\n    return x + 1\n"


def _result(verdict: str, ran: tuple[str, ...] = (), killer: str | None = None) -> MutantResult:
    mutant = Mutant(f"{verdict}-{len(ran)}", "arithmetic", 2, 13, 2, 14, "+", "-", "graft")
    return MutantResult(mutant, verdict, killer=killer, ran=ran, duration=2.5)


@pytest.mark.parametrize(
    ("before", "kept", "whole", "expected"),
    [
        (_result("killed", (A, B), B), {B, C}, False, ("killed", (B,), B)),
        (_result("killed", (A, B), B), {A, C}, False, None),  # its killer is gone
        (
            _result("killed", (), "collection: TypeError"),
            {A, B, C},
            True,
            ("killed", (), "collection: TypeError"),
        ),
        # which tests reach a mutant killed at collection is not known: a test less may be
        # the one that did
        (_result("killed", (), "collection: TypeError"), {A, B}, False, None),
        (_result("survived", (A, B)), {A, C}, False, ("survived", (A,), None)),
        (_result("survived", (B,)), {A, C}, False, ("no-coverage", (), None)),
        (_result("no-coverage"), {A}, False, ("no-coverage", (), None)),
        # the same child again: the same tests, all kept
        (_result("timeout", (A,)), {A, C}, False, ("timeout", (A,), None)),
        (_result("timeout", (A, B)), {A, C}, False, None),  # without B it may die otherwise
        (_result("timeout"), {A, C}, False, None),
        (_result("timeout"), {A, B, C}, True, ("timeout", (), None)),
        # the test it timed out in is known, and kept: it loops again by itself
        (_result("timeout", (A, B), B), {B, C}, False, ("timeout", (B,), B)),
        (_result("timeout", (A, B), B), {A, C}, False, None),  # that test is gone
        (_result("error", (A,)), {A, B, C}, True, None),
    ],
)
def test_verdict(
    before: MutantResult,
    kept: set[str],
    whole: bool,
    expected: tuple[str, tuple[str, ...], str | None] | None,
) -> None:
    found = verdict(before, frozenset(kept), whole=whole)
    if expected is None:
        assert found is None
    else:
        assert found is not None
        assert (found.verdict, found.ran, found.killer) == expected
        assert (found.mutant, found.reused, found.duration) == (before.mutant, True, 0.0)


def _report(*results: MutantResult) -> MutationReport:
    return MutationReport(
        "m.py",
        SOURCE,
        list(results),
        3,
        4.0,
        warnings=["a neutral configuration"],
        baseline_seconds=0.6,
        collect_seconds=0.3,
        test_seconds={A: 0.1, B: 0.2, C: 0.3},
        test_lines={A: (2,), C: (2,)},
        collect_lines=frozenset({1}),
        mutant_seconds=3.0,
    )


def test_a_suite_of_unchanged_tests_it_scored_needs_no_run() -> None:
    before = Scoring(
        _report(
            _result("killed", (A,), A),
            _result("survived", (A, C)),
            _result("timeout", (C,)),
        ),
        PRINTS,
    )
    report = derive(before, [A, C], {**PRINTS, "t.py": "imports pruned"})
    assert report is not None
    assert [(r.verdict, r.ran) for r in report.results] == [
        ("killed", (A,)),
        ("survived", (A, C)),
        ("timeout", (C,)),
    ]
    assert (report.strict_score, report.tests, report.elapsed) == (100 / 3, 2, 0.0)
    assert report.test_seconds == {A: 0.1, C: 0.3}
    assert report.test_lines == {A: (2,), C: (2,)}
    assert (report.baseline_seconds, report.collect_seconds) == (pytest.approx(0.4), 0.3)
    assert (report.collect_lines, report.warnings) == (frozenset({1}), ["a neutral configuration"])


@pytest.mark.parametrize(
    ("tests", "prints"),
    [
        ([A, "t.py::test_new"], PRINTS),  # a test it never scored
        ([A, C], {**PRINTS, C: "edited"}),  # an edited test
        ([A, C], {"t.py": "file", A: "a"}),
        ([], PRINTS),
    ],
)
def test_a_new_or_edited_test_needs_the_worker(tests: list[str], prints: dict[str, str]) -> None:
    before = Scoring(_report(_result("killed", (A,), A), _result("survived", (A, C))), PRINTS)
    assert derive(before, tests, prints) is None


def test_one_mutant_that_has_to_run_sends_the_whole_suite_to_the_worker() -> None:
    before = Scoring(_report(_result("killed", (A,), A), _result("killed", (B,), B)), PRINTS)
    assert derive(before, [A, C], PRINTS) is None
    assert derive(before, [A, B], PRINTS) is not None


def test_a_test_is_credited_with_the_mutants_it_kills_or_times_out() -> None:
    from types import SimpleNamespace

    from tddforge.orchestration.cover_final import kills

    results = [
        _result("killed", (A,), A),
        _result("timeout", (A, B), B),  # B loops under it: without B it may survive
        _result("timeout", (A, B, C)),  # which test timed out is not known
        _result("survived", (A, B, C)),
    ]
    found = SimpleNamespace(mutation=SimpleNamespace(results=results))
    assert kills(found) == {"test_a": {"killed-1"}, "test_b": {"timeout-2"}}  # type: ignore[arg-type]
