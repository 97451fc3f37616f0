"""How the mutant-directed phase splits its time: the module's tables get their share."""

from __future__ import annotations

import pytest

from tddforge.builtin.generator import DATA_SECONDS, data_seconds, phase_seconds, search_seconds


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


@pytest.mark.parametrize(
    ("budget", "spent", "phase_spent", "expected"),
    [
        # what is left of the budget, when the search kept to its share
        (15.0, 10.5, 0.0, 4.5),
        (20.0, 5.0, 0.0, 15.0),
        # the search overran by confirming what it kept: the phase still gets its share
        # (the README's example on Python 3.10 without bubblewrap: 12.0 s spent)
        (15.0, 12.0, 0.0, 4.5),
        (15.0, 16.0, 0.0, 4.5),
        # a later attempt's phase: the share is for all the phases together
        (15.0, 14.0, 3.0, 1.5),
        (15.0, 16.5, 4.5, 0.0),
        # never negative
        (15.0, 30.0, 10.0, 0.0),
    ],
)
def test_a_phase_gets_what_is_left_and_at_least_the_phases_share(
    budget: float, spent: float, phase_spent: float, expected: float
) -> None:
    assert phase_seconds(budget, spent, phase_spent) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("budget", "spent", "expected"),
    [
        (15.0, 0.0, 10.5),  # its share
        # less what discovery, the project's tests and the API's calls took (toolz: 2.9 s)
        (15.0, 2.9, 7.6),
        # half its share at least, however long they took
        (15.0, 9.0, 5.25),
        (20.0, 30.0, 7.0),
    ],
)
def test_the_search_gets_its_share_less_what_came_before_and_half_of_it_at_least(
    budget: float, spent: float, expected: float
) -> None:
    assert search_seconds(budget, spent) == pytest.approx(expected)
