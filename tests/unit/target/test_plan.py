"""Which way each mutant is judged, once the baseline is known (target.plan, pure)."""

from __future__ import annotations

from typing import Any

import pytest

from tddforge.target.baseline import Measured
from tddforge.target.plan import plan, rebindable
from tddforge.target.protocol import MutantRecord, WorkerConfig

REGISTRY = "ENTRIES = {}\nDEFAULTS = {'x': 1}\n\n\ndef fill():\n    ENTRIES.update(DEFAULTS)\n"
PLAIN = "def double(x):\n    return x * 2\n"
TESTS = {"tests/test_r.py::test_fill": 0.2, "tests/test_r.py::test_other": 0.1}


def _mutant(target: str, line: int, strategy: str = "fresh", **extra: Any) -> MutantRecord:
    record = {"id": f"{target}:{line}", "operator": "x", "line": line, "col": 0, "end_line": line}
    record.update(end_col=1, original="", replacement="", strategy=strategy, target=target)
    record.update(graft_name="fill", graft_firstlineno=5, **extra)
    return record  # type: ignore[return-value]


def _measured(drifted: frozenset[str] = frozenset()) -> Measured:
    cover = {("registry.py", 6): list(TESTS), ("plain.py", 2): ["tests/test_r.py::test_other"]}
    by_speed = sorted(TESTS, key=TESTS.__getitem__)
    checked = frozenset({"registry.py"})
    return Measured(
        dict(TESTS), by_speed, cover, {}, 0.0, 1.0, 5.0, "registry.py", drifted=drifted,
        checked=checked,
    )  # fmt: skip


def _config(*mutants: MutantRecord, **extra: Any) -> WorkerConfig:
    return {"mutants": list(mutants), "targets": ["registry.py", "plain.py"], **extra}  # type: ignore[typeddict-item]


SOURCES = {"registry.py": REGISTRY, "plain.py": PLAIN}


@pytest.mark.parametrize(
    ("mutant", "drifted", "where"),
    [
        # data: switched on by rebind in the collector, the tests reading it first
        (_mutant("registry.py", 2), frozenset(), "collector"),
        # the module's data drifted after its import (another module filled ENTRIES):
        # rebind would refuse every such mutant in its own child, so none is tried there
        (_mutant("registry.py", 2), frozenset({"registry.py"}), "fresh"),
        # another file reads that data while it is imported: fresh whatever the drift
        (_mutant("registry.py", 2, shared=True), frozenset(), "fresh"),
        # a function body is grafted, drifted module or not
        (_mutant("registry.py", 6, "graft"), frozenset({"registry.py"}), "collector"),
        (_mutant("plain.py", 2, "graft"), frozenset(), "collector"),
    ],
)
def test_a_drifted_modules_data_is_imported_fresh_from_the_start(
    mutant: MutantRecord, drifted: frozenset[str], where: str
) -> None:
    found = plan(_config(mutant), SOURCES, _measured(drifted))
    placed = "collector" if found.graft else "fresh" if found.fresh else "nowhere"
    assert placed == where


@pytest.mark.parametrize(
    ("mutants", "extra", "expected"),
    [
        ([_mutant("registry.py", 2)], {}, {"registry.py"}),  # a data line
        ([_mutant("registry.py", 6, "graft")], {}, set()),  # a function body only
        ([_mutant("plain.py", 2, "graft"), _mutant("registry.py", 1)], {}, {"registry.py"}),
        ([_mutant("registry.py", 2, shared=True)], {}, set()),  # never rebound anyway
        ([_mutant("registry.py", 2)], {"rebind": False}, set()),  # rebind switched off
    ],
)
def test_the_modules_checked_for_drift_are_those_with_a_rebindable_mutant(
    mutants: list[MutantRecord], extra: dict[str, Any], expected: set[str]
) -> None:
    assert set(rebindable(_config(*mutants, **extra), SOURCES)) == expected


FILL, OTHER = "tests/test_r.py::test_fill", "tests/test_r.py::test_other"
NEW = "tests/test_r.py::test_new"


def _looping_plan(covering: list[str], unchanged: list[str]) -> Any:
    """A graft mutant of ``fill`` that timed out in ``test_fill`` last time."""
    cover = {("registry.py", 6): covering}
    durations = {**TESTS, NEW: 0.05}
    measured = Measured(durations, sorted(durations, key=durations.__getitem__), cover, {}, 0.0,
                        1.0, 5.0, "registry.py")  # fmt: skip
    m = _mutant("registry.py", 6, "graft")
    prior = {m["id"]: {"verdict": "timeout", "killer": FILL, "ran": [OTHER, FILL]}}
    config = _config(m, prior=prior, unchanged_tests=unchanged)
    return plan(config, SOURCES, measured)


def test_a_timeout_whose_test_is_unchanged_runs_only_the_new_tests() -> None:
    found = _looping_plan([OTHER, FILL, NEW], [FILL, OTHER])
    ((m, covering),) = found.graft
    assert covering == [NEW]  # neither the test it loops in nor the one that passed before
    assert (m["looped"], m["passed"]) == (FILL, [OTHER])


def test_a_timeout_no_new_test_reaches_is_reused_with_its_test() -> None:
    found = _looping_plan([OTHER, FILL], [FILL, OTHER])
    ((_, reused),) = found.reused
    assert (reused["verdict"], reused.get("killer")) == ("timeout", FILL)


def test_a_timeout_whose_test_was_edited_runs_whole() -> None:
    found = _looping_plan([OTHER, FILL, NEW], [OTHER])
    ((m, covering),) = found.graft
    assert covering == [NEW, OTHER, FILL]  # fastest first
    assert "looped" not in m and "passed" not in m
