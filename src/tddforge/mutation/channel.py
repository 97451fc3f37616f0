"""The host's side of the mutation worker's protocol: its results file as typed events.

The worker appends one event per line (``tddforge.target.protocol``) and
flushes each; ``ResultsFile`` reads what was added since it last looked,
whole lines only, so progress is counted from parsed events, never from the
file's bytes. ``follow`` waits for the worker while reporting progress.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tddforge.target.protocol import (
    BASELINE,
    DONE,
    ERROR,
    MUTANT,
    BaselineEvent,
    DoneEvent,
    ErrorEvent,
    Event,
    MutantEvent,
)
from tddforge.types import Tally


class ResultsFile:
    """A results file read as it grows: the events of its complete lines, in order."""

    def __init__(self, path: Path):
        self.path = path
        self.events: list[Event] = []
        self._offset = 0
        self._partial = b""  # the start of a line still being written

    def poll(self) -> list[Event]:
        """Every event so far, reading only what was added since the last poll."""
        try:
            with self.path.open("rb") as handle:
                handle.seek(self._offset)
                chunk = handle.read()
        except OSError:
            return self.events
        self._offset += len(chunk)
        *lines, self._partial = (self._partial + chunk).split(b"\n")
        self.events += _parsed(lines)
        return self.events

    def finish(self) -> list[Event]:
        """Every event, once the worker is done; a last line cut short by a crash is skipped."""
        self.poll()
        self.events += _parsed([self._partial])
        self._partial = b""
        return self.events

    def verdict_count(self) -> int:
        """How many mutants have a verdict so far."""
        return sum(1 for event in self.poll() if event["event"] == MUTANT)


def _parsed(lines: Iterable[bytes]) -> list[Event]:
    events: list[Event] = []
    for line in lines:
        if not line.strip():
            continue
        try:
            events.append(json.loads(line))
        except ValueError:
            continue  # a line cut short by a crash
    return events


def mutant_events(events: Iterable[Event]) -> dict[str, MutantEvent]:
    """Each mutant's verdict event, by mutant id."""
    return {event["id"]: event for event in events if event["event"] == MUTANT}


def baseline_event(events: Iterable[Event]) -> BaselineEvent | None:
    """The baseline's event, if the worker got that far."""
    return next((event for event in events if event["event"] == BASELINE), None)


def done_event(events: Iterable[Event]) -> DoneEvent | None:
    """The event that ends a scored request."""
    return next((event for event in events if event["event"] == DONE), None)


def error_event(events: Iterable[Event]) -> ErrorEvent | None:
    """The first error, if any."""
    return next((event for event in events if event["event"] == ERROR), None)


class Background(threading.Thread):
    """A call run in a daemon thread; its result or exception kept for the caller."""

    def __init__(self, call: Callable[[], Any]):
        super().__init__(daemon=True)
        self.call = call
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        """Run the call, keeping what it returns or raises."""
        try:
            self.result = self.call()
        except BaseException as exc:
            self.error = exc


def in_thread(call: Callable[[], Any]) -> Background:
    """``call`` started in a background thread."""
    thread = Background(call)
    thread.start()
    return thread


def follow(results: ResultsFile, total: int, thread: Background, progress: Tally | None) -> None:
    """Wait for the worker, reporting how many verdicts have arrived."""
    while thread.is_alive():
        thread.join(0.25)
        if progress is not None:
            progress(results.verdict_count(), total)
    if thread.error is not None:
        raise thread.error
