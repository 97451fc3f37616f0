"""One scoring request, phase by phase: baseline, plan, graft and rebind, fresh, done.

pytest's configuration (options, ini, plugins, conftests) is prepared once,
in a child of the pristine process, and every phase forks from it. If
preparing imports the target, that child is spoiled and the pristine
process scores instead, each child starting pytest itself.
"""

from __future__ import annotations

import gc
import os
import time
from typing import Callable

from .baseline import Measured, baseline_error, baseline_event, run_baseline
from .codecache import CODE_CACHE
from .fresh import run_each_fresh, run_fresh, start_fresh
from .graft import CompiledAhead, start_graft
from .hosting import Starter
from .journal import Journal
from .plan import Plan, plan, rebindable
from .processes import STRAY_STATUS, end_if_stray, fork_child, stray
from .project_guard import enforce, install
from .protocol import (
    DONE,
    BaselineResult,
    DoneEvent,
    MutantRecord,
    Sources,
    Timings,
    WorkerConfig,
)
from .request import Request

_SPOILED = 3  # the exit status of a child whose preparation imported the target


def score_request(config: WorkerConfig, starter: Starter | None = None) -> None:
    """Score one request, with ``starter`` (warm mode's prepared config) or preparing its own.

    Runs in a forked, quiet process (see ``serve.run_request``).
    """
    request = Request.read(config)
    install(os.getcwd())  # the project: the tests run in it (see ``project_guard``)
    if starter is None:
        starter = Starter(config)
        if _scored_prepared(request, starter):
            return
    score(request, starter)


def _scored_prepared(request: Request, starter: Starter) -> bool:
    """Prepare pytest's config in a child and score there; False when preparing imported
    the target (a conftest did) or pytest could not start.

    Preparing loads the conftests, and a module imported then stays imported
    in every process forked after: the import hook could no longer serve a
    mutant of the target, and the baseline would see no line of it run. So
    a process that imported it is spoiled and left, and this one, still
    pristine, scores with each child starting pytest by itself.
    """

    def child() -> int:
        starter.prepare(request.targets)
        if starter.prepared is None:
            return _SPOILED
        return guarded(lambda: score(request, starter), request.journal)

    _, status = os.waitpid(fork_child(child), 0)
    return not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == _SPOILED)


def score(request: Request, starter: Starter) -> None:
    """Baseline, then every mutant by its way; the journal gets each verdict as it comes."""
    started = time.monotonic()
    gc.collect()
    gc.freeze()  # every child shares this heap instead of copying it on its first collection
    sources = {t: module.source for t, module in request.modules.items()}
    ahead = CompiledAhead(request)
    compile_ahead = _compile_ahead(request, starter)
    baseline = run_baseline(
        request.config, starter, compile_ahead, rebindable(request.config, sources), ahead.steps()
    )
    late = baseline.get("late_sources")
    if late and (late["modules"] or late["tests"]):
        compile_ahead(late)  # imported by the tests as they ran: else every child compiles it
    timings = Timings(prepare=starter.prepared is not None, baseline=time.monotonic() - started)
    error = baseline_error(baseline)
    if error is not None:
        request.journal.emit(error)
        return
    enforce(_written(baseline))  # every child forked from here on: the mutants'
    measured = Measured.of(baseline, request.floor, request.factor, request.target)
    request.journal.emit(baseline_event(baseline["tests"], measured))
    found = plan(request.config, sources, measured)
    for m, verdict in found.reused:
        request.journal.reused(m, verdict)
    for m in found.uncovered:
        request.journal.uncovered(m)
    mark = time.monotonic()
    fallback = _judge(request, measured, starter, found, ahead)
    timings["mutants"] = time.monotonic() - mark
    elapsed = time.monotonic() - started
    counts = found.counts(fallback)
    request.journal.emit(DoneEvent(event=DONE, elapsed=elapsed, timings=timings, counts=counts))


def _written(baseline: BaselineResult) -> set[str]:
    """The project paths the unmutated tests wrote, removed or made, collecting included."""
    found = set(baseline.get("collect_writes", []))
    for record in baseline.get("tests", {}).values():
        found.update(record.get("writes", []))
    return found


def _judge(
    request: Request, measured: Measured, starter: Starter, found: Plan, ahead: CompiledAhead
) -> list[MutantRecord]:
    """The collector's mutants and the fresh ones side by side, sharing the worker slots;
    then what either handed back. The mutants the collector handed to the fresh path."""
    fresh = sorted(found.fresh, key=lambda m: (request.target_of(m), m["line"], m["col"]))
    collector = start_graft(request, measured, starter, found.graft, ahead) if found.graft else None
    fresh_host = start_fresh(request, measured, starter, fresh, found.seeing) if fresh else None
    handed = collector.wait() if collector is not None else set()
    fallback = [m for m, _ in found.graft if m["id"] in handed]
    early = fresh_host.wait() if fresh_host is not None else set()
    run_each_fresh(request, measured, starter, [m for m in fresh if m["id"] in early], found.seeing)
    run_fresh(request, measured, starter, fallback, found.seeing)  # rebind refused some
    return fallback


def _compile_ahead(request: Request, starter: Starter) -> Callable[[Sources], None]:
    """What to do with the files the collection imported: compile them once, here, for every
    child forked from here."""

    def compile_ahead(sources: Sources) -> None:
        request.journal.sources(sources)  # a warm worker keeps them compiled (serve)
        CODE_CACHE.add_sources(sources, starter.prepared)  # the config every child shares

    return compile_ahead


def guarded(call: Callable[[], None], journal: Journal) -> int:
    """Run ``call``; report an exception as the request's error. The exit status to use."""
    try:
        call()
    except BaseException as exc:
        end_if_stray()  # a copy a test forked, not this request's process: it reports nothing
        journal.error("worker", f"{type(exc).__name__}: {exc}{_where(exc)}")
        return 1
    return STRAY_STATUS if stray() else 0


def _where(exc: BaseException) -> str:
    """Where ``exc`` was raised: the innermost frame's file name and line, for the report."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return ""
    return f" (at {os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno})"
