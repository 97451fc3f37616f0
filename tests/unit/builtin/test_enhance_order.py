"""The mutant-directed phase reads the module's public tables first: one read kills every
mutant in a table's rows, which can be most of a module's mutants."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tddforge.builtin.generator import BuiltinSuiteGenerator
from tddforge.builtin.targeting import public_data_lines
from tddforge.config import Settings
from tddforge.cover_contract import CoverTarget
from tddforge.mutation.generate import find_mutants

SOURCE = """\
TABLE = [
    [6, 18],
    [6, 22, 38],
]
_PRIVATE = [1, 2]


def row(version):
    if version < 1:
        raise ValueError(version)
    return TABLE[version - 1]
"""


def test_public_data_lines_are_the_public_assignments_lines() -> None:
    assert public_data_lines(SOURCE) == {1, 2, 3, 4}
    assert public_data_lines("import os\nX: int\n") == frozenset()


def test_table_mutants_are_judged_by_a_read_of_the_table_first(tmp_path: Path) -> None:
    target = CoverTarget(
        tmp_path, "table.py", "table", SOURCE, "pytest", "tests/test_table.py", "", ""
    )
    mutants = find_mutants(SOURCE)
    in_table = {m.id for m in mutants if m.line <= 4}
    assert in_table and len(in_table) < len(mutants)
    asked: list[tuple[str, set[str]]] = []

    def aim(name: str, kills: set[str]) -> Any:
        def run(target: CoverTarget, mutants: list[Any], seconds: float) -> Any:
            ids = {m.id for m in mutants}
            asked.append((name, ids))
            return [], ids & kills

        return run

    clock = iter(range(1000)).__next__
    generator = BuiltinSuiteGenerator(Settings(), Path(sys.executable), budget=100, clock=clock)
    generator._aim_with_module_data = aim("data", in_table)  # type: ignore[method-assign]
    generator._aim = aim("pool", set())  # type: ignore[method-assign]
    generator._aim_with_line_inputs = aim("lines", set())  # type: ignore[method-assign]
    generator._enhance(target, "", mutants, set(), clock())
    assert [name for name, _ in asked] == ["data", "pool", "lines", "data"]
    assert asked[0][1] == in_table  # only the table's mutants, before anything else
    others = {m.id for m in mutants} - in_table
    assert asked[1][1] == others  # what the read killed is not aimed at again
