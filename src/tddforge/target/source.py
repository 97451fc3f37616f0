"""A mutant's span spliced into a module's source: plain string work, no ``ast``.

Spans are (line, column) -> (end line, end column), 1-based lines and 0-based
*character* columns, as the host's generator makes them.
"""

from __future__ import annotations

from .protocol import MutantRecord


def line_offsets(source: str) -> list[int]:
    """Character offset of the start of each line (index 0 is line 1)."""
    offsets = [0]
    for line in source.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    return offsets


def apply_mutant(source: str, offsets: list[int], m: MutantRecord) -> str:
    """The module's source with mutant ``m`` applied; checks the original text is there."""
    start, end = _span(source, offsets, m)
    return source[:start] + str(m["replacement"]) + source[end:]


def mutated_lines(source: str, offsets: list[int], m: MutantRecord, first: int, last: int) -> str:
    """Lines ``first`` to ``last`` of the source with mutant ``m`` (inside them) applied:
    ``apply_mutant``'s result for those lines, without copying the whole module."""
    start, end = _span(source, offsets, m)
    begin, stop = line_span(source, offsets, first, last)
    return source[begin:start] + str(m["replacement"]) + source[end:stop]


def line_span(source: str, offsets: list[int], first: int, last: int) -> tuple[int, int]:
    """Where lines ``first`` to ``last`` begin and end in the source."""
    return offsets[first - 1], offsets[last] if last < len(offsets) else len(source)


def _span(source: str, offsets: list[int], m: MutantRecord) -> tuple[int, int]:
    """Where ``m``'s original text lies in the source; ValueError when it is not there."""
    start = offsets[m["line"] - 1] + m["col"]
    end = offsets[m["end_line"] - 1] + m["end_col"]
    if source[start:end] != m["original"]:
        raise ValueError(f"mutant {m['id']} does not match the source it was made from")
    return start, end
