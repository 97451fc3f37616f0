"""The Pynguin comparison's printed figures: one line per row, the table, the goals."""

from __future__ import annotations

from typing import Protocol


class RowLike(Protocol):
    """What the report reads of a measured row (``builtin_vs_pynguin.Row``)."""

    target: str
    tool: str
    wall: float
    tests: int
    failing: int
    flaky: int
    branch: float | None
    combined: float | None
    mutation: float | None
    mutation_loose: float | None
    mutants: int
    error: str
    note: str


def pct(value: float | None) -> str:
    """A percentage for the table."""
    return "-" if value is None else f"{value:.1f}%"


def row_line(row: RowLike) -> str:
    """The line printed as soon as a row is measured."""
    line = (
        f"{row.target}/{row.tool}: {row.tests} tests ({row.failing} failing, {row.flaky} flaky), "
        f"branch {pct(row.branch)}, combined {pct(row.combined)}, mutation {pct(row.mutation)} "
        f"of {row.mutants} mutants (loose {pct(row.mutation_loose)}), wall {row.wall:.1f} s"
    )
    line += f" [{row.note}]" if row.note else ""
    return f"{line}; ERROR {row.error}" if row.error else line


def table(rows: list[RowLike]) -> str:
    """All rows as a fixed-width table."""
    head = f"{'target':<18} {'tool':<8} {'tests':>5} {'fail':>4} {'flaky':>5} "
    head += f"{'branch':>7} {'combined':>8} {'mutation':>8} {'wall s':>7}"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r.target:<18} {r.tool:<8} {r.tests:>5} {r.failing:>4} {r.flaky:>5} "
            f"{pct(r.branch):>7} {pct(r.combined):>8} {pct(r.mutation):>8} {r.wall:>7.1f}"
            + ("  (error)" if r.error else "")
        )
    return "\n".join(lines)


def goals(rows: list[RowLike]) -> dict[str, dict[str, bool]]:
    """Per target with two clean rows: the builtin's three goals against Pynguin."""
    by_key = {(r.target, r.tool): r for r in rows if not r.error}
    verdicts = {}
    for target in dict.fromkeys(r.target for r in rows):
        ours, theirs = by_key.get((target, "builtin")), by_key.get((target, "pynguin"))
        if ours is None or theirs is None:
            continue
        verdicts[target] = {
            "coverage": (ours.combined or 0) >= (theirs.combined or 0)
            and (ours.branch or 0) >= (theirs.branch or 0),
            "mutation": (ours.mutation or 0) >= (theirs.mutation or 0),
            "wall": ours.wall <= theirs.wall / 3,
        }
    return verdicts


def goal_lines(verdicts: dict[str, dict[str, bool]]) -> list[str]:
    """One line per target: which goals hold."""

    def yes(ok: bool) -> str:
        return "yes" if ok else "NO"

    return [
        f"{target}: coverage >= pynguin {yes(v['coverage'])}, mutation >= pynguin "
        f"{yes(v['mutation'])}, wall <= pynguin/3 {yes(v['wall'])}"
        for target, v in verdicts.items()
    ]
