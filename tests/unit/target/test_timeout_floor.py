"""Every child's CPU budget starts at a floor the baseline's slowest test decides."""

from __future__ import annotations

import pytest

from tddforge.target.baseline import FLOOR_LEAST, Measured, timeout_floor


@pytest.mark.parametrize(
    ("durations", "cap", "expected"),
    [
        ([0.001, 0.002], 1.0, FLOOR_LEAST + 0.004),  # fast tests: near the least
        ([0.001, 0.05], 1.0, FLOOR_LEAST + 0.1),  # the slowest counts, twice
        ([0.3, 0.9], 1.0, 1.0),  # a slow test: the configured floor, never more
        ([0.3, 0.9], 3.0, FLOOR_LEAST + 1.8),
        ([], 1.0, FLOOR_LEAST),  # no passing test
        ([0.01], 0.1, 0.1),  # a configured floor below the least wins
    ],
    ids=["fast", "slowest-twice", "capped", "higher-cap", "none", "low-cap"],
)
def test_timeout_floor(durations: list[float], cap: float, expected: float) -> None:
    assert timeout_floor(durations, cap) == pytest.approx(expected)


def test_the_baseline_applies_the_floor_to_every_budget() -> None:
    baseline = {
        "tests": {
            "t.py::fast": {"outcome": "passed", "duration": 0.01, "lines": {}, "imported": []},
            "t.py::slow": {"outcome": "passed", "duration": 0.1, "lines": {}, "imported": []},
            # a failing test's time does not count: it can kill no mutant
            "t.py::broken": {"outcome": "failed", "duration": 5.0, "lines": {}, "imported": []},
        },
        "collect_lines": {},
    }
    measured = Measured.of(baseline, 1.0, 5.0, "m.py")  # type: ignore[arg-type]
    assert measured.floor == pytest.approx(FLOOR_LEAST + 0.2)
    assert measured.timeout(["t.py::fast"]) == pytest.approx(FLOOR_LEAST + 0.2 + 5 * 0.01)
