"""The baseline: every test run once, traced, in a child; what it measured, and the budgets
it gives each mutant's child."""

from __future__ import annotations

import contextlib
import json
import os
import select
import sys
import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Iterable, Iterator, Tuple, TypedDict

import pytest

from .affinity import Affinity, grouped, words_of_tests
from .codecache import imported_sources
from .forked_lines import following
from .hosting import Starter, run_protocol, unreported
from .imports import ImportWatch
from .preimported import running_targets
from .preload import stdlib_imported
from .processes import drain, end_if_stray, fork_child, quiet, read_all, send
from .project_guard import take
from .protocol import (
    BASELINE,
    ERROR,
    BaselineEvent,
    BaselineRecord,
    BaselineResult,
    ErrorEvent,
    MutantRecord,
    Replay,
    Sources,
    Timing,
    WorkerConfig,
)
from .rebind import drifted_targets
from .request import reached, targets_of
from .reuse import reusable_baseline
from .split import file_of, split
from .tracing import LineTracer, Targets, TraceFromImport, line_count, untraced_rewriting


class BaselinePlugin:
    """Collects, then runs every test once with line tracing; sends the baseline on a pipe."""

    def __init__(
        self,
        targets: list[str],
        fd: int,
        reusable: dict[str, BaselineRecord] | None = None,
        sources_fd: int | None = None,
        rebindable: dict[str, str] | None = None,
        replays: dict[str, list[Replay]] | None = None,
        parts: int = 1,
    ):
        self.targets = Targets(targets)
        self.rebindable = rebindable or {}  # target -> source: modules with data mutants
        self.replays = replays or {}  # target -> other files' import-time calls into it
        self.drifted: list[str] = []
        self.names: dict[str, str] = {}  # target -> the name its module was imported by
        self.fd = fd
        self.sources_fd = sources_fd
        self.sent: Sources = Sources(modules=[], tests=[])  # what the collection imported
        self.reusable = reusable or {}  # nodeid -> a still-valid baseline record
        self.collect = LineTracer(self.targets)
        self.collect_started = time.perf_counter()
        self.collect_seconds = 0.0
        self.collect_errors: list[str] = []
        self.collect_writes: list[str] = []
        self.lazy: list[str] = []
        self.import_lines: dict[str, set[int]] = {t: set() for t in targets}
        self.skipped = False  # whether the running test's reports include a skip
        self.running = running_targets(self.targets.names)  # pytest imported them itself
        self.part_count = parts  # how many processes run the tests side by side
        self.parts_sent: list[PartResult] = []  # the forked parts' reports
        untraced_rewriting()
        # No target line can run before a target is imported: trace from then on.
        self.watch = TraceFromImport(self.targets, self.collect.trace)
        if self.targets.imported():
            sys.settrace(self.collect.trace)
        else:
            sys.meta_path.insert(0, self.watch)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: Any) -> None:
        """Stop tracing the collection; send what it imported to the parent."""
        sys.settrace(None)
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self.watch)
        for target in self.watch.missed():  # imported some other way: assume every line ran
            self.collect.lines[target].update(range(1, line_count(target) + 1))
        imported = set(self.targets.imported())
        self.lazy = [t for t in self.targets.names if t not in imported]
        for name, module in list(sys.modules.items()):
            found = self.targets(getattr(module, "__file__", None) or "")
            if found is not None and name != "__main__":
                self.names.setdefault(found, name)
        for target, lines in self.collect.lines.items():
            if target not in self.running:  # pytest imported it as it started: its bodies
                # are grafted, and what ran at collection is pytest's calls, not an import
                self.import_lines[target].update(lines)
        self.collect_seconds = time.perf_counter() - self.collect_started
        self.collect_writes = take()  # the conftests' and test modules' own, and pytest's
        rebindable = {t: s for t, s in self.rebindable.items() if t in imported}
        if rebindable:  # as the collector's children will find them, before any test runs
            self.drifted = drifted_targets(rebindable, self.replays)
        if self.sources_fd is not None:  # the parent compiles these while the tests run
            self.sent = imported_sources()
            send(self.sources_fd, self.sent)
            os.close(self.sources_fd)
            self.sources_fd = None

    def pytest_collectreport(self, report: Any) -> None:
        """Note a collection error."""
        if report.failed:
            self.collect_errors.append(f"{report.nodeid}: {str(report.longrepr)[-400:]}")

    def pytest_runtest_logreport(self, report: Any) -> None:
        """Note whether the running test skipped."""
        self.skipped = self.skipped or bool(report.skipped)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: Any) -> bool:
        """Run every test once, traced (or reuse its record); send the baseline; end."""
        items = session.items
        tests = {}
        # the next test that runs, not the next collected: pytest tears down what the next
        # item does not share, and one whose record is reused never sets anything up
        ran = [item for item in items if item.nodeid not in self.reusable]
        unreported(session.config)  # this process ends in ``os._exit``
        records = self._run_parts(ran)
        for item in items:
            tests[item.nodeid] = record = self.reusable.get(item.nodeid) or records[item.nodeid]
            for target, lines in record["imports"].items():  # a test imported it, or reloaded it
                self.import_lines.setdefault(target, set()).update(lines)
        result = BaselineResult(
            tests=tests,
            order=[i.nodeid for i in items],
            collect_lines={t: sorted(lines) for t, lines in self.import_lines.items() if lines},
            collect_seconds=self.collect_seconds,
            collect_writes=self.collect_writes,
            collect_errors=self.collect_errors,
            lazy=self.lazy,
            drifted=self.drifted,
            checked=sorted(self.rebindable),
            names=self.names,
            late_sources=_union(later_sources(self.sent), *(p["late"] for p in self.parts_sent)),
            words=grouped(words_of_tests(items)),
            stdlib=sorted(set(stdlib_imported()).union(*(p["stdlib"] for p in self.parts_sent))),
        )
        end_if_stray()
        send(self.fd, result)
        os.close(self.fd)
        os._exit(0)

    def _run_parts(self, ran: list[Any]) -> dict[str, BaselineRecord]:
        """Run ``ran``, traced, in ``split`` parts side by side: the first here, each other
        in a child forked now. A part whose child failed a test or ended without a report
        runs again here, with all after it, after the first: as one process runs them."""
        cut = split([file_of(item.nodeid) for item in ran], self.part_count) or [(0, 0)]
        forked: list[tuple[int, int, int]] = []  # (first test, pid, pipe)
        for start, end in cut[1:]:
            read_fd, write_fd = os.pipe()
            pid = fork_child(partial(self._run_part, ran[start:end], read_fd, write_fd))
            os.close(write_fd)
            forked.append((start, pid, read_fd))
        start, end = cut[0]
        records = self._run_all(ran[start:end])
        again: int | None = None
        for start, pid, read_fd in forked:
            data = drain(read_fd, pid)
            part: PartResult | None = json.loads(data) if data else None
            if again is None and (part is None or _failing(part["records"])):
                again = start
            if again is None and part is not None:
                records.update(part["records"])
                self.parts_sent.append(part)
        if again is not None:
            records.update(self._run_all(ran[again:]))
        return records

    def _run_part(self, items: list[Any], read_fd: int, write_fd: int) -> int:
        """In a part's child: run ``items``, send what they gave on ``write_fd``."""
        os.close(read_fd)
        os.close(self.fd)
        done = self._run_all(items)
        late, stdlib = later_sources(self.sent), stdlib_imported()
        end_if_stray()
        send(write_fd, PartResult(records=done, late=late, stdlib=stdlib))
        return 0

    def _run_all(self, items: list[Any]) -> dict[str, BaselineRecord]:
        """Run ``items`` in order, traced; each test tears down what the next does not share."""
        following = dict(zip(items, [*items[1:], None]))
        return {item.nodeid: self._run(item, following[item]) for item in items}

    def _run(self, item: Any, nextitem: Any) -> BaselineRecord:
        tracer = LineTracer(self.targets)
        self.skipped = False
        started = time.perf_counter()
        with ImportWatch(self.targets) as watch, following(tracer.lines):
            sys.settrace(tracer.trace)
            try:
                failed = run_protocol(item, nextitem)
            finally:
                sys.settrace(None)
        writes = take()
        outcome = "failed" if failed else "skipped" if self.skipped else "passed"
        duration = time.perf_counter() - started
        imports = {t: sorted(lines) for t, lines in tracer.import_lines.items() if lines}
        lines = tracer.found()
        return BaselineRecord(
            outcome=outcome,
            duration=duration,
            lines=lines,
            imports=imports,
            imported=watch.imported(),
            writes=writes,
        )


class PartResult(TypedDict):
    """What a forked part of the baseline reports: its tests' records, and the project
    files and standard library modules its tests imported."""

    records: dict[str, BaselineRecord]
    late: Sources
    stdlib: list[str]


def _failing(records: dict[str, BaselineRecord]) -> bool:
    return any(record["outcome"] == "failed" for record in records.values())


def _union(first: Sources, *others: Sources) -> Sources:
    """Each kind of file of ``first`` and ``others``, once, in first-seen order."""
    modules = list(dict.fromkeys([*first["modules"], *(m for o in others for m in o["modules"])]))
    tests = list(dict.fromkeys([*first["tests"], *(t for o in others for t in o["tests"])]))
    return Sources(modules=modules, tests=tests)


def later_sources(sent: Sources) -> Sources:
    """The project files imported since ``sent`` was taken: those the tests import as they
    run (``import`` inside a function), which every mutant's child would compile again."""
    now = imported_sources()
    modules, tests = set(sent["modules"]), set(sent["tests"])
    return Sources(
        modules=[path for path in now["modules"] if path not in modules],
        tests=[path for path in now["tests"] if path not in tests],
    )


def run_baseline(
    config: WorkerConfig,
    starter: Starter,
    on_collected: Callable[[Sources], None] | None = None,
    rebindable: dict[str, str] | None = None,
    meanwhile: Iterator[None] | None = None,
) -> BaselineResult:
    """Fork a child that collects and runs every test once; return what it measured.

    ``on_collected`` gets the project files the collection imported as soon as
    it ends, and runs here while the child runs the tests. ``rebindable`` (target ->
    source): modules with data mutants, checked for drift once collected.
    ``meanwhile``: work taken step by step here while the child collects, no longer.
    """
    read_fd, write_fd = os.pipe()
    sources_read, sources_write = os.pipe()
    errors = config["results"] + ".baseline-stderr"

    def child() -> int:
        os.close(read_fd)
        os.close(sources_read)
        _baseline_child(config, starter, write_fd, sources_write, errors, rebindable)
        return 0

    pid = fork_child(child)
    os.close(write_fd)
    os.close(sources_write)
    if meanwhile is not None:
        _until_readable(sources_read, meanwhile)
    sources = read_all(sources_read)  # ends when collection does (or the child exits)
    if sources and on_collected is not None:
        with contextlib.suppress(ValueError):
            on_collected(json.loads(sources))
    data = drain(read_fd, pid)
    result: BaselineResult = json.loads(data) if data else {"pytest_exit": -1}
    if "tests" not in result and not result.get("stderr"):
        result["stderr"] = _tail(errors)
    return result


def _until_readable(fd: int, steps: Iterator[None]) -> None:
    """Take ``steps`` while ``fd`` has nothing to read."""
    for _ in steps:
        if select.select([fd], [], [], 0)[0]:
            return


def _baseline_child(
    config: WorkerConfig,
    starter: Starter,
    fd: int,
    sources_fd: int,
    errors: str,
    rebindable: dict[str, str] | None,
) -> None:
    quiet(stderr_to=errors)
    try:
        reusable = reusable_baseline(config)
        replays = config.get("replays")
        parts = int(config.get("workers", 1))
        plugin = BaselinePlugin(
            targets_of(config), fd, reusable, sources_fd, rebindable, replays, parts
        )
        code = starter.main(plugin)
        # Reached only when pytest stopped before running tests (usage or collection errors).
        end_if_stray()
        send(fd, BaselineResult(pytest_exit=int(code), collect_errors=plugin.collect_errors))
    except BaseException as exc:
        end_if_stray()
        with contextlib.suppress(OSError):
            send(fd, BaselineResult(pytest_exit=-1, stderr=f"{type(exc).__name__}: {exc}"[-1500:]))


def _tail(path: str, lines: int = 6) -> str:
    """The last meaningful lines a failed pytest start printed."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            kept = [line.rstrip() for line in handle if line.strip()]
    except OSError:
        return ""
    return " | ".join(kept[-lines:])[-1500:]


def baseline_error(baseline: BaselineResult) -> ErrorEvent | None:
    """Why the baseline cannot be scored against, or None when it can."""
    if baseline.get("collect_errors"):
        message = "; ".join(baseline["collect_errors"])[:2000]
        return ErrorEvent(event=ERROR, kind="collection", message=message)
    if "tests" not in baseline:
        detail = baseline.get("stderr") or f"exit {baseline.get('pytest_exit')}"
        return ErrorEvent(event=ERROR, kind="pytest", message=f"pytest could not start: {detail}")
    failing = [n for n, t in baseline["tests"].items() if t["outcome"] == "failed"]
    if failing:
        return ErrorEvent(event=ERROR, kind="baseline_failing", failing=failing)
    if not baseline["tests"]:
        return ErrorEvent(event=ERROR, kind="no_tests", message="no tests were collected")
    return None


def baseline_event(tests: dict[str, BaselineRecord], measured: Measured) -> BaselineEvent:
    """The baseline as the host reads it: every test's outcome, duration and lines."""
    timings = {n: Timing(duration=t["duration"], outcome=t["outcome"]) for n, t in tests.items()}
    return BaselineEvent(
        event=BASELINE,
        tests=timings,
        coverage={n: t["lines"] for n, t in tests.items()},
        imports={n: t["imports"] for n, t in tests.items() if t["imports"]},
        imported={n: t["imported"] for n, t in tests.items() if t["imported"]},
        writes={n: t["writes"] for n, t in tests.items() if t["writes"]},
        collect_lines={t: sorted(lines) for t, lines in measured.collect_lines.items() if lines},
        collect_seconds=measured.collect_seconds,
        lazy=sorted(measured.lazy),
    )


Line = Tuple[str, int]  # (target, line number)

# CPU seconds: a child's own start (fork, switching the mutant on, about 8 ms) and a failing
# test's report (up to 90 ms beyond its own time, measured on toolz's killed mutants)
FLOOR_LEAST = 0.1


def timeout_floor(durations: Iterable[float], cap: float) -> float:
    """The CPU seconds every child's budget starts with, whatever tests it runs.

    A child may redo work the baseline timed in a test it does not run: a shared
    fixture's setup is timed in the first test that used it, and costs at most that
    test's whole run. So the floor is twice the slowest passing test (for noise)
    above ``FLOOR_LEAST``, and never more than ``cap`` (the configured floor). A
    suite of fast tests gets a low floor, and an endless loop there ends sooner.
    """
    slowest = max(durations, default=0.0)
    return min(cap, FLOOR_LEAST + 2 * slowest)


@dataclass(frozen=True)
class Measured:
    """What the baseline measured of the passing tests, and the CPU budgets it gives.

    Only passing tests can kill a mutant; skipped and xfailed ones never fail.
    A child's budget is ``floor + factor x`` the baseline time of the tests it runs;
    ``floor`` is ``timeout_floor`` of the configured one.
    """

    durations: dict[str, float]
    by_speed: list[str]  # every passing test, fastest first: what a fresh mutant runs
    cover: dict[Line, list[str]]  # (target, line) -> the passing tests that ran it
    collect_lines: dict[str, set[int]]  # target -> lines run while a target was imported
    collect_seconds: float
    floor: float
    factor: float
    default_target: str = ""  # the target of a mutant that names none
    lazy: frozenset[str] = frozenset()  # targets the collection did not import
    users: dict[str, set[str]] = field(default_factory=dict)  # target -> tests running it
    drifted: frozenset[str] = frozenset()  # targets whose data rebind would refuse
    checked: frozenset[str] = frozenset()  # targets the baseline checked for drift
    names: dict[str, str] = field(default_factory=dict)  # target -> its module's name
    importers: dict[str, set[str]] = field(default_factory=dict)  # target -> tests importing it
    affinity: Affinity = field(default_factory=Affinity)  # the words tests name
    stdlib: tuple[str, ...] = ()  # the standard library's modules the baseline imported

    @classmethod
    def of(cls, baseline: BaselineResult, floor: float, factor: float, target: str) -> Measured:
        """Read a baseline that ``baseline_error`` found fit (``target``: the default one)."""
        tests = baseline["tests"]
        durations = {n: t["duration"] for n, t in tests.items() if t["outcome"] == "passed"}
        by_speed = sorted(durations, key=durations.__getitem__)
        cover = _coverage_index({n: t for n, t in tests.items() if n in durations})
        collect_seconds = float(baseline.get("collect_seconds", 0.0))
        lines = {t: set(found) for t, found in baseline["collect_lines"].items()}
        lazy = frozenset(baseline.get("lazy", []))
        users: dict[str, set[str]] = {}
        importers: dict[str, set[str]] = {}
        for nodeid in durations:
            for name in [*tests[nodeid]["lines"], *tests[nodeid]["imported"]]:
                users.setdefault(name, set()).add(nodeid)
            for name in tests[nodeid]["imported"]:
                importers.setdefault(name, set()).add(nodeid)
        floor = timeout_floor(durations.values(), floor)
        drifted = frozenset(baseline.get("drifted", []))
        checked = frozenset(baseline.get("checked", []))
        return cls(
            durations,
            by_speed,
            cover,
            lines,
            collect_seconds,
            floor,
            factor,
            target,
            lazy,
            users,
            drifted,
            checked,
            dict(baseline.get("names", {})),
            importers,
            Affinity.of(baseline.get("words", []), durations),
            tuple(baseline.get("stdlib", [])),
        )

    def target(self, m: MutantRecord) -> str:
        """The file ``m`` mutates."""
        return m.get("target") or self.default_target

    def covering(self, m: MutantRecord) -> list[str]:
        """The tests a mutant's child runs, fastest first: those running its lines (graft),
        or all (fresh)."""
        if m["strategy"] != "graft":
            return self.by_speed
        target = self.target(m)
        nodeids: set[str] = set()
        for line in reached(m):
            nodeids.update(self.cover.get((target, line), ()))
        return sorted(nodeids, key=self.durations.__getitem__)

    def tests_running(self, target: str, lines: Iterable[int]) -> set[str]:
        """The passing tests that ran any of ``lines`` of ``target``."""
        return {n for line in lines for n in self.cover.get((target, line), ())}

    def tests_of(self, target: str) -> set[str]:
        """The passing tests that ran any line of ``target`` or imported it."""
        return self.users.get(target, set())

    def imported_lines(self, m: MutantRecord) -> set[int]:
        """The lines of ``m``'s target run while a target was imported."""
        return self.collect_lines.get(self.target(m), set())

    def seconds(self, nodeids: list[str]) -> float:
        """What ``nodeids`` took in the baseline, together (a test that did not pass: 0)."""
        return sum(self.durations.get(n, 0.0) for n in nodeids)

    def timeout(self, nodeids: list[str], extra: float = 0.0) -> float:
        """The CPU budget of a child running ``nodeids`` (plus ``extra`` seconds)."""
        return self.floor + extra + self.factor * float(sum(self.durations[n] for n in nodeids))

    def deadlines(self, nodeids: list[str]) -> dict[str, float]:
        """Per test of a child running ``nodeids`` in order, the CPU it may have used by that
        test's end, from its first test's start: the floor, and ``factor x`` the tests so
        far. The last is ``timeout(nodeids)``, and a loop in an early test ends sooner."""
        spent = self.floor
        found: dict[str, float] = {}
        for nodeid in nodeids:
            spent += self.factor * self.durations.get(nodeid, 0.0)
            found[nodeid] = spent
        return found

    def fresh_limit(self) -> float:
        """A fresh mutant's CPU budget: every test by speed, and its own imports and collection."""
        return self.timeout(self.by_speed, self.collect_seconds * 3)


def _coverage_index(tests: dict[str, BaselineRecord]) -> dict[Line, list[str]]:
    index: dict[Line, list[str]] = {}
    for nodeid, data in tests.items():
        for target, lines in data["lines"].items():
            for line in lines:
                index.setdefault((target, line), []).append(nodeid)
    return index
