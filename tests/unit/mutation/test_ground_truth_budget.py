"""The reference run's CPU budget per mutant follows the engine's rule (engine.ground_truth_timeout)."""

from __future__ import annotations

import pytest

from tddforge.mutation.ground_truth import (
    REFERENCE_FLOOR,
    STARTUP_ALLOWANCE,
    TIMEOUT_FACTOR,
    ground_truth_startup,
    ground_truth_timeout,
)
from tddforge.mutation.mutant import Mutant
from tddforge.mutation.report import MutationReport


def _mutant(line: int, end_line: int, strategy: str) -> Mutant:
    return Mutant("m", "number", line, 0, end_line, 1, "1", "2", strategy, "f", line)


REPORT = MutationReport(
    "sample.py",
    "",
    [],
    3,
    1.0,
    collect_seconds=0.1,
    test_seconds={"t::a": 1.0, "t::b": 2.0, "t::c": 4.0},
    test_lines={"t::a": (3, 4), "t::b": (4, 9), "t::c": (20,)},
    collect_lines=frozenset({1, 20}),
)
EVERYTHING = REFERENCE_FLOOR + TIMEOUT_FACTOR * 7.0 + 3 * 0.1


@pytest.mark.parametrize(
    ("mutant", "expected"),
    [
        # switched on in live functions: the covering tests' budget, the others' own time x2
        (_mutant(3, 3, "graft"), (2 * 6.0 + REFERENCE_FLOOR + TIMEOUT_FACTOR * 1.0, "tests")),
        (_mutant(4, 4, "graft"), (2 * 4.0 + REFERENCE_FLOOR + TIMEOUT_FACTOR * 3.0, "tests")),
        (_mutant(8, 9, "graft"), (2 * 5.0 + REFERENCE_FLOOR + TIMEOUT_FACTOR * 2.0, "tests")),
        (_mutant(30, 30, "graft"), (2 * 7.0 + REFERENCE_FLOOR, "tests")),
        # imported fresh, or run at collection: the whole suite's, from collection on
        (_mutant(3, 3, "fresh"), (EVERYTHING, "session")),
        (_mutant(19, 20, "graft"), (EVERYTHING, "session")),
    ],
    ids=["one-covering", "two-covering", "a-span", "uncovered", "fresh", "run-at-collection"],
)
def test_the_reference_budget_follows_the_engines_rule(
    mutant: Mutant, expected: tuple[float, str]
) -> None:
    budget, phase = ground_truth_timeout(REPORT, mutant)
    assert (pytest.approx(budget), phase) == expected


def test_start_up_and_collection_get_their_own_allowance() -> None:
    assert ground_truth_startup(REPORT) == pytest.approx(STARTUP_ALLOWANCE + 0.3)
