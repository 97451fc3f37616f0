"""The mutation worker: runs under the TARGET project's interpreter, with only the stdlib and pytest.

It is shipped as a file and started by path (``python worker.py CONFIG.json``),
so the project under test never needs tddforge installed. Phases:

1. **Baseline.** A child forked from this pristine process (pytest imported,
   nothing of the project) collects the tests and runs each once, recording
   its outcome, duration and the target's lines it executed. It also records
   the target lines executed *during collection*: a function body run at
   import time cannot be switched on after collection.
2. **Graft mutants** (inside a top-level function or method body). One
   collector child collects the tests but never runs one; per mutant it forks
   a grandchild that gives the live function objects the mutated ``__code__``
   and runs only the covering tests, fastest first, stopping at the first
   failure. No test's side effects can leak into another mutant's verdict,
   because every grandchild starts from the never-run collector.
   Mutants in simple module-level statements (data: ``RULES = [...]``, a
   registering call) are switched on in the same collector by ``rebind``:
   the mutated source runs again in the live module's namespace; functions
   and classes keep their identity, containers change in place. What it
   cannot carry over faithfully (a changed class body, an import-time
   closure, an instance of the module's class) falls back to a fresh import.
3. **Fresh mutants** (other import-time code, or a graft or rebind that cannot be applied).
   One host child starts a pytest session; where collection begins it forks
   a child per mutant, which imports the mutated module through an import
   hook (the user's file is never written), collects, and runs the tests
   fastest first up to the first failure. When the target was imported
   before collection (a conftest imports it), each mutant's child starts
   pytest whole from the pristine process instead.

pytest's configuration (options, ini, plugins, conftests) is prepared once,
in a child of the pristine process, and every phase forks from it. If
preparing imports the target, that child is spoiled and the pristine
process scores instead, each child starting pytest itself.

``--ground-truth CONFIG ID`` runs one mutant the slow, obviously-correct way:
this fresh interpreter, the import hook, every test in file order.

Results are JSON lines appended to the results file and flushed one by one.
``--serve`` keeps the pristine process alive and takes one config per stdin
line (warm mode): re-scoring then skips interpreter start-up and imports.
"""

from __future__ import annotations

import contextlib
import gc
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import select
import signal
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import pytest

VERDICTS = ("killed", "survived", "timeout", "no-coverage", "error")


# -- small helpers -------------------------------------------------------------


class Results:
    """Appends JSON lines to the results file, one flushed write per line."""

    def __init__(self, path: str):
        self.path = path

    def emit(self, **data: Any) -> None:
        line = (json.dumps(data) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)


def line_offsets(source: str) -> list[int]:
    offsets = [0]
    for line in source.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    return offsets


def apply_mutant(source: str, offsets: list[int], m: dict[str, Any]) -> str:
    start = offsets[m["line"] - 1] + m["col"]
    end = offsets[m["end_line"] - 1] + m["end_col"]
    if source[start:end] != m["original"]:
        raise ValueError(f"mutant {m['id']} does not match the source")
    return source[:start] + str(m["replacement"]) + source[end:]


def _quiet(stderr_to: str | None = None) -> None:
    """Send a child's output to /dev/null (stderr optionally to a file): verdicts travel by pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    if stderr_to is None:
        os.dup2(devnull, 2)
    else:
        errors = os.open(stderr_to, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(errors, 2)
        os.close(errors)
    os.close(devnull)


def _limit_cpu(seconds: float, backstop: float | None = None) -> None:
    """End this process once it has used ``seconds`` more CPU time.

    ``ITIMER_PROF`` measures the process's CPU time exactly and raises SIGPROF
    (which ends the process unless it is handled); ``RLIMIT_CPU`` (whole seconds
    from the process's start, raised by the kernel even while C code runs) is a
    backstop a second or more later, set once, at ``backstop`` seconds from now
    when given (a hard limit can only be lowered).
    """
    _cpu_timer(seconds)
    try:
        import resource

        used = time.process_time()
        limit = max(1, int(used + (backstop or seconds) + 1.999))
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1))
    except (ImportError, ValueError, OSError):
        pass


def _cpu_timer(seconds: float) -> None:
    """SIGPROF once this process has used ``seconds`` more CPU time (exactly)."""
    with contextlib.suppress(AttributeError, ValueError, OSError):
        signal.setitimer(signal.ITIMER_PROF, max(seconds, 0.001))


_OUT_OF_CPU = (signal.SIGPROF, signal.SIGXCPU, signal.SIGKILL)


def _send(fd: int, data: dict[str, Any]) -> None:
    payload = json.dumps(data).encode()
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]


_VERDICT_FD: int | None = None  # in a child forked by ``Pool``: where its verdict goes


def deliver(result: dict[str, Any]) -> NoReturn:
    """End a ``Pool`` child with its verdict, at once: nothing after it can change the verdict,
    and pytest's session end (summaries, its garbage collections) costs more than a test."""
    code = 0
    try:
        if _VERDICT_FD is not None:
            _send(_VERDICT_FD, result)
    except BaseException:
        code = 1
    os._exit(code)


class SameFile:
    """``co_filename`` may be relative or pass through a symlink: compare real paths, cached."""

    def __init__(self, target: str):
        self.target = os.path.realpath(target)
        self._seen: dict[str, bool] = {}

    def __call__(self, filename: str) -> bool:
        known = self._seen.get(filename)
        if known is None:
            known = self._seen[filename] = os.path.realpath(filename) == self.target
        return known


def _pytest_args(config: dict[str, Any], targets: list[str]) -> list[str]:
    return [*config.get("pytest_args", []), *targets]


# -- children, run in parallel with timeouts ------------------------------------------


class Dispatch:
    """One plugin registered once in a shared config; each child sets ``active`` to what it needs."""

    def __init__(self) -> None:
        self.active: Any = None

    def _call(self, name: str, **kwargs: Any) -> Any:
        hook = getattr(self.active, name, None)
        return hook(**kwargs) if hook is not None else None

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_collection(self, session: Any) -> Any:
        self._call("collection_starts", session=session)
        yield

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: Any) -> None:
        self._call("pytest_collection_finish", session=session)

    def pytest_collectreport(self, report: Any) -> None:
        self._call("pytest_collectreport", report=report)

    def pytest_runtest_logreport(self, report: Any) -> None:
        self._call("pytest_runtest_logreport", report=report)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session: Any, config: Any, items: list[Any]) -> None:
        self._call("pytest_collection_modifyitems", session=session, config=config, items=items)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: Any) -> Any:
        return self._call("pytest_runtestloop", session=session)


class Starter:
    """Starts pytest in a child: from a config prepared once per request when it can.

    Preparing pytest's config (options, ini, plugins, conftests) costs about as
    much as collecting; doing it once and forking the baseline, the collector
    and every fresh child from it removes that cost from each of them. When a
    conftest imports the target, or pytest cannot start, every child falls back
    to its own ``pytest.main`` (which then reports the error).
    """

    def __init__(self, config: dict[str, Any]):
        self.args = _pytest_args(config, list(config["tests"]))
        self.dispatch = Dispatch()
        self.prepared: Any = None

    def prepare(self, target: str) -> None:
        """Prepare the shared config; call in the (quiet) process the children fork from."""
        prepared = _prepare_config(self.args, [self.dispatch, SingleProcess()])
        self.prepared = None if prepared is None or _target_imported(target) else prepared

    def main(self, plugin: Any) -> int:
        """Run pytest with ``plugin`` active (call in a forked child only)."""
        if self.prepared is None:
            return int(pytest.main(self.args, plugins=[plugin, SingleProcess()]))
        self.dispatch.active = plugin
        return int(self.prepared.hook.pytest_cmdline_main(config=self.prepared))


class SingleProcess:
    """Keeps pytest-xdist from sending the tests to other processes (``-n`` in a project's
    addopts is common): a mutant is switched on in this process only, so its tests must
    run here, as in the reference run (``--verify``)."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: Any) -> None:  # before xdist's (trylast) starts them
        option = config.option
        if getattr(option, "dist", "no") != "no" or getattr(option, "tx", None):
            option.dist = "no"
            option.tx = []


class Pool:
    """Forks children (at most ``size`` at once); each reports one JSON object on a pipe."""

    def __init__(self, size: int):
        self.size = max(1, size)
        self.running: dict[
            int, tuple[int, float, Any, bytearray]
        ] = {}  # fd -> (pid, deadline, key, buf)

    def submit(self, key: Any, timeout: float, body: Any, on_done: Any) -> None:
        """Fork a child that reports ``body()``."""
        if self.spawn(key, timeout, on_done):
            try:
                result = body()
            except BaseException as exc:
                result = {"verdict": "error", "detail": f"{type(exc).__name__}: {exc}"[:500]}
            deliver(result)

    def spawn(self, key: Any, timeout: float, on_done: Any) -> bool:
        """Fork a child; True in the child, which must end with ``deliver``."""
        global _VERDICT_FD
        while len(self.running) >= self.size:
            self._reap_one(on_done)
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            for fd in self.running:  # the siblings' pipes are the parent's business
                os.close(fd)
            self.running = {}
            _VERDICT_FD = write_fd
            return True
        os.close(write_fd)
        self.running[read_fd] = (pid, time.monotonic() + timeout, key, bytearray())
        return False

    def drain(self, on_done: Any) -> None:
        while self.running:
            self._reap_one(on_done)

    def _reap_one(self, on_done: Any) -> None:
        now = time.monotonic()
        soonest = min(deadline for _, deadline, _, _ in self.running.values())
        ready, _, _ = select.select(list(self.running), [], [], max(0.0, soonest - now))
        for fd in ready:
            chunk = os.read(fd, 65536)
            if chunk:
                self.running[fd][3].extend(chunk)
                continue
            self._finish(fd, on_done, timed_out=False)
        now = time.monotonic()
        for fd, (_, deadline, _, _) in list(self.running.items()):
            if now >= deadline:
                self._finish(fd, on_done, timed_out=True)

    def _finish(self, fd: int, on_done: Any, timed_out: bool) -> None:
        pid, _, key, buf = self.running.pop(fd)
        if timed_out:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        os.close(fd)
        _, status = os.waitpid(pid, 0)
        if timed_out:
            on_done(key, {"verdict": "timeout"})
            return
        try:
            on_done(key, json.loads(bytes(buf)))
        except ValueError:
            killed_by = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
            verdict = "timeout" if killed_by in _OUT_OF_CPU else "error"
            on_done(key, {"verdict": verdict, "detail": f"child ended with status {status}"})


# -- running tests in-process --------------------------------------------------------------


def _no_failure_text(excinfo: Any, style: Any = None) -> str:
    return "failed"  # a mutant's verdict needs only whether a test failed


def run_protocol(item: Any, nextitem: Any) -> bool:
    """Run one test through pytest's ``pytest_runtest_protocol`` hook; did it fail?

    The hook, not the function behind it: plugins wrap the hook (per-test
    warning filters from ``filterwarnings`` marks, timeouts, reruns), and a
    verdict must be the one plain pytest gives. A failure is what pytest's
    session counts as one (an xfail that fails is not).
    """
    session = item.session
    failed = session.testsfailed
    item.ihook.pytest_runtest_protocol(item=item, nextitem=nextitem)
    return bool(session.testsfailed > failed)


def run_items(items: list[Any]) -> dict[str, Any]:
    """Run items in order; stop at the first failure. Used in forked children only.

    A failing test's report gets no traceback text: formatting it (reading and
    parsing source lines) cost half of a killed mutant's test run, and whether
    the test failed, which decides the verdict, does not depend on it.
    """
    for index, item in enumerate(items):
        item.repr_failure = _no_failure_text
        nextitem = items[index + 1] if index + 1 < len(items) else None
        if run_protocol(item, nextitem):
            return {"verdict": "killed", "killer": item.nodeid, "ran": index + 1}
    return {"verdict": "survived", "ran": len(items)}


class LineTracer:
    """Records the target file's executed lines, cheaply: other files get no local tracer.

    The global trace function runs on every call anywhere (collection makes
    hundreds of thousands), so it is one plain closure with a dict lookup;
    only frames of the target get the line tracer.
    """

    def __init__(self, is_target: SameFile):
        self.lines: set[int] = set()
        lines = self.lines
        add = lines.add
        known = is_target._seen
        check = is_target

        def local(frame: Any, event: str, arg: Any) -> Any:
            if event == "line":
                add(frame.f_lineno)
            return local

        def trace(frame: Any, event: str, arg: Any) -> Any:
            filename = frame.f_code.co_filename
            hit = known.get(filename)
            if hit is None:
                hit = check(filename)
            if not hit:
                return None
            add(frame.f_lineno)
            return local

        self.trace = trace


class TraceFromImport(importlib.abc.MetaPathFinder):
    """Starts the collection's line tracing when the target's import begins.

    Tracing all of the collection (pytest's own machinery, other modules)
    costs more than the collection itself; before the import nothing of the
    target can run. It only watches: the import itself proceeds unchanged.
    """

    def __init__(self, target: str, trace: Any):
        self.target = os.path.realpath(target)
        self.trace = trace
        self.fired = False
        base = os.path.basename(self.target)
        parent = os.path.basename(os.path.dirname(self.target))
        self.last_name = parent if base == "__init__.py" else base[:-3]

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if self.fired or name.rpartition(".")[2] != self.last_name:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.origin and os.path.realpath(spec.origin) == self.target:
            self.fired = True
            sys.settrace(self.trace)
        return None

    def missed(self) -> bool:
        return not self.fired and _target_imported(self.target)

    def line_count(self) -> int:
        with open(self.target, encoding="utf-8") as handle:
            return sum(1 for _ in handle)


class BaselinePlugin:
    """Collects, then runs every test once with line tracing; sends the baseline on a pipe."""

    def __init__(
        self,
        target: str,
        fd: int,
        reusable: dict[str, dict[str, Any]] | None = None,
        sources_fd: int | None = None,
    ):
        self.is_target = SameFile(target)
        self.fd = fd
        self.sources_fd = sources_fd
        self.reusable = reusable or {}  # nodeid -> a still-valid baseline record
        self.collect = LineTracer(self.is_target)
        self.collect_started = time.perf_counter()
        self.collect_seconds = 0.0
        self.collect_errors: list[str] = []
        self.skipped = False  # whether the running test's reports include a skip
        # No target line can run before the target is imported: trace from then on.
        self.watch = TraceFromImport(target, self.collect.trace)
        if _target_imported(target):
            sys.settrace(self.collect.trace)
        else:
            sys.meta_path.insert(0, self.watch)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: Any) -> None:
        sys.settrace(None)
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self.watch)
        if self.watch.missed():  # imported some other way: assume every line ran
            self.collect.lines.update(range(1, self.watch.line_count() + 1))
        self.collect_seconds = time.perf_counter() - self.collect_started
        if self.sources_fd is not None:  # the parent compiles these while the tests run
            _send(self.sources_fd, imported_sources())
            os.close(self.sources_fd)
            self.sources_fd = None

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.collect_errors.append(f"{report.nodeid}: {str(report.longrepr)[-400:]}")

    def pytest_runtest_logreport(self, report: Any) -> None:
        self.skipped = self.skipped or bool(report.skipped)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: Any) -> bool:
        tests: dict[str, Any] = {}
        items = session.items
        for index, item in enumerate(items):
            if item.nodeid in self.reusable:
                tests[item.nodeid] = self.reusable[item.nodeid]
                continue
            tracer = LineTracer(self.is_target)
            nextitem = items[index + 1] if index + 1 < len(items) else None
            self.skipped = False
            started = time.perf_counter()
            sys.settrace(tracer.trace)
            try:
                failed = run_protocol(item, nextitem)
            finally:
                sys.settrace(None)
            outcome = "failed" if failed else "skipped" if self.skipped else "passed"
            tests[item.nodeid] = {
                "outcome": outcome,
                "duration": time.perf_counter() - started,
                "lines": sorted(tracer.lines),
            }
        _send(self.fd, {
            "tests": tests,
            "order": [i.nodeid for i in items],
            "collect_lines": sorted(self.collect.lines),
            "collect_seconds": self.collect_seconds,
            "collect_errors": self.collect_errors,
        })  # fmt: skip
        os.close(self.fd)
        os._exit(0)


def run_baseline(
    config: dict[str, Any],
    starter: Starter,
    on_collected: Callable[[dict[str, list[str]]], None] | None = None,
) -> dict[str, Any]:
    """Fork a child that collects and runs every test once; return what it measured.

    ``on_collected`` gets the project files the collection imported as soon as
    it ends, and runs here while the child runs the tests.
    """
    read_fd, write_fd = os.pipe()
    sources_read, sources_write = os.pipe()
    pid = os.fork()
    errors = config["results"] + ".baseline-stderr"
    if pid == 0:
        os.close(read_fd)
        os.close(sources_read)
        _quiet(stderr_to=errors)
        try:
            plugin = BaselinePlugin(
                config["target"], write_fd, reusable_baseline(config), sources_write
            )
            code = starter.main(plugin)
            # Reached only when pytest stopped before running tests (usage or collection errors).
            _send(write_fd, {"pytest_exit": int(code), "collect_errors": plugin.collect_errors})
        except BaseException as exc:
            _send(write_fd, {"pytest_exit": -1, "stderr": f"{type(exc).__name__}: {exc}"[-1500:]})
        os._exit(0)
    os.close(write_fd)
    os.close(sources_write)
    sources = _read_all(sources_read)  # ends when collection does (or the child exits)
    if sources and on_collected is not None:
        with contextlib.suppress(ValueError):
            on_collected(json.loads(sources))
    data = _drain(read_fd, pid)
    result: dict[str, Any] = json.loads(data) if data else {"pytest_exit": -1}
    if "tests" not in result and not result.get("stderr"):
        result["stderr"] = _tail(errors)
    return result


def reusable_baseline(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Prior baseline records of tests that are provably unchanged (same module version).

    A passing, unchanged test covers the same lines and takes about the same
    time as before, so it need not run again to rebuild the baseline.
    """
    unchanged = set(config.get("unchanged_tests", []))
    return {
        nodeid: record
        for nodeid, record in config.get("prior_baseline", {}).items()
        if record.get("outcome") == "passed" and is_unchanged(nodeid, unchanged)
    }


def _read_all(read_fd: int) -> bytes:
    """Everything written on a pipe until its last writer closed it; closes it here."""
    chunks = []
    while chunk := os.read(read_fd, 1 << 16):
        chunks.append(chunk)
    os.close(read_fd)
    return b"".join(chunks)


def _drain(read_fd: int, pid: int) -> bytes:
    """Everything a child wrote on its pipe, once it has exited (and been reaped)."""
    data = _read_all(read_fd)
    os.waitpid(pid, 0)
    return data


def _tail(path: str, lines: int = 6) -> str:
    """The last meaningful lines a failed pytest start printed."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            kept = [line.rstrip() for line in handle if line.strip()]
    except OSError:
        return ""
    return " | ".join(kept[-lines:])[-1500:]


# -- compiled code, shared with every child ----------------------------------------------------


class CodeCache:
    """Code compiled once in this process and inherited by every child forked after.

    Bytecode caches are off in the sandbox (``PYTHONDONTWRITEBYTECODE``), so
    without this the collector and every fresh child would compile the
    project's modules, and pytest would rewrite the test files' asserts, once
    more each. An entry serves only a file whose bytes are exactly the ones
    compiled (and, for a test file, the same pytest config), so an edited file
    is compiled anew, never served stale.
    """

    def __init__(self) -> None:
        self.modules: dict[str, tuple[bytes, types.CodeType]] = {}
        self.tests: dict[str, tuple[bytes, Any, Any]] = {}
        self._compile: Any = None
        self._rewrite: Any = None

    def install(self) -> None:
        """Route plain source imports and pytest's assert rewriting through the cache."""
        if self._compile is not None:
            return
        loader = importlib.machinery.SourceFileLoader
        self._compile = loader.source_to_code
        cache = self

        def source_to_code(self: Any, data: Any, path: Any, *, _optimize: int = -1) -> Any:
            hit = cache.modules.get(path) if isinstance(path, str) else None
            if hit is not None and _optimize == -1 and hit[0] == data:
                return hit[1]
            return cache._compile(self, data, path, _optimize=_optimize)

        loader.source_to_code = source_to_code  # type: ignore[method-assign]
        try:
            from _pytest.assertion import rewrite
        except ImportError:
            return
        if callable(getattr(rewrite, "_rewrite_test", None)):
            self._rewrite = rewrite._rewrite_test

            def rewrite_test(fn: Path, config: Any) -> Any:
                # pytest's answer differs by version: (stat or source hash, code)
                hit = cache.tests.get(str(fn))
                if hit is not None and hit[1] is config and fn.read_bytes() == hit[0]:
                    return hit[2]
                return cache._rewrite(fn, config)

            rewrite._rewrite_test = rewrite_test

    def add_sources(self, sources: dict[str, list[str]], config: Any) -> None:
        """Install, then compile ``sources`` (``imported_sources``); test files only with a
        pytest ``config`` to rewrite their asserts for."""
        self.install()
        for path in sources.get("modules", []):
            self.add_module(path)
        if config is not None:
            for path in sources.get("tests", []):
                self.add_test(path, config)

    def add_module(self, path: str) -> None:
        with contextlib.suppress(OSError, SyntaxError, ValueError):
            data = Path(path).read_bytes()
            if self.modules.get(path, (None,))[0] != data:
                self.modules[path] = (data, compile(data, path, "exec", dont_inherit=True))

    def add_test(self, path: str, config: Any) -> None:
        if self._rewrite is None:
            return
        with contextlib.suppress(Exception):  # pytest's own import then reports any problem
            data = Path(path).read_bytes()
            known = self.tests.get(path)
            if known is not None and known[0] == data and known[1] is config:
                return
            answer = self._rewrite(Path(path), config)
            if Path(path).read_bytes() == data:
                self.tests[path] = (data, config, answer)


CODE_CACHE = CodeCache()


def imported_sources() -> dict[str, list[str]]:
    """Project files imported so far without a bytecode cache: plain modules and test files
    whose asserts pytest rewrote."""
    root = os.path.realpath(os.getcwd()) + os.sep
    modules, tests = [], []
    for module in list(sys.modules.values()):
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None)
        if not isinstance(origin, str) or not origin.endswith(".py"):
            continue
        if not os.path.realpath(origin).startswith(root):
            continue
        loader = getattr(spec, "loader", None)
        if type(loader).__name__ == "AssertionRewritingHook":
            tests.append(origin)
        elif type(loader) is importlib.machinery.SourceFileLoader:
            with contextlib.suppress(NotImplementedError, ValueError):
                if not os.path.exists(importlib.util.cache_from_source(origin)):
                    modules.append(origin)
    return {"modules": modules, "tests": tests}


# -- switching mutants on ----------------------------------------------------------------------


def find_code(code: types.CodeType, name: str, firstlineno: int) -> types.CodeType | None:
    """The code object named ``name`` starting at ``firstlineno``, searched depth first."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name and const.co_firstlineno == firstlineno:
                return const
            found = find_code(const, name, firstlineno)
            if found is not None:
                return found
    return None


def live_functions(target: str) -> dict[tuple[str, int], list[types.FunctionType]]:
    """Every live function object whose code comes from the target file."""
    index: dict[tuple[str, int], list[types.FunctionType]] = {}
    is_target = SameFile(target)
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and is_target(obj.__code__.co_filename):
            key = (obj.__code__.co_name, obj.__code__.co_firstlineno)
            index.setdefault(key, []).append(obj)
    return index


class Blocks:
    """Compiles a graft mutant's enclosing top-level statement alone, not the whole module.

    The statement is compiled at its own line numbers (blank lines before it)
    and with the module's ``__future__`` flags, so its code objects are the ones
    a whole-module compile gives; compiling one function instead of the module
    is most of a graft's cost saved.
    """

    def __init__(self, source: str, offsets: list[int]):
        import __future__

        import ast

        self.source = source
        self.offsets = offsets
        tree = ast.parse(source)
        self.spans: list[tuple[int, int]] = []
        self.flags = 0
        for node in tree.body:
            decorators = getattr(node, "decorator_list", [])
            start = min([node.lineno] + [d.lineno for d in decorators])
            self.spans.append((start, node.end_lineno or node.lineno))
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                for alias in node.names:
                    self.flags |= getattr(__future__, alias.name).compiler_flag

    def compile(self, m: dict[str, Any], target: str) -> types.CodeType:
        """The mutated statement's code (raises ValueError if the mutant does not match)."""
        for start, end in self.spans:
            if start <= m["line"] and m["end_line"] <= end:
                break
        else:
            raise LookupError(f"mutant {m['id']} is in no top-level statement")
        begin = self.offsets[start - 1]
        stop = self.offsets[end] if end < len(self.offsets) else len(self.source)
        grown = len(str(m["replacement"])) - len(m["original"])
        mutated = apply_mutant(self.source, self.offsets, m)[begin : stop + grown]
        code: types.CodeType = compile(
            "\n" * (start - 1) + mutated, target, "exec", flags=self.flags, dont_inherit=True
        )
        return code


def graft(
    statement_code: types.CodeType, m: dict[str, Any], live: dict[tuple[str, int], list[Any]]
) -> None:
    """Give the live functions enclosing the mutant their mutated code (raises if impossible)."""
    key = (m["graft_name"], m["graft_firstlineno"])
    code = find_code(statement_code, *key)
    functions = live.get(key)
    if code is None or not functions:
        raise LookupError(f"no live function {key[0]} at line {key[1]}")
    for function in functions:
        function.__code__ = code  # ValueError if the closure's shape changed


_SIMPLE_STATEMENTS = ("Assign", "AnnAssign", "AugAssign", "Expr")


def data_lines(source: str) -> dict[int, set[int]]:
    """Lines of simple top-level statements (assignments and calls, not defs, classes or
    imports), where a mutant only changes the module's data, which ``rebind`` can switch on;
    each mapped to the lines of the functions that read that data.

    A statement's data is the names it mentions, and for a call of one of the module's
    functions (``_irregular("person", "people")``), the module names that function reads.
    That function's own lines count too: a mutant there changes what the call made while
    the module was imported, and ``rebind`` runs the call again with the mutant on.
    Only the order in which tests run depends on this: every test still runs.
    """
    import ast

    tree = ast.parse(source)
    functions = _module_functions(tree)

    def reads(node: ast.AST) -> set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

    def body_lines(node: ast.AST) -> set[int]:
        return {n.lineno for n in ast.walk(node) if isinstance(n, ast.stmt)}

    found: dict[int, set[int]] = {}
    for statement in tree.body:
        if type(statement).__name__ not in _SIMPLE_STATEMENTS or _assigns_dunder(statement):
            continue  # ``__all__`` decides what star imports elsewhere took: import it fresh
        names = reads(statement)  # what it assigns, and what it changes (``RULES.append``)
        call = getattr(statement, "value", None)
        called = None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
            called = functions.get(call.func.id)
            names |= reads(called) if called is not None else set()
        readers = set()
        for name, function in functions.items():
            if name != getattr(getattr(call, "func", None), "id", None) and reads(function) & names:
                readers |= body_lines(function)
        for line in range(statement.lineno, (statement.end_lineno or statement.lineno) + 1):
            found[line] = readers
        if called is not None:  # the function it runs at import
            for line in range(called.lineno, (called.end_lineno or called.lineno) + 1):
                found.setdefault(line, set()).update(readers)
    return found


def _assigns_dunder(statement: Any) -> bool:
    import ast

    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id.startswith("__")
               for n in ast.walk(statement))  # fmt: skip


def _module_functions(tree: Any) -> dict[str, Any]:
    """Top-level functions and methods of top-level classes, by qualified name."""
    import ast

    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    functions: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, kinds):
            functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            functions.update(
                {f"{node.name}.{m.name}": m for m in node.body if isinstance(m, kinds)}
            )
    return functions


def rebind(mutated_source: str, target: str) -> None:
    """Switch on a module-level data mutant in a collected process, without re-importing.

    The mutated source runs again in the live module's namespace. The module's
    functions and classes keep their identity (tests hold them) and read the
    new data through their globals; a function's defaults are re-evaluated;
    a list, dict or set changed in place; any other changed value is also
    rebound in the modules that imported it by name. Raises ``LookupError``
    when it cannot be done faithfully (the fresh path then runs the mutant).
    """
    is_target = SameFile(target)
    module = next((m for m in list(sys.modules.values())
                   if is_target(getattr(m, "__file__", None) or "")), None)  # fmt: skip
    if module is None:
        raise LookupError("the target was not imported during collection")
    namespace = module.__dict__
    before = dict(namespace)
    code = compile(mutated_source, target, "exec", dont_inherit=True)
    exec(code, namespace)  # an exception here is the mutant breaking the import
    changed: list[tuple[str, Any, Any]] = []
    for name, new in list(namespace.items()):
        old = before.get(name, namespace)
        if old is namespace or old is new:
            continue
        if _defined_in(old, is_target):
            _carry_over(old, new)
            namespace[name] = old
        elif _defined_in(type(new), is_target):
            raise LookupError(f"{name} is an instance of the module's own class")
        elif _same_value(old, new):
            namespace[name] = old
        elif type(old) is type(new) and type(old) in (list, dict, set):
            _update_in_place(old, new)
            namespace[name] = old
        else:
            changed.append((name, old, new))
    if changed:
        _rebind_elsewhere(module, changed)


def _carry_over(old: Any, new: Any) -> None:
    """Give a kept function what the mutated run changed in it (a lambda's code, defaults);
    refuse what cannot be carried over faithfully."""
    if isinstance(old, types.FunctionType) and isinstance(new, types.FunctionType):
        if old.__closure__ or new.__closure__:
            raise LookupError(f"{old.__name__} is a closure made at import time")
        if old.__code__ != new.__code__:
            old.__code__ = new.__code__  # a module-level lambda's body was mutated
        old.__defaults__, old.__kwdefaults__ = new.__defaults__, new.__kwdefaults__
    elif isinstance(old, type) and isinstance(new, type):
        for key, value in vars(new).items():
            if key not in ("__dict__", "__weakref__") and not _same_member(
                vars(old).get(key), value
            ):
                raise LookupError(f"class {old.__name__} changed: {key}")
    else:
        raise LookupError(f"{type(old).__name__} is not a function or class")


def _same_member(before: Any, value: Any) -> bool:
    """Whether a class attribute made by the mutated run is the same as the live one."""
    if before is value or _same_value(before, value) or (before is None and value is None):
        return True
    if type(before) is not type(value):
        return False
    if isinstance(value, types.FunctionType):
        return bool(
            value.__code__ == before.__code__
            and value.__defaults__ == before.__defaults__
            and not value.__closure__
        )
    if isinstance(value, (staticmethod, classmethod)):
        return _same_member(before.__func__, value.__func__)
    if isinstance(value, property):
        return all(
            _same_member(getattr(before, f), getattr(value, f)) for f in ("fget", "fset", "fdel")
        )
    return False


def _defined_in(value: Any, is_target: SameFile) -> bool:
    if isinstance(value, types.FunctionType):
        return is_target(value.__code__.co_filename)
    if isinstance(value, type):
        module = sys.modules.get(getattr(value, "__module__", ""))
        return module is not None and is_target(getattr(module, "__file__", None) or "")
    return False


def _same_value(old: Any, new: Any) -> bool:
    if type(old) is not type(new) or not isinstance(
        old, (str, bytes, int, float, tuple, frozenset)
    ):
        return False
    try:
        return bool(old == new)
    except Exception:
        return False


def _update_in_place(old: Any, new: Any) -> None:
    if isinstance(old, list):
        old[:] = new
    else:
        old.clear()
        old.update(new)


def _rebind_elsewhere(module: Any, changed: list[tuple[str, Any, Any]]) -> None:
    """``from target import NAME`` in the project's other modules (tests, conftests): point
    NAME at the new value. Matched by name and identity: identity alone would also catch
    cached small ints and interned strings everywhere."""
    root = os.getcwd() + os.sep
    for other in list(sys.modules.values()):
        names = getattr(other, "__dict__", None)
        where = getattr(other, "__file__", None) or ""
        if other is module or not isinstance(names, dict) or not where.startswith(root):
            continue
        if "site-packages" in where:
            continue
        for name, old, new in changed:
            if names.get(name, module) is old:
                names[name] = new


class MutatedFinder(importlib.abc.MetaPathFinder):
    """Serves the mutated source for the target file; every other import is untouched."""

    def __init__(self, target: str, source: str):
        self.target = target
        self.source = source

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.origin is None or os.path.realpath(spec.origin) != self.target:
            return None
        spec.loader = MutatedLoader(name, spec.origin, self.source)
        return spec


class MutatedLoader(importlib.machinery.SourceFileLoader):
    """Compiles the mutated source; never reads or writes bytecode caches."""

    def __init__(self, name: str, path: str, source: str):
        super().__init__(name, path)
        self.mutated = source

    def get_code(self, fullname: str) -> types.CodeType:
        return compile(self.mutated, self.path, "exec", dont_inherit=True)


class VerdictPlugin:
    """Notes the first failing test (or collection error) of a fresh run."""

    def __init__(self) -> None:
        self.killer: str | None = None
        self.ran = 0

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed and self.killer is None:
            self.killer = f"collection: {report.nodeid}"

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.ran += 1
        if report.failed and self.killer is None:
            self.killer = report.nodeid


class CpuBudget:
    """Starts the reference run's CPU budget when collection starts (``"session"``) or when
    the tests do (``"tests"``), as the engine's children count theirs."""

    def __init__(self, seconds: float, phase: str):
        self.seconds = seconds
        self.phase = phase

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: Any) -> None:
        if self.phase == "session":
            _cpu_timer(self.seconds)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: Any) -> None:
        if self.phase == "tests":
            _cpu_timer(self.seconds)


def reference_child(
    config: dict[str, Any], mutated: str, nodeids: list[str], budget: CpuBudget | None = None
) -> dict[str, Any]:
    """The ground truth's run: plain ``pytest -x`` over ``nodeids`` in file order, nothing of
    ours but the CPU ``budget``."""
    sys.meta_path.insert(0, MutatedFinder(config["target"], mutated))
    plugin = VerdictPlugin()
    plugins: list[Any] = [plugin, SingleProcess()] + ([] if budget is None else [budget])
    code = pytest.main(_pytest_args(config, ["-x", *nodeids]), plugins=plugins)
    if plugin.killer is not None:
        return {"verdict": "killed", "killer": plugin.killer, "ran": plugin.ran}
    if int(code) not in (0, 5):
        return {"verdict": "killed", "killer": f"pytest exit {int(code)}", "ran": plugin.ran}
    return {"verdict": "survived", "ran": plugin.ran}


# -- a session -------------------------------------------------------------------------------------


class Session:
    """One scoring request: baseline, then graft and fresh mutants."""

    def __init__(self, config: dict[str, Any], starter: Starter | None = None):
        self.config = config
        self.given_starter = starter
        self.out = Results(config["results"])
        self.target = config["target"]
        self.source = open(self.target, encoding="utf-8").read()  # noqa: SIM115
        self.offsets = line_offsets(self.source)
        self.workers = int(config.get("workers", 1))
        self.factor = float(config.get("timeout_factor", 5.0))
        self.floor = float(config.get("timeout_floor", 2.0))

    def run(self) -> None:
        """Score the request. Runs in a forked, quiet process (see ``run_request``)."""
        if self.given_starter is not None:
            self.starter = self.given_starter
        else:
            self.starter = Starter(self.config)
            if self._scored_prepared():
                return
        self._score()

    def _scored_prepared(self) -> bool:
        """Prepare pytest's config in a child and score there; False when preparing imported
        the target (a conftest did) or pytest could not start.

        Preparing loads the conftests, and a module imported then stays imported
        in every process forked after: the import hook could no longer serve a
        mutant of the target, and the baseline would see no line of it run. So
        a process that imported it is spoiled and left, and this one, still
        pristine, scores with each child starting pytest by itself.
        """
        pid = os.fork()
        if pid == 0:
            self.starter.prepare(self.target)
            if self.starter.prepared is None:
                os._exit(_SPOILED)
            os._exit(_guarded(self._score, self.out))
        _, status = os.waitpid(pid, 0)
        return not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == _SPOILED)

    def _score(self) -> None:
        started = time.monotonic()
        gc.collect()
        gc.freeze()  # every child shares this heap instead of copying it on its first collection
        baseline = run_baseline(self.config, self.starter, self._compile_ahead)
        timings = {
            "prepare": self.starter.prepared is not None,
            "baseline": time.monotonic() - started,
        }
        if not self._baseline_ok(baseline):
            return
        tests = baseline["tests"]
        # Only passing tests can kill a mutant; skipped and xfailed ones never fail.
        self.durations = {n: t["duration"] for n, t in tests.items() if t["outcome"] == "passed"}
        self.by_speed = sorted(
            self.durations, key=self.durations.__getitem__
        )  # fresh mutants run all
        self.collect_seconds = float(baseline.get("collect_seconds", 0.0))
        self.cover = _coverage_index({n: t for n, t in tests.items() if n in self.durations})
        self.out.emit(event="baseline", tests={n: {"duration": t["duration"], "outcome": t["outcome"]} for n, t in tests.items()},
                      coverage={n: t["lines"] for n, t in tests.items()}, collect_lines=baseline["collect_lines"],
                      collect_seconds=self.collect_seconds)  # fmt: skip
        todo = self._reuse(
            _at_collection_fresh(self.config["mutants"], set(baseline["collect_lines"]))
        )
        graft_list, fresh_list = [], []
        data = data_lines(self.source) if self.config.get("rebind", True) else {}
        for m, covering in todo:
            if m["strategy"] == "fresh" and m["line"] in data:
                # switched on by rebind in the collector (data, or a function the module
                # calls to make it); the tests running the functions that read the mutated
                # data first, then every other test
                likely = self._tests_running(data[m["line"]])
                first = [n for n in covering if n in likely]
                graft_list.append((m, first + [n for n in covering if n not in likely]))
            elif m["strategy"] == "fresh":
                fresh_list.append(m)
            elif covering:
                graft_list.append((m, covering))
            else:
                self.out.emit(
                    event="mutant", id=m["id"], verdict="no-coverage", ran=[], duration=0.0
                )
        mark = time.monotonic()
        fallback = self._run_graft(graft_list) if graft_list else []
        timings["graft"] = time.monotonic() - mark
        mark = time.monotonic()
        self._run_fresh(fresh_list + fallback)
        timings["fresh"] = time.monotonic() - mark
        rebound = sum(1 for m, _ in graft_list if m["strategy"] == "fresh")
        counts = {
            "graft": len(graft_list)
            - rebound
            - sum(1 for m in fallback if m["strategy"] != "fresh"),
            "rebind": rebound - sum(1 for m in fallback if m["strategy"] == "fresh"),
            "fresh": len(fresh_list) + len(fallback),
        }
        self.out.emit(
            event="done", elapsed=time.monotonic() - started, timings=timings, counts=counts
        )

    def _compile_ahead(self, sources: dict[str, list[str]]) -> None:
        """Compile what the collection imported, once, for every child forked from here."""
        self.out.emit(event="sources", **sources)  # a warm worker keeps them compiled (serve)
        CODE_CACHE.add_sources(sources, self.starter.prepared)  # the config every child shares

    def _baseline_ok(self, baseline: dict[str, Any]) -> bool:
        if baseline.get("collect_errors"):
            self.out.emit(
                event="error",
                kind="collection",
                message="; ".join(baseline["collect_errors"])[:2000],
            )
            return False
        if "tests" not in baseline:
            detail = baseline.get("stderr") or f"exit {baseline.get('pytest_exit')}"
            self.out.emit(event="error", kind="pytest", message=f"pytest could not start: {detail}")
            return False
        failing = [n for n, t in baseline["tests"].items() if t["outcome"] == "failed"]
        if failing:
            self.out.emit(event="error", kind="baseline_failing", failing=failing)
            return False
        if not baseline["tests"]:
            self.out.emit(event="error", kind="no_tests", message="no tests were collected")
            return False
        return True

    def _reuse(self, mutants: list[dict[str, Any]]) -> list[tuple[dict[str, Any], list[str]]]:
        """Emit still-valid prior verdicts; return the mutants that must run, with their covering tests."""
        prior = self.config.get("prior", {})
        unchanged = set(self.config.get("unchanged_tests", []))
        todo = []
        for m in mutants:
            covering = self._covering(m)
            verdict = reusable(prior.get(m["id"]), covering, unchanged)
            if verdict is None:
                todo.append((m, covering))
            else:
                self.out.emit(event="mutant", id=m["id"], reused=True, **verdict)
        return todo

    def _covering(self, m: dict[str, Any]) -> list[str]:
        if m["strategy"] != "graft":
            return self.by_speed
        nodeids: set[str] = set()
        for line in range(m["line"], m["end_line"] + 1):
            nodeids.update(self.cover.get(line, ()))
        return sorted(nodeids, key=self.durations.__getitem__)

    def _tests_running(self, lines: set[int]) -> set[str]:
        return {n for line in lines for n in self.cover.get(line, ())}

    def _timeout(self, nodeids: list[str], extra: float = 0.0) -> float:
        return self.floor + extra + self.factor * float(sum(self.durations[n] for n in nodeids))

    def _fresh_limit(self) -> float:
        """A fresh mutant's CPU budget: every test by speed, and its own imports and collection."""
        return self._timeout(self.by_speed, self.collect_seconds * 3)

    def _emit_result(
        self, m: dict[str, Any], nodeids: list[str], started: float, result: dict[str, Any]
    ) -> None:
        ran = (
            nodeids[: int(result.get("ran", len(nodeids)))]
            if result.get("verdict") in ("killed", "survived")
            else nodeids
        )
        self.out.emit(event="mutant", id=m["id"], verdict=result.get("verdict", "error"), killer=result.get("killer"),
                      ran=ran, detail=result.get("detail"), duration=time.monotonic() - started)  # fmt: skip

    def _run_graft(self, work: list[tuple[dict[str, Any], list[str]]]) -> list[dict[str, Any]]:
        """Run graft mutants from a collector child; return those that need the fresh path."""
        handed_back = self._host(lambda fd: GraftPlugin(self, work, fd), [m["id"] for m, _ in work])
        return [m for m, _ in work if m["id"] in handed_back]

    def _run_fresh(self, mutants: list[dict[str, Any]]) -> None:
        """Judge fresh mutants, from one started session when nothing imported the target yet."""
        if not mutants:
            return
        ids = [m["id"] for m in mutants]
        handed_back = self._host(lambda fd: FreshHost(self, mutants, fd), ids)
        self._run_fresh_each([m for m in mutants if m["id"] in handed_back])

    def _host(self, make_plugin: Callable[[int], Any], ids: list[str]) -> set[str]:
        """Run pytest in a child with ``make_plugin(fd)`` active; the mutant ids it hands back
        (all of them if its session ends before it could take them)."""
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            code = self.starter.main(make_plugin(write_fd))
            if _VERDICT_FD is not None:  # a mutant's child whose session ended before its verdict
                deliver({"verdict": "killed", "killer": f"pytest exit {code}", "ran": 0})
            _send(write_fd, {"fallback": ids})
            os._exit(0)
        os.close(write_fd)
        data = json.loads(_drain(read_fd, pid) or b'{"fallback": []}')
        return set(data["fallback"])

    def _run_fresh_each(self, mutants: list[dict[str, Any]]) -> None:
        """Per mutant, a child forked from the pristine process starts pytest whole, with the
        mutant served by the import hook (what a conftest importing the target needs)."""
        pool = Pool(self.workers)
        done = lambda key, result: self._emit_result(key[0], key[1], key[2], result)  # noqa: E731
        nodeids, limit = self.by_speed, self._fresh_limit()
        for m in mutants:
            mutated = apply_mutant(self.source, self.offsets, m)

            def body(
                mutated: str = mutated, nodeids: list[str] = nodeids, limit: float = limit
            ) -> dict[str, Any]:
                _limit_cpu(limit)
                sys.meta_path.insert(0, MutatedFinder(self.target, mutated))
                plugin = FreshPlugin()
                plugin.order = nodeids
                code = self.starter.main(plugin)  # delivers the verdict when it knows it
                return {"verdict": "killed", "killer": f"pytest exit {code}", "ran": 0}

            pool.submit((m, nodeids, time.monotonic()), wall_limit(limit), body, done)
        pool.drain(done)


def wall_limit(cpu_seconds: float) -> float:
    """The wall-clock limit of a child whose CPU is limited to ``cpu_seconds``.

    The CPU limit decides what is slow: it does not depend on how busy the
    machine is, and the reference run (``--verify``) judges by CPU time too. The
    wall limit only catches a child that waits without computing (a sleep, a
    blocked read), with room for a machine whose cores are shared.
    """
    return 3 * cpu_seconds + 1.0


class FreshPlugin:
    """Selects and orders the covering tests and runs them itself, stopping at the first failure.

    Owning the test loop matters for speed: stopping pytest's own loop (``-x``,
    ``shouldstop``, or a collection error) raises ``Interrupted``, whose report
    pytest always formats in long style, costing far more than the run.
    """

    def __init__(self) -> None:
        self.order: list[str] = []

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session: Any, config: Any, items: list[Any]) -> None:
        rank = {nodeid: index for index, nodeid in enumerate(self.order)}
        dropped = [item for item in items if item.nodeid not in rank]
        items[:] = sorted((i for i in items if i.nodeid in rank), key=lambda i: rank[i.nodeid])
        if dropped:
            config.hook.pytest_deselected(items=dropped)

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            deliver({"verdict": "killed", "killer": f"collection: {report.nodeid}", "ran": 0})

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: Any) -> bool:
        deliver(run_items(list(session.items)))
        return True


class FreshHost(FreshPlugin):
    """Starts one pytest session and forks a child per fresh mutant where collection begins.

    Each child installs the import hook and lets the session go on: it collects
    (importing the mutated module) and runs the tests fastest first. pytest's
    configuration and session start (parsing every plugin's fixtures) are paid
    once instead of once per mutant, and so is the session's end, which each
    child skips by delivering its verdict as soon as it is known. If something
    imported the target before collection (a conftest, a plugin), the hook
    could not serve the mutant: every mutant is handed back for a whole fresh start.
    """

    def __init__(self, session: Session, mutants: list[dict[str, Any]], fd: int):
        super().__init__()
        self.session = session
        self.mutants = mutants
        self.fd = fd

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_collection(self, session: Any) -> Any:  # registered itself: no prepared config
        self.collection_starts(session)
        yield

    def collection_starts(self, session: Any) -> None:
        """In the host: fork the children, wait for them, hand back, end. A child returns."""
        s = self.session
        if _target_imported(s.target):
            self._hand_back([m["id"] for m in self.mutants])
        gc.collect()
        gc.freeze()  # the children share the started session's heap
        pool = Pool(s.workers)
        done = lambda key, result: s._emit_result(key[0], key[1], key[2], result)  # noqa: E731
        nodeids, limit = s.by_speed, s._fresh_limit()
        for m in self.mutants:
            if pool.spawn((m, nodeids, time.monotonic()), wall_limit(limit), done):
                _limit_cpu(limit)
                try:
                    mutated = apply_mutant(s.source, s.offsets, m)
                except ValueError as exc:
                    deliver({"verdict": "error", "detail": str(exc)})
                sys.meta_path.insert(0, MutatedFinder(s.target, mutated))
                self.order = nodeids
                return  # this child goes on: pytest collects the mutant and runs its tests
        pool.drain(done)
        self._hand_back([])

    def _hand_back(self, ids: list[str]) -> None:
        _send(self.fd, {"fallback": ids})
        os.close(self.fd)
        os._exit(0)


def _prepare_config(args: list[str], plugins: list[Any]) -> Any:
    """pytest's config, parsed and with plugins and conftests loaded, not yet configured."""
    try:
        from _pytest.config import _prepareconfig

        try:
            return _prepareconfig(args, plugins)
        except TypeError:  # older signatures
            return _prepareconfig(args=args, plugins=plugins)
    except Exception:
        return None


def _target_imported(target: str) -> bool:
    is_target = SameFile(target)
    return any(is_target(getattr(m, "__file__", None) or "") for m in list(sys.modules.values()))


class GraftPlugin:
    """In the collector child: never runs a test; forks one grandchild per graft mutant."""

    def __init__(self, session: Session, work: list[tuple[dict[str, Any], list[str]]], fd: int):
        self.session = session
        self.work = work
        self.fd = fd

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: Any) -> bool:
        items = {item.nodeid: item for item in session.items}
        live = live_functions(self.session.target)
        blocks = Blocks(self.session.source, self.session.offsets)
        gc.collect()
        gc.freeze()  # grandchildren share the collected heap instead of copying it
        fallback: list[str] = []
        pool = Pool(self.session.workers)
        s = self.session

        def done(key: Any, result: dict[str, Any]) -> None:
            m, nodeids, started = key
            if result.get("verdict") == "fallback":
                fallback.append(m["id"])
            else:
                s._emit_result(m, nodeids, started, result)

        for m, nodeids in self.work:
            extra = s.collect_seconds if m["strategy"] == "fresh" else 0.0
            limit = s._timeout(nodeids, extra)

            # compiled here, in the parent's warm memory, while earlier children run: a
            # compile in a fresh child costs several times more (its memory is all new)
            code: types.CodeType | Exception | None = None  # rebind compiles the whole module
            if m["strategy"] != "fresh":
                try:
                    code = blocks.compile(m, s.target)
                except Exception as exc:  # raised again in the child, which decides its meaning
                    code = exc

            def body(
                m: dict[str, Any] = m,
                nodeids: list[str] = nodeids,
                limit: float = limit,
                code: types.CodeType | Exception | None = code,
            ) -> dict[str, Any]:
                _limit_cpu(limit)
                try:
                    if code is None:
                        rebind(apply_mutant(s.source, s.offsets, m), s.target)
                    elif isinstance(code, Exception):
                        raise code
                    else:
                        graft(code, m, live)
                except (LookupError, ValueError, SyntaxError) as exc:
                    return {"verdict": "fallback", "detail": str(exc)}
                except Exception as exc:  # the mutated module fails to run: an import error
                    return {
                        "verdict": "killed",
                        "killer": "collection: " + type(exc).__name__,
                        "ran": 0,
                    }
                return run_items([items[n] for n in nodeids if n in items])

            pool.submit((m, nodeids, time.monotonic()), wall_limit(limit), body, done)
        pool.drain(done)
        _send(self.fd, {"fallback": fallback})
        os.close(self.fd)
        os._exit(0)


def _at_collection_fresh(
    mutants: list[dict[str, Any]], collect_lines: set[int]
) -> list[dict[str, Any]]:
    """Graft mutants in code that already ran during collection must be imported fresh.

    A function body executed at import time (a module calling its own helper,
    a decorator, parametrize data) has already done its work by the time a
    graft could switch the mutant on.
    """
    return [
        {**m, "strategy": "fresh"}
        if m["strategy"] == "graft"
        and collect_lines.intersection(range(m["line"], m["end_line"] + 1))
        else m
        for m in mutants
    ]


def _coverage_index(tests: dict[str, Any]) -> dict[int, list[str]]:
    index: dict[int, list[str]] = {}
    for nodeid, data in tests.items():
        for line in data["lines"]:
            index.setdefault(line, []).append(nodeid)
    return index


def reusable(
    prior: dict[str, Any] | None, covering: list[str], unchanged: set[str]
) -> dict[str, Any] | None:
    """A prior verdict that is provably still right, or None (the mutant must run again).

    killed: the killing test is unchanged and still covers the mutant.
    survived / no-coverage: every test now covering the mutant is unchanged and
    had already run against it (so no new or edited test can kill it).
    Timeouts and errors always run again.
    """
    if not prior:
        return None
    verdict = prior.get("verdict")
    if verdict == "killed":
        killer = prior.get("killer") or ""
        if is_unchanged(killer, unchanged) and (
            killer in covering or killer.startswith("collection: ")
        ):
            return {
                "verdict": "killed",
                "killer": killer,
                "ran": prior.get("ran", []),
                "duration": 0.0,
            }
        return None
    if verdict in ("survived", "no-coverage"):
        ran = set(prior.get("ran", []))
        if all(is_unchanged(n, unchanged) and n in ran for n in covering):
            return {"verdict": verdict, "ran": prior.get("ran", []), "duration": 0.0}
    return None


def is_unchanged(nodeid: str, unchanged: set[str]) -> bool:
    """Whether a test (or a collection-time verdict's file) is provably unchanged.

    Keys as ``fingerprints.file_fingerprints`` makes them: ``path::func``,
    ``path::Class::*`` for any method of a class, ``path`` for a file.
    """
    if nodeid.startswith("collection: "):
        return nodeid.removeprefix("collection: ") in unchanged
    parts = nodeid.split("[", 1)[0].split("::")
    key = (
        "::".join(parts)
        if len(parts) == 2
        else f"{parts[0]}::{parts[1]}::*"
        if len(parts) > 2
        else nodeid
    )
    return key in unchanged


# -- entry points ------------------------------------------------------------------------------


def ground_truth(
    config: dict[str, Any], mutant_id: str, out: str, limits: tuple[float, float, str] | None
) -> dict[str, Any]:
    """One mutant in this fresh interpreter, all tests in file order: the reference verdict.

    With ``limits`` (CPU seconds, start-up seconds, phase), the run gets that
    much CPU time from the start of the phase (``"session"``: collection;
    ``"tests"``: the first test), and the start-up seconds before it; running
    out is a timeout, the rule by which the engine calls a mutant slow.
    """
    budget = None
    if limits is not None:
        cpu_limit, startup, phase = limits

        def out_of_time(signum: int, frame: Any) -> None:
            with open(out, "w", encoding="utf-8") as handle:
                json.dump({"verdict": "timeout"}, handle)
            os._exit(0)

        signal.signal(signal.SIGXCPU, out_of_time)
        signal.signal(signal.SIGPROF, out_of_time)
        _limit_cpu(startup, backstop=startup + cpu_limit)
        budget = CpuBudget(cpu_limit, phase)
    source = open(config["target"], encoding="utf-8").read()  # noqa: SIM115
    (m,) = [m for m in config["mutants"] if m["id"] == mutant_id]
    mutated = apply_mutant(source, line_offsets(source), m)
    _quiet()
    return reference_child(config, mutated, list(config["tests"]), budget)


def run_request(config: dict[str, Any], starter: Starter | None = None) -> None:
    """Score one request in a forked, quiet child, so this process stays pristine (warm mode)."""
    pid = os.fork()
    if pid == 0:
        _quiet()  # before pytest's capture saves the real stdout
        out = Results(config["results"])
        os._exit(_guarded(lambda: Session(config, starter).run(), out))
    os.waitpid(pid, 0)


_SPOILED = 3  # the exit status of a child whose preparation imported the target


def _guarded(call: Callable[[], None], out: Results) -> int:
    """Run ``call``; report an exception as the request's error. The exit status to use."""
    try:
        call()
    except BaseException as exc:
        out.emit(event="error", kind="worker", message=f"{type(exc).__name__}: {exc}")
        return 1
    return 0


def serve() -> None:
    """Warm mode: one config per stdin line; answer one JSON line per request on stdout."""
    # pytest's global capture, started when a config is prepared here, takes over fds 0-2:
    # requests and answers travel on duplicates made first, and it saves /dev/null.
    requests = os.fdopen(os.dup(0), "r")
    out = os.fdopen(os.dup(1), "w")
    _quiet()
    starters: dict[str, Starter] = {}
    for line in requests:
        if not line.strip():
            continue
        started = time.monotonic()
        config = json.loads(line)
        starter = _starter_for(config, starters)
        run_request(config, starter)
        out.write(json.dumps({"done": True, "elapsed": time.monotonic() - started}) + "\n")
        out.flush()
        _keep_compiled(config["results"], starter)
        gc.collect()
        gc.freeze()  # the next request's collections then skip all of this process's heap


def _keep_compiled(results: str, starter: Starter | None) -> None:
    """Warm mode: compile here what the last request's collection imported, so the next
    request's children (its baseline's collection first) start with it compiled.

    An entry serves only the exact bytes it was compiled from (``CodeCache``),
    so a file edited since is compiled anew.
    """
    try:
        with open(results, encoding="utf-8") as handle:
            rows = [json.loads(row) for row in handle if '"event": "sources"' in row]
    except (OSError, ValueError):
        return
    if rows:
        CODE_CACHE.add_sources(rows[-1], starter.prepared if starter is not None else None)


def _starter_for(config: dict[str, Any], starters: dict[str, Starter]) -> Starter | None:
    """A config prepared in this process and kept while its key holds (warm mode only).

    Preparing loads conftests here; when one imports the target, nothing is kept
    and each request prepares its own.
    """
    key = config.get("config_key")
    if not key:
        return None
    if key not in starters:
        starters.clear()
        if not _prepares_cleanly(config):
            return (
                None  # preparing here would import the target (or fail): keep this process pristine
            )
        starter = Starter(config)
        starter.prepare(config["target"])
        starters[key] = starter
    return starters[key]


def _prepares_cleanly(config: dict[str, Any]) -> bool:
    """Prepare pytest's config in a throwaway child: does it work without importing the target?"""
    pid = os.fork()
    if pid == 0:
        starter = Starter(config)
        starter.prepare(config["target"])
        os._exit(0 if starter.prepared is not None else 1)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--serve"]:
        serve()
        return 0
    if argv[:1] == ["--ground-truth"]:
        config = json.load(open(argv[1], encoding="utf-8"))  # noqa: SIM115
        limits = (float(argv[4]), float(argv[5]), argv[6]) if len(argv) > 6 else None
        result = ground_truth(config, argv[2], argv[3], limits)
        with open(argv[3], "w", encoding="utf-8") as handle:
            json.dump(result, handle)
        return 0
    config = json.load(open(argv[0], encoding="utf-8"))  # noqa: SIM115
    run_request(config)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
