"""Keep only what helps: per-test verdicts over reruns, selection, pruning (pure)."""

from __future__ import annotations

import ast
from dataclasses import replace

import pytest

from tddforge.analysis.checks import observables
from tddforge.decisions.cover_suite import (
    REDUNDANT,
    covered_without,
    function_source,
    polluters,
    prune_source,
    select_tests,
    stability,
    units_by_test,
)
from tddforge.decisions.cover_suite import test_key as key_of
from tddforge.runner import CoverageTotals, FileCoverage, TestOutcome, TestRun


def run(*outcomes: tuple[str, str, str | None]) -> TestRun:
    return TestRun(
        outcomes=tuple(
            TestOutcome(n, o, 0.0, "call", failure_kind=k, message=k) for n, o, k in outcomes
        ),
        collection_errors=(),
        exit_code=0,
        timed_out=False,
        duration=0.0,
        output="",
    )


@pytest.mark.parametrize(
    ("nodeid", "key"),
    [("t.py::test_a", "test_a"), ("t.py::T::test_a", "T::test_a"), ("t.py::test_a[1-2]", "test_a")],
)
def test_test_key(nodeid: str, key: str) -> None:
    assert key_of(nodeid) == key


def test_stability_table() -> None:
    ok, bad = ("passed", None), ("failed", "AssertionError")
    runs = [
        run(
            ("t.py::a", *ok),
            ("t.py::b", *ok),
            ("t.py::c", *bad),
            ("t.py::d", "error", "TypeError"),
            ("t.py::p[1]", *ok),
            ("t.py::p[2]", *ok),
        ),
        run(
            ("t.py::a", *ok),
            ("t.py::b", *bad),
            ("t.py::c", *bad),
            ("t.py::d", "error", "TypeError"),
            ("t.py::p[1]", *ok),
            ("t.py::p[2]", *bad),
        ),
        run(
            ("t.py::a", *ok),
            ("t.py::b", *ok),
            ("t.py::c", *bad),
            ("t.py::d", "error", "TypeError"),
            ("t.py::p[1]", *ok),
            ("t.py::p[2]", *ok),
        ),
    ]
    verdicts = stability(runs)
    assert {k: v.status for k, v in verdicts.items()} == {
        "a": "stable",
        "b": "flaky",
        "c": "failing",
        "d": "broken",
        "p": "flaky",
    }
    assert verdicts["c"].suspected_bug and not verdicts["d"].suspected_bug
    assert verdicts["p"].nodeids == ("t.py::p[1]", "t.py::p[2]")


def test_a_test_missing_from_a_rerun_is_not_stable() -> None:
    verdicts = stability([run(("t.py::a", "passed", None)), run()])
    assert verdicts["a"].status == "flaky"


def ordered(*keys: str, bad: str = "") -> TestRun:
    """A run of ``keys`` in that order; those in ``bad`` fail."""
    return run(*((f"t.py::{k}", "failed" if k in bad else "passed", None) for k in keys))


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        # p leaves state behind: v and w fail only when p ran before them
        (
            [
                ordered("v", "p", "w", bad="w"),
                ordered("p", "w", "v", bad="wv"),
                ordered("w", "v", "p"),
            ],
            [("p", ("v", "w"))],
        ),
        # the process broke after p: the rest never ran (missing counts as failed)
        (
            [ordered("a", "v", "w", "p"), ordered("v", "p"), ordered("w", "a", "p")],
            [("p", ("a", "v", "w"))],
        ),
        # v fails unless n ran first: nothing running before it explains its failures
        ([ordered("n", "v", "a"), ordered("v", "n", "a", bad="v"), ordered("a", "n", "v")], []),
        # two polluters, each with its own victim
        (
            [
                ordered("p", "v", "q", "w", bad="vw"),
                ordered("v", "w", "p", "q"),
                ordered("q", "w", "p", "v", bad="wv"),
            ],
            [("p", ("v",)), ("q", ("w",))],
        ),
        # w failed every run, each time after p, which also explains flaky v
        (
            [ordered("p", "v", "w", bad="vw"), ordered("v", "p", "w", bad="w")],
            [("p", ("v", "w"))],
        ),
        # only tests failing every run: no suspects (each may just be wrong)
        ([ordered("a", "b", bad="b"), ordered("a", "b", bad="b")], []),
        # nothing flaky: no suspects
        ([ordered("a", "b"), ordered("b", "a")], []),
    ],
)
def test_polluters_explain_flaky_tests_by_what_ran_before_them(
    runs: list[TestRun], expected: list[tuple[str, tuple[str, ...]]]
) -> None:
    assert polluters(runs, stability(runs)) == expected


def test_polluters_names_at_most_the_limit() -> None:
    runs = [ordered("p", "v", "q", "w", bad="vw"), ordered("v", "w", "p", "q")]
    assert polluters(runs, stability(runs), limit=1) == [("p", ("v", "w"))]


def test_a_collected_test_that_never_ran_is_broken() -> None:
    runs = [replace(ordered("a"), collected=("t.py::a", "t.py::b")) for _ in range(2)]
    verdicts = stability(runs)
    assert verdicts["a"].status == "stable"
    assert (verdicts["b"].status, verdicts["b"].kind) == ("broken", "NotRun")
    assert polluters(runs, verdicts) == [("a", ("b",))]


def test_select_keeps_killers_then_new_coverage() -> None:
    lines = {"a": {1, 2}, "b": {1, 2, 3}, "c": {3}, "d": {1}, "e": {9}}
    kills = {"a": {"m1"}}
    chosen = select_tests(["a", "b", "c", "d", "e"], lines, kills)
    assert chosen.kept == ("a", "b", "e")
    assert set(chosen.dropped) == {"c", "d"}


SAME = {"a": {1, 2}, "b": {1, 2}, "c": {1}}  # b and c run nothing a does not


@pytest.mark.parametrize(
    ("kills", "checks", "kept"),
    [
        ({"a": {"m1"}}, None, ("a",)),  # b and c killed nothing of their own
        ({"a": {"m1"}}, {"a": {"calls parse"}, "b": {"calls parse"}}, ("a",)),
        # the only test expecting a distinct exception type stays
        (
            {"a": {"m1"}},
            {"a": {"calls parse", "raises ValueError"}, "b": {"raises InvalidVersion"}},
            ("a", "b"),
        ),
        # the only test calling a public function (its lines run through another) stays
        ({"a": {"m1"}}, {"a": {"calls parse"}, "c": {"calls Version"}}, ("a", "c")),
        # two tests checking the same new thing: the first is enough
        ({}, {"b": {"raises KeyError"}, "c": {"raises KeyError"}}, ("a", "b")),
        # the one checking most new things first; then nothing is left for the other
        ({}, {"b": {"raises KeyError"}, "c": {"raises KeyError", "calls get"}}, ("a", "c")),
        ({"a": {"m1"}, "b": {"m2"}}, None, ("a", "b")),  # every credited killer stays
    ],
)
def test_select_keeps_what_only_one_test_checks(kills, checks, kept) -> None:
    chosen = select_tests(["a", "b", "c"], SAME, kills, checks)
    assert chosen.kept == kept
    assert chosen.dropped == {k: REDUNDANT for k in "abc" if k not in kept}


def test_the_reason_for_dropping_says_what_is_true() -> None:
    chosen = select_tests(["a", "b"], {"a": {1}, "b": {1}}, {"a": {"m1"}})
    assert chosen.dropped["b"].startswith(
        "redundant: kept tests cover its lines, branches and kills"
    )
    assert "kills no mutant" not in chosen.dropped["b"]


MODULE = """
class InvalidVersion(ValueError):
    pass


class Version:
    def bump(self):
        pass

    def _private(self):
        pass


def parse(text):
    return Version()


def _helper():
    pass
"""

TESTS = """
import pytest
from pkg.version import InvalidVersion, Version, parse, _helper


def _expect_invalid(text):
    with pytest.raises(InvalidVersion):
        parse(text)


def test_parse():
    assert parse("1.0")


def test_invalid():
    _expect_invalid("x")


def test_two_kinds():
    with pytest.raises((KeyError, pkg.Err)):
        _helper()
    with pytest.warns(UserWarning):
        Version()._private()


class TestVersion:
    def test_bump(self):
        self.assertIsNone(Version().bump())
"""


def test_observables_are_expected_types_and_public_calls_through_helpers() -> None:
    assert observables(TESTS, MODULE) == {
        "test_parse": {"calls parse"},
        "test_invalid": {"calls parse", "raises InvalidVersion"},
        "test_two_kinds": {"raises KeyError", "raises Err", "warns UserWarning", "calls Version"},
        "TestVersion::test_bump": {"calls Version", "calls bump"},
    }
    assert observables("def test_a(:\n", MODULE) == {}


def measured(**arcs: frozenset[tuple[int, int]]) -> FileCoverage:
    """Coverage of a run measured per test (``arcs`` by context, "" is ``collection``) of
    a module whose statements start on lines 1-4, with one branch at line 2."""
    by_context = {
        ("" if k == "collection" else f"t.py::{k.replace('__', '::')}"): v for k, v in arcs.items()
    }
    lines: dict[int, list[str]] = {}
    for context, ran in by_context.items():
        for line in sorted({n for arc in ran for n in arc if n > 0}):
            lines.setdefault(line, []).append(context)
    ran = set(lines)
    return FileCoverage(
        path="m.py",
        executed_lines=tuple(sorted(ran)),
        missing_lines=tuple(n for n in range(1, 5) if n not in ran),
        missing_branches=((2, 4),),
        executed_branches=((2, 3),),
        totals=CoverageTotals(4, 3, 2, 1, 70.0),
        contexts={n: tuple(c) for n, c in lines.items()},
        arcs=by_context,
    )


ENTRY, THEN, BACK, RAISE = (-1, 1), (1, 2), (2, 3), (2, -1)
INNER, AFTER = (6, -1), (3, -1)  # from inside the statement starting at 4 (harmless) or at 2


def test_units_by_test_are_lines_and_branches_per_node_id() -> None:
    cov = measured(
        collection=frozenset({ENTRY}), test_a=frozenset({THEN, BACK}), T__test_b=frozenset({THEN})
    )
    units = units_by_test(cov, ["test_a", "T::test_b", "test_c"])
    assert units["test_a"] == {("line", 1), ("line", 2), ("line", 3), BACK}
    assert units["T::test_b"] == {("line", 1), ("line", 2)}  # (1, 2) is not a branch
    assert units["test_c"] == set()


@pytest.mark.parametrize(
    ("arcs", "dropped", "same"),
    [
        ({"test_a": {THEN, BACK}, "test_b": {THEN}}, {"test_b"}, True),
        ({"test_a": {THEN}, "test_b": {THEN, BACK}}, {"test_b"}, False),  # b alone took BACK
        ({"test_a": {THEN}, "test_b": {ENTRY}}, {"test_b"}, True),  # collection ran ENTRY
        ({"test_a": {THEN}, "test_p[1]": {BACK}}, {"test_p"}, False),  # a parametrised case
        ({"test_a": {THEN, BACK}, "test_p[1]": {BACK}}, {"test_p"}, True),
        ({"test_a": {THEN, BACK}, "test_b": {THEN, RAISE}}, {"test_b"}, True),  # not reported
        ({"test_a": {THEN, BACK}, "test_b": {THEN, INNER}}, {"test_b"}, True),
        ({"test_a": {THEN, BACK}, "test_b": {THEN, AFTER}}, {"test_b"}, False),
        ({}, {"test_a"}, False),  # not measured per test
        ({"test_a": {THEN, BACK}}, {"test_b"}, False),  # test_b has no context of its own
    ],
)
def test_covered_without_only_when_nothing_reported_is_lost(
    arcs: dict[str, set[tuple[int, int]]], dropped: set[str], same: bool
) -> None:
    cov = measured(
        **({"collection": frozenset({ENTRY})} if arcs else {}),
        **{k: frozenset(v) for k, v in arcs.items()},
    )
    if arcs.get("test_b") in ({THEN, INNER}, {THEN, AFTER}):  # 6 and 3 are no statement starts
        starts = (1, 2, 4) if AFTER in arcs["test_b"] else (1, 2, 3, 4)
        cov = replace(
            cov,
            executed_lines=tuple(n for n in starts if n != 4),
            missing_lines=(4,),
            contexts={n: c for n, c in cov.contexts.items() if n in starts},
        )
    kept = covered_without(cov, dropped)
    assert (kept is not None) is same
    if kept is not None:
        assert kept.totals == cov.totals and kept.missing_branches == cov.missing_branches
        names = {c for cs in kept.contexts.values() for c in cs} | set(kept.arcs)
        assert not any(c and key_of(c) in dropped for c in names)
        assert "" in kept.arcs


SUITE = """import pytest


def helper():
    return 1


@pytest.mark.parametrize("x", [1, 2])
def test_one(x):
    assert x


def test_two():
    assert helper()


class TestGroup:
    def setup_method(self):
        self.v = 1

    def test_three(self):
        assert self.v


class TestOther:
    def test_four(self):
        assert True
"""


def test_prune_source_keeps_helpers_and_removes_emptied_classes() -> None:
    pruned = prune_source(SUITE, {"test_two", "TestGroup::test_three"})
    ast.parse(pruned)
    assert "def helper" in pruned and "def test_two" in pruned and "def test_three" in pruned
    assert "test_one" not in pruned and "parametrize" not in pruned
    assert "TestOther" not in pruned and "setup_method" in pruned


def test_function_source() -> None:
    assert function_source(SUITE, "test_one").startswith("@pytest.mark.parametrize")
    assert function_source(SUITE, "nope") == ""
