"""tddforge's pytest plugin: one JSON line per test phase, collection report and session.

Loaded as ``-p tddforge_target.pytest_plugin``: the runner ships this package
into a private directory and puts it on ``PYTHONPATH``. It runs under the
*target project's* interpreter, which may not have tddforge installed, so it
imports only the standard library, pytest and its siblings.

Lines go to the file named by ``TDDFORGE_RESULTS``, appended and flushed one
by one, so a run killed mid-test still leaves every finished phase behind.

With ``TDDFORGE_SHUFFLE=SEED`` the collected tests run in an order shuffled
with that seed (the same seed gives the same order), so reruns in new orders
need not wait for a first run to learn the test ids.

With ``TDDFORGE_ISOLATE=1`` every test runs in its own child forked from the
collected session, so each test sees the state collection left and nothing
an earlier test did: one run checks that every test passes *alone*. The
child sends its reports back serialized; the parent logs them as usual.
With ``TDDFORGE_AFTER`` too (node ids, one per line), those tests do not run
on their own: each other test's child runs them first, unreported, in the
collected order: whether a test fails right after them.

With ``TDDFORGE_ORDERS=SEED,SEED...`` the collected session runs its tests
once per seed, each time in a child forked from it (so no run sees what an
earlier one did) and in that seed's shuffled order, its objects' addresses
shifted at random (``addresses.py``): several reruns for one interpreter start.
Run ``i`` writes its lines to the results file plus ``.i`` and gets
``TDDFORGE_ORDER_TIMEOUT`` seconds; one cut off there ends with
``{"event": "timeout"}``.

With ``TDDFORGE_CONTEXTS=1`` under coverage.py, each test's setup, call and
teardown are measured in a coverage context named by its node id, so what
the test ran is known exactly (fixtures included); code run outside a test
(collection, imports) stays in the empty context.
With ``TDDFORGE_COVERAGE_JSON=PATH`` under coverage.py, the run ends by writing
coverage.py's JSON report there (of the files in ``TDDFORGE_COVERAGE_INCLUDE``,
one per line, when given; with each line's contexts under ``TDDFORGE_CONTEXTS``):
another interpreter would import coverage.py and read the data again for it.
Line shapes::

    {"event": "collected", "nodeids": [...]}                the tests about to run
    {"event": "start", "nodeid": ...}                       a test begins
    {"event": "test", "nodeid", "when", "outcome", "duration", ...failure}
    {"event": "collect", "nodeid", "outcome", ...failure}
    {"event": "session", "exitstatus": int}

A failure adds ``exc_type``, ``exc_module``, ``missing_name``, ``message``
and ``location``, taken from the exception itself, never from pytest's text.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import traceback
from typing import IO, Any

import pytest

from .addresses import shift_at_random
from .names import CANNOT_IMPORT
from .processes import end_if_stray, fork_child, in_fork, reap
from .single_process import keep_in_process

MESSAGE_LIMIT = 2000
_WRAPPERS = {"CollectError", "ConftestImportFailure"}
_KEY = "_tddforge_failure"
_sink: IO[str] | None = None
_isolate = False
_after: frozenset[str] = frozenset()
_before: list[pytest.Item] | None = None  # the ``_after`` items, found once
_shuffle: str | None = None
_results: str | None = None
_orders: list[str] = []
_order_timeout = 0.0
_report: tuple[str, list[str], bool] | None = None  # where, of which files, with contexts


def _write(record: dict[str, Any]) -> None:
    if _sink is not None:
        _sink.write(json.dumps(record, default=str) + "\n")
        _sink.flush()


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's (trylast) starts its workers
def pytest_configure(config: pytest.Config) -> None:
    """Open the results file named by ``TDDFORGE_RESULTS`` (append mode).

    The tests run in this process even when the project's addopts ask
    pytest-xdist for workers (``-n``): coverage contexts, shuffled orders and
    forked isolation all happen here.
    """
    global _sink, _isolate, _after, _shuffle, _results, _orders, _order_timeout, _report
    keep_in_process(config)
    _isolate = os.environ.pop("TDDFORGE_ISOLATE", "") == "1" and hasattr(os, "fork")
    _after = frozenset(n for n in os.environ.pop("TDDFORGE_AFTER", "").splitlines() if n)
    _shuffle = os.environ.pop("TDDFORGE_SHUFFLE", None) or None
    orders = os.environ.pop("TDDFORGE_ORDERS", "")
    _orders = [seed for seed in orders.split(",") if seed] if hasattr(os, "fork") else []
    _order_timeout = float(os.environ.pop("TDDFORGE_ORDER_TIMEOUT", "0") or 0)
    path = os.environ.pop("TDDFORGE_RESULTS", None)
    if path and _sink is None:
        _results = path
        _sink = open(path, "a", encoding="utf-8")  # noqa: SIM115 - open for the session
    contexts = os.environ.pop("TDDFORGE_CONTEXTS", "") == "1"
    if contexts:
        coverage = _running_coverage()
        if coverage is not None:
            config.pluginmanager.register(_Contexts(coverage), "tddforge_contexts")
    report = os.environ.pop("TDDFORGE_COVERAGE_JSON", "")
    include = os.environ.pop("TDDFORGE_COVERAGE_INCLUDE", "").splitlines()
    _report = (report, [path for path in include if path], contexts) if report else None


def _running_coverage() -> Any:
    try:
        import coverage
    except ImportError:
        return None
    current = getattr(coverage.Coverage, "current", None)
    return current() if current is not None else None


class _Contexts:
    """Switches coverage.py's context to each test's node id while the test runs."""

    def __init__(self, coverage: Any) -> None:
        self.coverage = coverage

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item) -> Any:
        self.coverage.switch_context(item.nodeid)
        yield
        self.coverage.switch_context("")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Shuffle the tests (after every other plugin chose and ordered them) when asked to."""
    if _shuffle is not None:
        random.Random(_shuffle).shuffle(items)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Record the tests about to run, so that one an earlier test kept from running is known."""
    _write({"event": "collected", "nodeids": [item.nodeid for item in session.items]})


def pytest_unconfigure(config: pytest.Config) -> None:
    """Close the results file; write the coverage report when asked to."""
    global _sink
    if _sink is not None:
        _sink.close()
        _sink = None
    if _report is not None:
        write_coverage_report(*_report)


def write_coverage_report(path: str, include: list[str], contexts: bool) -> None:
    """Stop coverage.py and write its JSON report at ``path``; nothing there when it
    cannot (no data measured, an older coverage.py): the caller then asks coverage.py's
    command line, as before. What runs after this (other plugins' ends) is not measured,
    as nothing after pytest returns is."""
    coverage = _running_coverage()
    if coverage is None:
        return
    try:
        coverage.stop()
        coverage.save()
        with contextlib.redirect_stdout(io.StringIO()):  # "Wrote JSON report to ..."
            coverage.json_report(outfile=path, include=include or None, show_contexts=contexts)
    except Exception:
        with contextlib.suppress(OSError):
            os.remove(path)


def original_exception(exc: BaseException) -> BaseException:
    """The exception pytest wrapped (CollectError, ConftestImportFailure), else ``exc``."""
    seen = set()
    while type(exc).__name__ in _WRAPPERS and id(exc) not in seen:
        seen.add(id(exc))
        inner = exc.__cause__ or getattr(exc, "cause", None) or exc.__context__
        if not isinstance(inner, BaseException):
            break
        exc = inner
    return exc


def describe(exc: BaseException, test_file: str | None) -> dict[str, Any]:
    """The cheap facts about a failure: class, module, missing name, message, location."""
    exc = original_exception(exc)
    message = _message(exc)
    return {
        "exc_type": type(exc).__name__,
        "exc_module": type(exc).__module__,
        "missing_name": _missing_name(exc, message),
        "message": message[:MESSAGE_LIMIT],
        "location": _location(exc, test_file),
        "raised_in": _raised_in(exc),
    }


def _missing_name(exc: BaseException, message: str) -> str | None:
    """The name that was not found: module, attribute, variable, imported symbol or fixture."""
    if type(exc).__name__ == "FixtureLookupError":
        name = getattr(exc, "argname", None)
    elif type(exc) is ImportError and (found := CANNOT_IMPORT.match(message)):
        # ``from mod import sym``: ``exc.name`` is "mod"; the missing name is "sym".
        name = found.group(1)
    else:
        name = getattr(exc, "name", None)
    return name if isinstance(name, str) else None


def _message(exc: BaseException) -> str:
    if type(exc).__name__ == "FixtureLookupError":
        msg = getattr(exc, "msg", None)
        return msg or f"fixture {getattr(exc, 'argname', None)!r} not found"
    try:
        return str(exc)
    except Exception:  # a broken __str__ must not break the report
        return repr(type(exc))


def _location(exc: BaseException, test_file: str | None) -> str | None:
    """``file:line`` of the last frame in the test file (or of a syntax error)."""
    if isinstance(exc, SyntaxError):
        return f"{_relative(exc.filename)}:{exc.lineno}" if exc.filename else None
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    for frame in reversed(frames):
        if test_file is None or os.path.abspath(frame.filename) == test_file:
            return f"{_relative(frame.filename)}:{frame.lineno}"
    return None


def _raised_in(exc: BaseException) -> str | None:
    """The file the exception was raised in (the traceback's innermost frame), relative."""
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    return _relative(frames[-1].filename) if frames else None


def _relative(filename: str) -> str:
    """``filename`` relative to the working directory when it lies below it."""
    path = os.path.abspath(filename)
    cwd = os.getcwd()
    return os.path.relpath(path, cwd) if path.startswith(cwd + os.sep) else filename


def _test_file(node: Any) -> str | None:
    path = getattr(node, "path", None)
    return os.path.abspath(str(path)) if path is not None else None


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    """With ``TDDFORGE_ORDERS``, run the tests once per seed, each run in its own child."""
    if not _orders or session.config.option.collectonly:
        return None
    for index, seed in enumerate(_orders):
        _run_order(session, index, seed)
    return True


def _run_order(session: pytest.Session, index: int, seed: str) -> None:
    path = f"{_results}.{index}"

    def child() -> int:  # this order's run, never returning into pytest
        global _sink
        if _sink is not None:  # the parent's stays open there; here it is closed, or
            _sink.close()  # its collection warns (ResourceWarning) inside some test
            _sink = open(path, "a", encoding="utf-8")  # noqa: SIM115 - the child's own
        items = list(session.items)
        random.Random(seed).shuffle(items)
        shift_at_random()  # and its objects elsewhere: a set of them in another order
        for i, item in enumerate(items):
            nextitem = items[i + 1] if i + 1 < len(items) else None
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        _write({"event": "session", "exitstatus": 1 if session.testsfailed else 0})
        return 0

    pid = fork_child(child)
    if not reap(pid, _order_timeout):
        with open(path, "a", encoding="utf-8") as cut:
            cut.write(json.dumps({"event": "timeout"}) + "\n")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    """With isolation on, run the test's setup, call and teardown in a forked child."""
    if not _isolate:
        return None
    global _before
    if item.nodeid in _after:  # run before each other test, not on its own
        return True
    if _before is None:
        _before = [i for i in item.session.items if i.nodeid in _after]
    hook = item.ihook
    hook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    for report in _forked(item, _before):
        hook.pytest_runtest_logreport(report=report)
    hook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


def _forked(item: pytest.Item, before: list[pytest.Item]) -> list[pytest.TestReport]:
    from _pytest.runner import runtestprotocol

    config = item.config

    def run() -> bytes:  # in the child: run the test, send the reports
        for earlier in before:  # what they leave behind stays for the test; their reports not
            runtestprotocol(earlier, nextitem=None, log=False)
        reports = runtestprotocol(item, nextitem=None, log=False)
        hook = config.hook
        data = [hook.pytest_report_to_serializable(config=config, report=r) for r in reports]
        return json.dumps(data, default=str).encode()

    payload, status = in_fork(run, lambda exc: json.dumps({"error": repr(exc)}).encode(), None)
    try:
        data = json.loads(payload)
        if isinstance(data, list):
            return [
                config.hook.pytest_report_from_serializable(config=config, data=d) for d in data
            ]
        reason = f"the test's process failed: {data.get('error')}"
    except ValueError:
        reason = f"the test's process died (wait status {status})"
    report = pytest.TestReport(item.nodeid, item.location, {}, "failed", reason, "call")
    died = {"exc_type": "ProcessDied", "exc_module": None, "missing_name": None}
    setattr(report, _KEY, {**died, "message": reason, "location": None})
    return [report]


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    """Record that a test began, so a run killed inside it can name it."""
    _write({"event": "start", "nodeid": nodeid})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Attach the failure facts to the report while the real exception is at hand."""
    outcome = yield
    report = outcome.get_result()
    excinfo = call.excinfo
    if excinfo is not None and report.failed:
        setattr(report, _KEY, describe(excinfo.value, _test_file(item)))


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    """Attach the failure facts to a failed collection report (unwrapping CollectError)."""
    outcome = yield
    report = outcome.get_result()
    call = report.__dict__.get("call")
    excinfo = getattr(call, "excinfo", None)
    if excinfo is not None and report.failed:
        setattr(report, _KEY, describe(excinfo.value, _test_file(collector)))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """One line per setup/call/teardown report (none from a stray: it ends here)."""
    end_if_stray()
    record = {
        "event": "test",
        "nodeid": report.nodeid,
        "when": report.when,
        "outcome": report.outcome,
        "duration": report.duration,
    }
    if hasattr(report, "wasxfail"):
        record["wasxfail"] = str(report.wasxfail)
    _write({**record, **_failure(report)})


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """One line per collection report."""
    record = {"event": "collect", "nodeid": report.nodeid, "outcome": report.outcome}
    _write({**record, **_failure(report)})


def _failure(report: pytest.TestReport | pytest.CollectReport) -> dict[str, Any]:
    """Failure facts, or the skip reason, or the short text pytest gives without an exception."""
    facts = getattr(report, _KEY, None)
    if facts is not None:
        return dict(facts)
    if report.skipped and isinstance(report.longrepr, tuple):
        return {"message": str(report.longrepr[2])[:MESSAGE_LIMIT]}
    if report.failed:
        return {"exc_type": None, "message": str(report.longrepr)[:MESSAGE_LIMIT]}
    return {}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The last line: pytest's exit status."""
    _write({"event": "session", "exitstatus": int(exitstatus)})
