"""The order of the work (pure): which mutants start first, and which tests a child runs first.

Mutants: the modules whose mutants cost the most start first, so the cheap
ones fill the cores at the end (longest first is what keeps every core busy
to the last verdict); inside a module, in source order, so that neighbours
follow each other. Tests: a mutant's covering tests, those that killed its
neighbours first (same line, then same function), then by speed: a mutant is
mostly killed by what killed the mutant next to it.
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

from .protocol import MutantRecord

W = TypeVar("W")
FORK_SECONDS = 0.005  # about what a child costs besides its tests: fork, switch, report


def schedule(
    work: Sequence[W],
    mutant: Callable[[W], MutantRecord],
    target: Callable[[MutantRecord], str],
    cost: Callable[[W], float],
) -> list[W]:
    """``work`` by module, the costliest module first, each in source order."""
    totals: dict[str, float] = {}
    for item in work:
        name = target(mutant(item))
        totals[name] = totals.get(name, 0.0) + FORK_SECONDS + cost(item)

    def key(item: W) -> tuple[float, str, int, int]:
        m = mutant(item)
        name = target(m)
        return (-totals[name], name, m["line"], m["col"])

    return sorted(work, key=key)


class Neighbours:
    """The tests that killed each line's and each function's mutants so far, latest first."""

    def __init__(self, target: Callable[[MutantRecord], str]):
        self.target = target
        self.by_line: dict[tuple[str, int], list[str]] = {}
        self.by_function: dict[tuple[str, str, int], list[str]] = {}

    def _keys(self, m: MutantRecord) -> tuple[tuple[str, int], tuple[str, str, int]]:
        name = self.target(m)
        return (name, m["line"]), (name, m["graft_name"], m["graft_firstlineno"])

    def killed(self, m: MutantRecord, killer: str) -> None:
        """Note that ``killer`` killed ``m``."""
        line, function = self._keys(m)
        _latest_first(self.by_line.setdefault(line, []), killer)
        _latest_first(self.by_function.setdefault(function, []), killer)

    def first(self, m: MutantRecord, nodeids: list[str]) -> list[str]:
        """``nodeids`` with the neighbours' killers among them first (same line, then same
        function), the rest in their order."""
        line, function = self._keys(m)
        chosen = set(nodeids)
        front: list[str] = []
        for killer in self.by_line.get(line, []) + self.by_function.get(function, []):
            if killer in chosen and killer not in front:
                front.append(killer)
        if not front:
            return nodeids
        picked = set(front)
        return front + [n for n in nodeids if n not in picked]


def _latest_first(known: list[str], killer: str) -> None:
    if killer in known:
        known.remove(killer)
    known.insert(0, killer)
