"""The results file: one event per JSON line, appended and flushed one by one.

A verdict is on disk as soon as it is known, so the host follows progress
while the worker runs, and a run killed part-way keeps what it had judged.
"""

from __future__ import annotations

import json
import os
import time
from typing import Iterator

from .protocol import (
    ERROR,
    MUTANT,
    SOURCES,
    ChildVerdict,
    ErrorEvent,
    Event,
    MutantEvent,
    MutantRecord,
    Reused,
    Sources,
    SourcesEvent,
)


class Journal:
    """Appends events to the results file, one flushed write per line."""

    def __init__(self, path: str):
        self.path = path

    def emit(self, event: Event) -> None:
        """Append one event."""
        line = (json.dumps(event) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)

    def error(self, kind: str, message: str) -> None:
        """The request could not be scored."""
        self.emit(ErrorEvent(event=ERROR, kind=kind, message=message))

    def verdict(
        self, m: MutantRecord, nodeids: list[str], started: float, result: ChildVerdict
    ) -> None:
        """A mutant's child's verdict; ``ran``: the tests it ran, of ``nodeids`` in order,
        after those a prior run found passing against it (``passed``) when it was judged.

        A timeout's ``killer`` is the test that ran out of time, and ``ran`` ends with
        it. A prior timeout's test that still loops (``looped``) was not run again: when
        the new tests pass, that test's timeout stands."""
        verdict = result.get("verdict", "error")
        killer, detail = result.get("killer"), result.get("detail")
        passed = m.get("passed", [])  # the tests it was already known to pass, not run
        if verdict in ("killed", "survived"):
            ran = [*passed, *nodeids[: int(result.get("ran", len(nodeids)))]]
        elif verdict == "timeout" and killer in nodeids:
            ran = [*passed, *nodeids[: nodeids.index(killer) + 1]]
        else:
            ran = nodeids
        looped = m.get("looped")
        if verdict == "survived" and looped:
            verdict, killer, ran = "timeout", looped, [*ran, looped]
        duration = result.get("wall", time.monotonic() - started)
        event = MutantEvent(
            event=MUTANT,
            id=m["id"],
            verdict=verdict,
            killer=killer,
            ran=ran,
            detail=detail,
            duration=duration,
        )
        if "cpu" in result:
            event["cpu"] = result["cpu"]
        self.emit(event)

    def uncovered(self, m: MutantRecord) -> None:
        """No test runs the mutant's lines."""
        self.emit(
            MutantEvent(event=MUTANT, id=m["id"], verdict="no-coverage", ran=[], duration=0.0)
        )

    def reused(self, m: MutantRecord, verdict: Reused) -> None:
        """A prior verdict that is provably still right."""
        event = MutantEvent(
            event=MUTANT,
            id=m["id"],
            reused=True,
            verdict=verdict["verdict"],
            ran=verdict["ran"],
            duration=verdict["duration"],
        )
        if "killer" in verdict:
            event["killer"] = verdict["killer"]
        self.emit(event)

    def sources(self, sources: Sources) -> None:
        """What the collection imported (a warm worker keeps it compiled)."""
        self.emit(SourcesEvent(event=SOURCES, modules=sources["modules"], tests=sources["tests"]))


def read_events(path: str) -> Iterator[Event]:
    """The events of a results file, in order; a line cut short by a crash is skipped."""
    with open(path, encoding="utf-8") as handle:
        for row in handle:
            try:
                yield json.loads(row)
            except ValueError:
                continue
