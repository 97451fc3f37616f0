"""The baseline's tests cut into parts that run side by side, one per worker (pure).

The baseline runs every test once, traced, and nothing else can start before
it ends: on a project's whole suite it is the one long step that used a single
core. Its tests are cut, at file boundaries, into as many contiguous parts as
there are workers, as even in tests as those boundaries allow; each part runs
in a process forked from the collected session, as every mutant's child is.
"""

from __future__ import annotations

from typing import Sequence, Tuple

Part = Tuple[int, int]  # [start, end) of the tests in run order


def file_of(nodeid: str) -> str:
    """The file a test comes from."""
    return nodeid.split("::", 1)[0]


def split(files: Sequence[str], count: int) -> list[Part]:
    """The tests (given by their files, in run order) cut into at most ``count``
    contiguous parts, only where the file changes, each cut nearest its even share."""
    total = len(files)
    bounds = [i for i in range(1, total) if files[i] != files[i - 1]]
    cuts: list[int] = []
    for k in range(1, max(1, count)):
        ideal = total * k / count
        later = [b for b in bounds if not cuts or b > cuts[-1]]
        if later:
            cuts.append(min(later, key=lambda b: (abs(b - ideal), b)))
    edges = [0, *cuts, total]
    return [(a, b) for a, b in zip(edges, edges[1:]) if b > a]
