"""How the mutant-directed phase splits its time: the module's tables get their share."""

from __future__ import annotations

import pytest

from tddforge.builtin.generator import DATA_SECONDS, data_seconds


@pytest.mark.parametrize(
    ("left", "in_data", "survivors", "expected"),
    [
        # a third of a long phase, when few survivors are in tables
        (30.0, 1, 100, 10.0),
        # their share, when most are (inflection: 126 of 218 in its rule tables)
        (30.0, 75, 100, 22.5),
        # a short phase: DATA_SECONDS, which a third (0.96 s) fell below, so the tables
        # were never read and inflection's score fell from 93% to 45% on a slower machine
        (2.88, 10, 218, DATA_SECONDS),
        # never more than is left
        (1.5, 10, 218, 1.5),
        (0.0, 10, 218, 0.0),
        (2.0, 5, 0, min(2.0, DATA_SECONDS)),
    ],
)
def test_the_tables_get_their_share_a_third_or_a_floor(
    left: float, in_data: int, survivors: int, expected: float
) -> None:
    assert data_seconds(left, in_data, survivors) == pytest.approx(expected)
