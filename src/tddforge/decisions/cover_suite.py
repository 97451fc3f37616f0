"""Keep only what helps: per-test verdicts over reruns, and the suite assembled from them (pure).

A test function is identified by its *key*: ``name`` or ``Class::name``
(parametrised instances share their function's key). ``stability`` folds
several runs of one suite into a verdict per key; ``polluters`` names the tests
whose running earlier may explain the flaky ones' failures; ``select_tests`` keeps the
tests that kill a mutant, cover a line or branch no kept test covers, or check
an exception type or public function no kept test checks;
``covered_without`` proves from per-test lines and arcs that leaving tests out
loses no coverage; ``prune_source`` writes the module with only the kept tests.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from tddforge.analysis.checks import test_functions
from tddforge.runner import FileCoverage, TestRun

#: How a test behaved over every run: passed them all; passed some; failed every run the
#: same way; errored; made other tests fail when it ran before them (found by ``polluters``
#: and confirmed by running the tests after it).
StabilityStatus = Literal["stable", "flaky", "failing", "broken", "pollutes"]
#: A collected test's result in a run that ended before reaching it.
NOT_RUN = ("error", "NotRun", "collected, but the run ended before it ran")
#: The most suspects ``polluters`` names: each costs a run to confirm.
POLLUTER_SUSPECTS = 3

_PARAMS = re.compile(r"\[.*\]$")
ASSERTION_KINDS = frozenset({"AssertionError", "Failed"})  # Failed: pytest.raises did not raise


def test_key(nodeid: str) -> str:
    """``Class::name`` (or ``name``) of a node id, without its file and parameters."""
    parts = nodeid.split("::")[1:] or [nodeid]
    return _PARAMS.sub("", "::".join(parts))


@dataclass(frozen=True)
class Stability:
    """How one test function behaved over every run."""

    key: str
    status: StabilityStatus
    nodeids: tuple[str, ...]
    kind: str | None = None
    message: str = ""

    @property
    def suspected_bug(self) -> bool:
        """Fails every run on an assertion about the module's behaviour."""
        return self.status == "failing" and self.kind in ASSERTION_KINDS


def stability(runs: Sequence[TestRun]) -> dict[str, Stability]:
    """A verdict per test function from several runs of the same suite (file order first)."""
    seen: dict[str, dict[str, list[tuple[str, str | None, str]]]] = {}
    for run in runs:
        for o in run.outcomes:
            if o.outcome == "skipped":
                continue
            seen.setdefault(test_key(o.nodeid), {}).setdefault(o.nodeid, []).append(
                (o.outcome, o.failure_kind, o.message or "")
            )
        ran = {o.nodeid for o in run.outcomes}
        for nodeid in run.collected:
            if nodeid not in ran:
                seen.setdefault(test_key(nodeid), {}).setdefault(nodeid, []).append(NOT_RUN)
    verdicts = {}
    for key, per_node in seen.items():
        verdicts[key] = _fold(key, per_node, len(runs))
    return verdicts


def _fold(
    key: str, per_node: Mapping[str, list[tuple[str, str | None, str]]], runs: int
) -> Stability:
    nodeids = tuple(per_node)
    results = [r for rows in per_node.values() for r in rows]
    bad = [r for r in results if r[0] != "passed"]
    missing = any(len(rows) < runs for rows in per_node.values())
    if not bad and not missing:
        return Stability(key, "stable", nodeids)
    first = bad[0] if bad else ("error", "Missing", "the test did not run in every run")
    always_bad = all(all(r[0] != "passed" for r in rows) for rows in per_node.values() if rows)
    if len(bad) < len(results) or (missing and not always_bad):
        return Stability(key, "flaky", nodeids, first[1], first[2])
    status: StabilityStatus = "failing" if first[0] == "failed" else "broken"
    return Stability(key, status, nodeids, first[1], first[2])


def polluters(
    runs: Sequence[TestRun], verdicts: Mapping[str, Stability], limit: int = POLLUTER_SUSPECTS
) -> list[tuple[str, tuple[str, ...]]]:
    """Tests that may make others fail by running before them, each with the tests it would
    explain, the one explaining most flaky tests first, at most ``limit``.

    A test ``p`` explains a test ``v`` that did not pass every run when ``p`` ran before
    ``v`` in every run where ``v`` failed (or did not run at all, the run having ended) and
    before ``v`` in no run where ``v`` passed: a test that leaves state behind, or breaks the
    process for the tests after it. Only a test explaining a flaky one (or one that never
    ran) is a suspect; a test failing every run joins the suspect's list when it fits. Suspects
    only: running ``p`` and then ``v`` alone settles it.
    """
    orders = [_order(run) for run in runs]
    explains: dict[str, set[str]] = {}
    for key, verdict in verdicts.items():
        if verdict.status in ("stable", "pollutes"):
            continue
        failed_after: set[str] | None = None
        passed_after: set[str] = set()
        for order in orders:
            if key in order:
                position, passed = order[key]
                before = {k for k, (at, _) in order.items() if at < position}
            else:  # the run ended before reaching it: anything that ran is a suspect
                before, passed = set(order), False
            if passed:
                passed_after |= before
            else:
                failed_after = before if failed_after is None else failed_after & before
        for suspect in (failed_after or set()) - passed_after - {key}:
            explains.setdefault(suspect, set()).add(key)
    primary = {k for k, v in verdicts.items() if v.status == "flaky" or v.kind == NOT_RUN[1]}
    chosen: list[tuple[str, tuple[str, ...]]] = []
    explained: set[str] = set()
    while explains and len(chosen) < limit:
        best = max(sorted(explains), key=lambda k: len((explains[k] & primary) - explained))
        victims = explains.pop(best) - explained
        if not victims & primary:
            break
        chosen.append((best, tuple(sorted(victims))))
        explained |= victims
    return chosen


def _order(run: TestRun) -> dict[str, tuple[int, bool]]:
    """Key → (where its first node ran, whether all its nodes passed) in one run."""
    order: dict[str, tuple[int, bool]] = {}
    for position, o in enumerate(o for o in run.outcomes if o.outcome != "skipped"):
        key = test_key(o.nodeid)
        at, passed = order.get(key, (position, True))
        order[key] = (at, passed and o.outcome == "passed")
    return order


def units_by_test(coverage: FileCoverage, keys: Iterable[str]) -> dict[str, set[Hashable]]:
    """What each test adds to the module's coverage: the lines it ran and the branches it took.

    From a run measured per test (contexts named by node id); a test that ran
    nothing, or a run without contexts, gives empty sets.
    """
    found: dict[str, set[Hashable]] = {key: set() for key in keys}
    for line, contexts in coverage.contexts.items():
        for context in contexts:
            if context and test_key(context) in found:
                found[test_key(context)].add(("line", line))
    branches = coverage.branches
    for context, arcs in coverage.arcs.items():
        if context and test_key(context) in found:
            found[test_key(context)].update(arcs & branches)
    return found


def covered_without(coverage: FileCoverage, dropped: Collection[str]) -> FileCoverage | None:
    """The coverage of the same run without the ``dropped`` tests, when it is provably the
    same; None otherwise, and when the run was not measured per test.

    The same means: every line they ran, another test (or the collection) ran too,
    and each arc only they ran is one coverage.py does not report, such as an
    exception's way out: between statement starts, not one of the branches; or
    from a line inside a statement spanning several lines (coverage.py reports
    it from the statement's first line), where no line from the nearest
    statement start up to it is where a branch starts.
    """
    measured = {test_key(c) for c in coverage.arcs if c}
    if not measured or not measured.issuperset(dropped):  # what a test without a context
        return None  # of its own ran is not known: it was not measured per test

    def kept(context: str) -> bool:
        return not context or test_key(context) not in dropped

    if not all(any(kept(c) for c in names) for names in coverage.contexts.values()):
        return None
    arcs = {c: a for c, a in coverage.arcs.items() if kept(c)}
    lost = frozenset().union(*coverage.arcs.values()) - frozenset().union(*arcs.values())
    statements, branches = coverage.statements, coverage.branches
    starts = sorted(statements)
    branching = {a for a, _ in branches}
    for a, b in lost:
        if a < 0 or ({a, abs(b)} <= statements and (a, b) not in branches):
            continue  # into a function (never a branch), or as reported and not a branch
        first = starts[max(bisect_right(starts, a) - 1, 0)] if starts else a
        if any(n in branching for n in range(min(first, a), a + 1)):
            return None
    contexts = {
        line: tuple(c for c in names if kept(c)) for line, names in coverage.contexts.items()
    }
    return replace(coverage, contexts=contexts, arcs=arcs)


@dataclass(frozen=True)
class Selection:
    """The tests kept, and why each other one was dropped."""

    kept: tuple[str, ...]
    dropped: dict[str, str]


REDUNDANT = (
    "redundant: kept tests cover its lines, branches and kills, and check every exception"
    " type and public function it checks"
)


def select_tests(
    candidates: Sequence[str],
    lines: Mapping[str, set[Hashable]],
    kills: Mapping[str, set[str]],
    checks: Mapping[str, Collection[str]] | None = None,
) -> Selection:
    """Keep every test credited with a kill, then greedily those adding coverage (lines or
    branches, as ``units_by_test`` gives them), then those checking something no kept test
    checks (``checks``: ``analysis.checks.observables``, e.g. an exception type, a public
    function called); drop the rest as redundant.

    A test credited with no kill kills only mutants a kept test is credited with: the
    mutation engine stops at a mutant's first failing test, and a survivor passed them all.
    """
    kept = [key for key in candidates if kills.get(key)]
    rest = [key for key in candidates if key not in kept]
    for gains in (lines, checks or {}):
        _add_greedily(kept, rest, gains)
    order = {key: i for i, key in enumerate(candidates)}
    return Selection(tuple(sorted(kept, key=order.__getitem__)), dict.fromkeys(rest, REDUNDANT))


def _add_greedily(
    kept: list[str], rest: list[str], gains: Mapping[str, Collection[Hashable]]
) -> None:
    """Move from ``rest`` to ``kept`` the tests adding most of ``gains`` not yet held,
    best first (ties: the earlier test), until none adds anything."""
    held: set[Hashable] = set().union(*(gains.get(key, ()) for key in kept))
    while rest:
        best = max(rest, key=lambda k: (len(set(gains.get(k, ())) - held), -rest.index(k)))
        gain = set(gains.get(best, ())) - held
        if not gain:
            return
        kept.append(best)
        held |= gain
        rest.remove(best)


def _spans(source: str) -> dict[str, tuple[int, int]]:
    """key -> (first line incl. decorators, last line), 1-based."""
    tree = ast.parse(source)
    spans = {}
    for key, node in test_functions(tree):
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        spans[key] = (start, node.end_lineno or node.lineno)
    return spans


def prune_source(source: str, keep: Iterable[str]) -> str:
    """``source`` without the test functions whose keys are not in ``keep``.

    A test class left with no tests is removed whole (its helpers served only them).
    """
    keep = set(keep)
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    cut: list[tuple[int, int]] = [s for k, s in _spans(source).items() if k not in keep]
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            keys = [k for k, _ in test_functions(ast.Module(body=[node], type_ignores=[]))]
            if keys and not keep.intersection(keys):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                cut.append((start, node.end_lineno or node.lineno))
    removed = {n for a, b in cut for n in range(a, b + 1)}
    text = "".join(line for n, line in enumerate(lines, 1) if n not in removed)
    return re.sub(r"\n{4,}", "\n\n\n", text)


def function_source(source: str, key: str) -> str:
    """The source of one test function (with its decorators), or "" when absent."""
    try:
        span = _spans(source).get(key)
    except SyntaxError:
        return ""
    if span is None:
        return ""
    lines = source.splitlines()
    return "\n".join(lines[span[0] - 1 : span[1]]) + "\n"
