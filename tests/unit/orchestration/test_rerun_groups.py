"""Which interpreter runs which shuffled rerun: pure, a table."""

from __future__ import annotations

import pytest

from tddforge.orchestration.cover_lab import rerun_groups

SEEDS = ["1-1", "1-2", "1-3", "1-4"]


@pytest.mark.parametrize(
    ("seeds", "side_by_side", "workers", "groups"),
    [
        # after the first run: one interpreter, whatever the cores
        (SEEDS, False, 2, [SEEDS]),
        (SEEDS, False, 8, [SEEDS]),
        # beside it on two cores: the one core it leaves, one interpreter
        (SEEDS, True, 2, [SEEDS]),
        (SEEDS, True, 1, [SEEDS]),
        # more cores: an interpreter for each core left, the seeds shared out in order
        (SEEDS, True, 3, [["1-1", "1-2"], ["1-3", "1-4"]]),
        (SEEDS, True, 4, [["1-1", "1-2"], ["1-3"], ["1-4"]]),
        (SEEDS, True, 16, [["1-1"], ["1-2"], ["1-3"], ["1-4"]]),
        (["1-1", "1-2", "1-3"], True, 3, [["1-1", "1-2"], ["1-3"]]),
        # one rerun, or none
        (["2-1"], True, 4, [["2-1"]]),
        ([], True, 4, []),
        ([], False, 2, []),
    ],
)
def test_rerun_groups(
    seeds: list[str], side_by_side: bool, workers: int, groups: list[list[str]]
) -> None:
    assert rerun_groups(seeds, side_by_side=side_by_side, workers=workers) == groups
