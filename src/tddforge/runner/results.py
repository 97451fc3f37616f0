"""Per-test outcomes folded from the plugin's JSON lines, by pytest's own rules.

``outcomes_from_jsonl`` is pure: lines in, outcomes out. One outcome per test:

* a failed setup is an ``error``; a skipped setup is ``skipped``;
* a failed call is ``failed``; a skipped call is ``skipped``;
* xfail is ``skipped`` with kind ``"xfail"``; a (non-strict) xpass is
  ``passed`` with kind ``"xpass"``; a strict xpass is ``failed``;
* a failed teardown turns a passed or skipped test into an ``error``
  (a test that already failed keeps its first failure);
* a test that started but never sent its teardown report was cut off (the
  run was killed at the timeout, or the interpreter died): ``error`` with
  kind ``unfinished_kind`` ("Timeout" by default), unless it had already
  failed.

Lines that are not valid JSON objects (a line truncated by a crash) are
skipped, never fatal.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from tddforge.runner.coverage_data import CoverageReport
from tddforge.types import TestStatus

Record = Mapping[str, Any]


@dataclass(frozen=True)
class TestOutcome:
    """The result of one test: passed, failed, error or skipped."""

    __test__ = False  # not a pytest test class

    nodeid: str
    outcome: TestStatus
    duration: float
    phase: str
    failure_kind: str | None = None
    missing_name: str | None = None
    message: str | None = None
    exc_module: str | None = None
    location: str | None = None
    #: The file the failure was raised in (the traceback's innermost frame), when known.
    raised_in: str | None = None


@dataclass(frozen=True)
class CollectionError:
    """A file or other collector pytest could not collect (import or syntax error...)."""

    nodeid: str
    failure_kind: str | None
    missing_name: str | None
    message: str | None
    exc_module: str | None = None
    location: str | None = None


@dataclass(frozen=True)
class TestRun:
    """Everything one pytest run produced, as data."""

    __test__ = False

    outcomes: tuple[TestOutcome, ...]
    collection_errors: tuple[CollectionError, ...]
    exit_code: int | None
    timed_out: bool
    duration: float
    output: str  # pytest's own text, for humans only
    coverage: CoverageReport | None = None
    #: The node ids pytest collected to run, when known: a test among them with no outcome
    #: never ran (an earlier test broke the run, or the run was cut off).
    collected: tuple[str, ...] = ()

    def _count(self, outcome: str) -> int:
        return sum(1 for o in self.outcomes if o.outcome == outcome)

    @property
    def passed(self) -> int:
        """Number of passed tests."""
        return self._count("passed")

    @property
    def failed(self) -> int:
        """Number of failed tests."""
        return self._count("failed")

    @property
    def errors(self) -> int:
        """Number of tests in error (setup/teardown failure, cut off by the timeout)."""
        return self._count("error")

    @property
    def skipped(self) -> int:
        """Number of skipped tests (xfail included)."""
        return self._count("skipped")

    @property
    def total(self) -> int:
        """Number of tests with an outcome."""
        return len(self.outcomes)

    @property
    def all_passed(self) -> bool:
        """True when tests ran and none failed, errored, or failed to collect."""
        bad = self.failed or self.errors or self.collection_errors or self.timed_out
        return self.total > 0 and not bad

    def by_nodeid(self) -> dict[str, TestOutcome]:
        """The outcomes keyed by pytest node id."""
        return {o.nodeid: o for o in self.outcomes}


def parse_records(lines: Iterable[str]) -> list[Record]:
    """The JSON objects among ``lines``; anything else (a truncated line) is dropped."""
    records: list[Record] = []
    for line in lines:
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("event"), str):
            records.append(value)
    return records


def outcomes_from_jsonl(
    lines: Iterable[str], *, unfinished_kind: str = "Timeout"
) -> tuple[tuple[TestOutcome, ...], tuple[CollectionError, ...], int | None]:
    """Fold the plugin's lines into (outcomes, collection errors, session exit status)."""
    phases: dict[str, dict[str, Record]] = {}
    collected: list[CollectionError] = []
    module_skips: list[TestOutcome] = []
    exit_status: int | None = None
    for rec in parse_records(lines):
        event, nodeid = rec["event"], str(rec.get("nodeid", ""))
        if event == "start":
            phases.setdefault(nodeid, {})
        elif event == "test":
            phases.setdefault(nodeid, {})[str(rec.get("when"))] = rec
        elif event == "collect" and rec.get("outcome") == "failed":
            collected.append(_collection_error(rec))
        elif event == "collect" and rec.get("outcome") == "skipped":
            module_skips.append(_outcome(rec, "skipped", "collect"))
        elif event == "session" and isinstance(rec.get("exitstatus"), int):
            exit_status = rec["exitstatus"]
    tests = [fold_phases(nodeid, got, unfinished_kind) for nodeid, got in phases.items()]
    return (*module_skips, *tests), tuple(collected), exit_status


def collected_from_jsonl(lines: Iterable[str]) -> tuple[str, ...]:
    """The node ids the run collected to run (its last ``collected`` line), else none."""
    found: tuple[str, ...] = ()
    for rec in parse_records(lines):
        nodeids = rec.get("nodeids")
        if rec["event"] == "collected" and isinstance(nodeids, list):
            found = tuple(str(n) for n in nodeids)
    return found


def fold_phases(nodeid: str, phases: Mapping[str, Record], unfinished_kind: str) -> TestOutcome:
    """One test's outcome from its setup/call/teardown records."""
    duration = sum(float(r.get("duration") or 0.0) for r in phases.values())
    result = _setup_and_call(phases)
    teardown = phases.get("teardown")
    if result is not None and result.outcome in ("failed", "error"):
        pass  # the first failure is the one worth reporting
    elif teardown is None:
        missing = next(p for p in ("setup", "call", "teardown") if p not in phases)
        result = TestOutcome(nodeid, "error", 0.0, missing, unfinished_kind)
    elif teardown.get("outcome") == "failed":
        result = _outcome(teardown, "error", "teardown")
    assert result is not None  # a teardown report implies a setup report
    return replace(result, nodeid=nodeid, duration=duration)


def _setup_and_call(phases: Mapping[str, Record]) -> TestOutcome | None:
    setup, call = phases.get("setup"), phases.get("call")
    if setup is not None and setup.get("outcome") != "passed":
        failed = setup.get("outcome") == "failed"
        return _outcome(setup, "error" if failed else "skipped", "setup")
    if call is None:
        return None
    return _outcome(call, _status(call.get("outcome")), "call")


def _status(value: object) -> TestStatus:
    """A pytest report's outcome; anything else (a plugin's own) counts as an error."""
    if value in ("passed", "failed", "skipped"):
        return value
    return "error"


def _outcome(rec: Record, outcome: TestStatus, phase: str) -> TestOutcome:
    kind, message = rec.get("exc_type"), rec.get("message")
    if "wasxfail" in rec and outcome in ("skipped", "passed"):
        kind = "xfail" if outcome == "skipped" else "xpass"
        message = message or rec["wasxfail"]
    return TestOutcome(
        nodeid=str(rec.get("nodeid", "")),
        outcome=outcome,
        duration=float(rec.get("duration") or 0.0),
        phase=phase,
        failure_kind=_str(kind),
        missing_name=_str(rec.get("missing_name")),
        message=_str(message),
        exc_module=_str(rec.get("exc_module")),
        location=_str(rec.get("location")),
        raised_in=_str(rec.get("raised_in")),
    )


def _collection_error(rec: Record) -> CollectionError:
    return CollectionError(
        nodeid=str(rec.get("nodeid", "")),
        failure_kind=_str(rec.get("exc_type")),
        missing_name=_str(rec.get("missing_name")),
        message=_str(rec.get("message")),
        exc_module=_str(rec.get("exc_module")),
        location=_str(rec.get("location")),
    )


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
