"""Confirming the search's kept calls: only calls both hash seeds agree on are kept."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tddforge.builtin.explore import Call, CallResult, Outcome, calls_per_process
from tddforge.builtin.search import MAX_HEIRS, confirm_reserve, confirmed_cover


def once(name: str, *arcs: tuple[int, int], confirmed: bool = False) -> CallResult:
    """A result seen in one run: presumed deterministic until confirmed."""
    outcome = Outcome("return", "int", "builtins", repr="1", literal=True)
    return CallResult(Call(name), frozenset(arcs), outcome, True, confirmed=confirmed)


SEEN = [once("a", (1, 2)), once("b", (1, 2)), once("c", (3, 4), confirmed=True), once("d", (1, 2))]


@pytest.mark.parametrize(
    ("varies", "unanswered", "kept", "asked"),
    [
        ((), (), ["a", "c"], [["a"]]),  # a holds: b and d reach nothing new
        # a varies: its arcs go to b, confirmed next with d, which may inherit them too
        (("a",), (), ["b", "c"], [["a"], ["b", "d"]]),
        (("a", "b"), (), ["d", "c"], [["a"], ["b", "d"]]),
        (("a", "b", "d"), (), ["c"], [["a"], ["b", "d"]]),  # c was confirmed before
        ((), ("a",), ["b", "c"], [["a"], ["b", "d"]]),  # the confirming run never reached a
    ],
)
def test_kept_calls_are_confirmed_and_a_varying_one_hands_its_arcs_on(
    varies: tuple[str, ...], unanswered: tuple[str, ...], kept: list[str], asked: list[list[str]]
) -> None:
    calls: list[list[str]] = []

    def confirm(todo: list[CallResult]) -> list[CallResult]:
        calls.append([r.call.target for r in todo])
        return [
            replace(r, confirmed=True, deterministic=r.call.target not in varies)
            for r in todo
            if r.call.target not in unanswered
        ]

    cover, covered, seen = confirmed_cover(SEEN, confirm)
    assert sorted(r.call.target for r in cover) == sorted(kept)
    assert [r.call.target for r in cover] == [r.call.target for r in seen if r in cover]
    assert all(r.confirmed and r.deterministic for r in cover)
    assert calls == asked
    assert covered == frozenset().union(*(r.arcs for r in cover))
    assert [r.call.target for r in seen] == ["a", "b", "c", "d"]  # every result, in order
    assert all(not r.deterministic for r in seen if r.call.target in varies + unanswered)


def test_a_table_of_varying_calls_is_confirmed_in_a_few_runs() -> None:
    """A hundred calls reaching the same arcs, each varying but the last: one run for
    the first, then the ones that may inherit its arcs together, ``MAX_HEIRS`` a run."""
    seen = [once(f"r{i}", (1, 2)) for i in range(100)]
    runs: list[int] = []

    def confirm(todo: list[CallResult]) -> list[CallResult]:
        runs.append(len(todo))
        return [replace(r, confirmed=True, deterministic=r.call.target == "r99") for r in todo]

    cover, _, _ = confirmed_cover(seen, confirm)
    assert [r.call.target for r in cover] == ["r99"]
    assert runs == [1, 1 + MAX_HEIRS, 100 - 2 - MAX_HEIRS]  # r0; r1 and heirs; the rest


@pytest.mark.parametrize(
    ("timings", "calls", "expected"),
    [
        ([], 10, 0.0),  # no run yet: nothing to go by
        ([(100, 1.0)], 0, 0.0),  # nothing kept
        # a line: 0.2 s to start, 4 ms a call (toolz's rounds, about)
        ([(100, 0.6), (200, 1.0), (400, 1.8)], 50, 0.2 + 0.004 * 50),
        # the start is never put above the quickest run (the line starts at 1.28 s)
        ([(300, 1.9), (350, 1.0), (400, 2.0)], 50, 1.0 + 0.001 * 50),
        # one run: twice its time per call, start included, and never more than it took
        # for as many calls or fewer (svg.path: 62 kept after a round of 400 in 4 s)
        ([(200, 4.0)], 31, 4.0 * 62 / 200),
        ([(100, 1.0)], 50, 1.0),
        ([(100, 1.0)], 200, 2.0),
        # runs of one size, or noise that slopes down: the largest run, as for one
        ([(100, 1.0), (100, 1.4)], 30, 1.4 * 60 / 100),
        ([(100, 2.0), (400, 1.0)], 30, 1.0 * 60 / 400),
        # a run whose every call ran out of time: its time
        ([(0, 1.5)], 3, 1.5),
    ],
)
def test_the_search_keeps_what_confirming_its_kept_calls_will_take(
    timings: list[tuple[int, float]], calls: int, expected: float
) -> None:
    assert confirm_reserve(timings, calls) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("calls", "confirm", "expected"),
    [(10, False, 10), (39, False, 39), (40, False, 20), (401, False, 201), (400, True, 400)],
)
def test_a_split_run_gives_each_process_a_share_and_a_confirming_one_every_call(
    calls: int, confirm: bool, expected: int
) -> None:
    assert calls_per_process(calls, confirm=confirm) == expected
