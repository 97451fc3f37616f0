"""The traced run in a collector, and the tests a rebound mutant's child can skip by it.

When a collector has enough rebound mutants (data of a live module, ``rebind``),
one of its children runs their tests with the modules' dicts traced
(``entries``): the test that read each entry. The rebound mutants wait while it
runs, and the graft mutants go on meanwhile. Afterwards, a rebound mutant's
child compares its module before and after ``rebind`` and runs only the tests
that read what changed; its verdict is told in the terms of every test it would
have run, since those left out cannot see the mutant and pass.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, Any, Callable, Iterator, List, Tuple, cast

from .entries import EntryReads, Snapshot, readers, traced_run
from .hosting import run_items
from .processes import Done, Pool, limit_tests, wall_limit
from .protocol import ChildVerdict, Key, MutantRecord
from .rebind import live_module

if TYPE_CHECKING:
    from .baseline import Measured

Work = List[Tuple[MutantRecord, List[str]]]  # mutants with the tests their children run

# the key of the traced run, told apart from a mutant's by identity
TRACED = cast(MutantRecord, {"id": "(the traced run)"})
# rebound mutants worth a traced run of their tests: a survivor among them runs every
# test that can reach its module's data, and the traced run costs one run of those tests
NARROW_LEAST = 8
# and the tests they would run, in all, against the traced run's (which is one run of each)
WORTH = 4.0


class Narrowing:
    """A collector's traced run: whether it still runs, and what it found."""

    def __init__(self, measured: Measured, target_of: Callable[[MutantRecord], str]):
        self.measured = measured
        self.target_of = target_of
        self.tracing = False  # whether the traced run is still running
        self.reads: EntryReads | None = None  # what it found, once it ended

    def start(self, pool: Pool[Key], items: list[Any], rebound: Work, done: Done[Key]) -> None:
        """Start the traced run when it is worth it: the tests any rebound mutant runs, in
        collection order, in a child of ``pool``; ``done`` gets its result (``ended``)."""
        seconds = self.measured.seconds
        wanted = {n for _, covering in rebound for n in covering}
        spared = sum(seconds(covering) for _, covering in rebound)
        if len(rebound) < NARROW_LEAST or spared < WORTH * seconds(list(wanted)):
            return
        chosen = [item for item in items if item.nodeid in wanted]
        modules = {}
        for target in {self.target_of(m) for m, _ in rebound}:
            with contextlib.suppress(LookupError):
                modules[target] = live_module(target)
        if not chosen or not modules:
            return
        passing = set(self.measured.durations)
        limit = 2 * self.measured.timeout([i.nodeid for i in chosen if i.nodeid in passing])

        def body() -> ChildVerdict:
            limit_tests(limit)
            return cast(ChildVerdict, traced_run(chosen, modules, passing))

        self.tracing = True
        pool.submit((TRACED, [], time.monotonic()), wall_limit(limit), body, done)

    def ended(self, result: ChildVerdict) -> None:
        """The traced run's result (none when it failed, timed out or traced nothing)."""
        self.tracing = False
        data = result.get("reads")
        self.reads = EntryReads.from_data(data) if data else None

    def in_turn(
        self, pool: Pool[Key], work: Work, rebound: Callable[[MutantRecord], bool], done: Done[Key]
    ) -> Iterator[tuple[MutantRecord, list[str]]]:
        """``work`` in order, but the ``rebound`` mutants wait while the traced run runs
        (the others go on meanwhile), and go first once it ended."""
        waiting: Work = []
        for entry in work:
            if self.tracing and rebound(entry[0]):
                waiting.append(entry)
                continue
            if waiting and not self.tracing:
                yield from waiting
                waiting = []
            yield entry
        while waiting and self.tracing:
            pool.reap(done)
        yield from waiting

    def snapshot(self, target: str) -> Snapshot | None:
        """In a rebound mutant's child: its module's globals before ``rebind``, when the
        traced run can tell which tests read what it changes."""
        if self.reads is None:
            return None
        try:
            return Snapshot(vars(live_module(target)))
        except LookupError:
            return None

    def run(
        self, m: MutantRecord, before: Snapshot, nodeids: list[str], items: dict[str, Any]
    ) -> ChildVerdict:
        """In a rebound mutant's child, after ``rebind``: run those of ``nodeids`` that can
        see what changed since ``before``; the verdict told in ``nodeids``' terms."""
        reads = self.reads
        target = self.target_of(m)
        namespace = vars(live_module(target))
        lines = (m["line"], m["end_line"])
        seeing = None if reads is None else readers(before, namespace, target, reads, lines)
        if reads is None or seeing is None:
            return run_items([items[n] for n in nodeids if n in items])
        chosen = [n for n in nodeids if n in seeing or n not in reads.tests]
        result = run_items([items[n] for n in chosen if n in items])
        killer = result.get("killer")
        if result.get("verdict") == "killed" and killer in nodeids:
            result["ran"] = nodeids.index(killer) + 1
        else:
            result["ran"] = len(nodeids)
        return result
