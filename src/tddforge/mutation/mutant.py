"""A mutant: one exact textual change to a module, and how the engine can switch it on.

Spans are (line, column) → (end line, end column), 1-based lines and 0-based
*character* columns, so applying a mutant is a plain string splice
(``tddforge.target.source``, shared with the worker, which runs under the
target's interpreter, without tddforge) and needs no ``ast`` work.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache

from tddforge.target import source
from tddforge.target.protocol import DefaultRecord, MutantRecord

# How the worker switches a mutant on:
#   graft - the mutant lies inside the body of a top-level function or of a method
#           of a top-level class: the live function objects get the mutated
#           ``__code__`` in a child forked after collection (fast path).
#   fresh - anything evaluated at import time (module or class level, defaults,
#           decorators): a child forked before collection imports the mutated
#           module through an import hook, then collects and runs tests. The
#           worker may switch some on in the collector instead: module data by
#           rebind, a literal default (``default``) set on the live function.
STRATEGIES = ("graft", "fresh")


@dataclass(frozen=True)
class DefaultSlot:
    """Where a default argument of a def run at import lives, and its mutated value (a
    literal): the worker sets it on the live function instead of importing afresh."""

    name: str  # the function's co_name
    first: int  # its co_firstlineno (first decorator line)
    slot: int | str  # an index into ``__defaults__``, or a keyword-only parameter's name
    count: int  # how many positional defaults the def has
    value: str  # the mutated default's source text
    body: tuple[int, int]  # the body's lines: a test that calls it runs one
    original: str = ""  # the unmutated default's text, when it is a literal

    def to_data(self) -> DefaultRecord:
        return DefaultRecord(
            name=self.name,
            first=self.first,
            slot=self.slot,
            count=self.count,
            value=self.value,
            body=list(self.body),
            original=self.original,
        )


@dataclass(frozen=True)
class Mutant:
    """One mutation of a module's source."""

    id: str
    operator: str
    line: int
    col: int
    end_line: int
    end_col: int
    original: str
    replacement: str
    strategy: str = "fresh"
    graft_name: str = ""  # the function's co_name, for strategy "graft"
    graft_firstlineno: int = 0  # its code object's co_firstlineno (first decorator line)
    reach: tuple[int, int] | None = None  # lines running it shows in, when more than its own
    default: DefaultSlot | None = None  # a default of a def run at import, settable in place

    def to_data(self) -> MutantRecord:
        """Plain data, as sent to the worker and stored in reports."""
        record = MutantRecord(
            id=self.id,
            operator=self.operator,
            line=self.line,
            col=self.col,
            end_line=self.end_line,
            end_col=self.end_col,
            original=self.original,
            replacement=self.replacement,
            strategy=self.strategy,
            graft_name=self.graft_name,
            graft_firstlineno=self.graft_firstlineno,
        )
        if self.reach is not None:
            record["reach"] = list(self.reach)
        if self.default is not None:
            record["default"] = self.default.to_data()
        return record

    @property
    def lines(self) -> range:
        """The source lines the mutant touches."""
        return range(self.line, self.end_line + 1)

    @property
    def reached(self) -> range:
        """The lines a test that ran the mutated code ran one of (coverage's view)."""
        first, last = self.reach or (self.line, self.end_line)
        return range(first, last + 1)


def mutant_id(operator: str, span: tuple[int, int, int, int], replacement: str) -> str:
    """A stable id: readable position plus a short hash of what changes."""
    digest = hashlib.sha1(f"{operator}|{span}|{replacement}".encode()).hexdigest()[:8]
    return f"{operator}@{span[0]}:{span[1]}#{digest}"


@lru_cache(maxsize=16)
def _offsets(text: str) -> list[int]:
    """``line_offsets``, once per module text however many of its mutants are applied."""
    return source.line_offsets(text)


def apply_mutant(text: str, mutant: Mutant, offsets: list[int] | None = None) -> str:
    """The module's source with ``mutant`` applied; checks the original text is there."""
    return source.apply_mutant(text, offsets or _offsets(text), mutant.to_data())


def diff_line(text: str, mutant: Mutant) -> tuple[str, str]:
    """The touched lines before and after the mutation, for reports."""
    offsets = _offsets(text)
    first, last = mutant.line, mutant.end_line
    begin, stop = source.line_span(text, offsets, first, last)
    before = text[begin:stop]
    after = source.mutated_lines(text, offsets, mutant.to_data(), first, last)
    return "\n".join(before.splitlines()), "\n".join(after.splitlines())
