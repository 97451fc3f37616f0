"""pytest hosted in forked children: a config prepared once, our plugins, our test loop."""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any, Callable, Generator, NoReturn

import pytest

from .processes import (
    deliver,
    drain,
    end_if_stray,
    fork_child,
    in_pool_child,
    send,
    starting_test,
)
from .protocol import ChildVerdict, Fallback, WorkerConfig
from .single_process import SingleProcess
from .tracing import Targets


def pytest_args(config: WorkerConfig, targets: list[str]) -> list[str]:
    """The request's pytest arguments, then ``targets``."""
    return [*config.get("pytest_args", []), *targets]


# pytest >= 7 gives ``pytest_ignore_collect`` a pathlib ``collection_path``
COLLECTION_PATH = int(str(getattr(pytest, "__version__", "7")).split(".")[0]) >= 7


class Dispatch:
    """One plugin registered once in a shared config; each child sets ``active`` to what it needs."""

    def __init__(self) -> None:
        self.active: Any = None

    def _call(self, name: str, **kwargs: Any) -> Any:
        hook = getattr(self.active, name, None)
        return hook(**kwargs) if hook is not None else None

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_collection(self, session: Any) -> Generator[None, None, None]:
        """Tell the active plugin that collection starts."""
        self._call("collection_starts", session=session)
        yield

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: Any) -> None:
        """Pass on to the active plugin."""
        self._call("pytest_collection_finish", session=session)

    def pytest_collectreport(self, report: Any) -> None:
        """Pass on to the active plugin."""
        self._call("pytest_collectreport", report=report)

    def pytest_runtest_logreport(self, report: Any) -> None:
        """Pass on to the active plugin."""
        self._call("pytest_runtest_logreport", report=report)

    if COLLECTION_PATH:

        def pytest_ignore_collect(self, collection_path: Any, config: Any) -> Any:
            """Pass on to the active plugin (None: no opinion)."""
            return self._call("ignore", path=str(collection_path))

    else:  # pytest < 7 names the argument ``path`` (a py.path)

        def pytest_ignore_collect(self, path: Any, config: Any) -> Any:  # type: ignore[misc]
            """Pass on to the active plugin (None: no opinion)."""
            return self._call("ignore", path=str(path))

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session: Any, config: Any, items: list[Any]) -> None:
        """Pass on to the active plugin."""
        self._call("pytest_collection_modifyitems", session=session, config=config, items=items)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: Any) -> Any:
        """Pass on to the active plugin (whose loop replaces pytest's)."""
        return self._call("pytest_runtestloop", session=session)


class Starter:
    """Starts pytest in a child: from a config prepared once per request when it can.

    Preparing pytest's config (options, ini, plugins, conftests) costs about as
    much as collecting; doing it once and forking the baseline, the collector
    and every fresh child from it removes that cost from each of them. When a
    conftest imports the target, or pytest cannot start, every child falls back
    to its own ``pytest.main`` (which then reports the error).
    """

    def __init__(self, config: WorkerConfig):
        self.args = pytest_args(config, list(config["tests"]))
        self.dispatch = Dispatch()
        self.prepared: Any = None

    def prepare(self, targets: list[str]) -> None:
        """Prepare the shared config; call in the (quiet) process the children fork from.
        Kept only when that imported none of ``targets``."""
        prepared = prepare_config(self.args, [self.dispatch, SingleProcess()])
        spoiled = prepared is None or bool(Targets(targets).imported())
        self.prepared = None if spoiled else prepared

    def main(self, plugin: Any) -> int:
        """Run pytest with ``plugin`` active (call in a forked child only)."""
        if self.prepared is None:
            return int(pytest.main(self.args, plugins=[plugin, SingleProcess()]))
        self.dispatch.active = plugin
        return int(self.prepared.hook.pytest_cmdline_main(config=self.prepared))


def prepare_config(args: list[str], plugins: list[Any]) -> Any:
    """pytest's config, parsed and with plugins and conftests loaded, not yet configured."""
    try:
        from _pytest.config import _prepareconfig

        try:
            return _prepareconfig(args, plugins)
        except TypeError:  # older signatures
            return _prepareconfig(args=args, plugins=plugins)
    except Exception:
        return None


class Hosted:
    """pytest running in a child with a plugin that judges mutants; ``wait`` for it to end."""

    def __init__(self, pid: int, fd: int, ids: list[str]):
        self.pid = pid
        self.fd = fd
        self.ids = ids

    @classmethod
    def start(cls, starter: Starter, make_plugin: Callable[[int], Any], ids: list[str]) -> Hosted:
        """Fork a child running pytest with ``make_plugin(fd)`` active."""
        read_fd, write_fd = os.pipe()

        def child() -> int:
            os.close(read_fd)
            code = starter.main(make_plugin(write_fd))
            if in_pool_child():  # a mutant's child whose session ended before its verdict
                deliver({"verdict": "killed", "killer": f"pytest exit {code}", "ran": 0})
            end_if_stray()
            send(write_fd, Fallback(fallback=ids))
            return 0

        pid = fork_child(child)
        os.close(write_fd)
        return cls(pid, read_fd, ids)

    def wait(self) -> set[str]:
        """The mutant ids the child handed back on its pipe (all of them if its session
        ended before it could take them; none if it died)."""
        data = drain(self.fd, self.pid)
        answer: Fallback = json.loads(data) if data else Fallback(fallback=[])
        return set(answer["fallback"])


def host(starter: Starter, make_plugin: Callable[[int], Any], ids: list[str]) -> set[str]:
    """Run pytest in a child with ``make_plugin(fd)`` active; the mutant ids it hands back
    on ``fd`` (all of them if its session ends before it could take them)."""
    return Hosted.start(starter, make_plugin, ids).wait()


def hand_back(fd: int, ids: list[str]) -> NoReturn:
    """End a host child: send the mutant ids it leaves to a slower path."""
    send(fd, Fallback(fallback=ids))
    os.close(fd)
    os._exit(0)


def unreported(config: Any) -> None:
    """Unregister pytest's terminal reporter in a process that ends without a session
    end (``hand_back``, ``deliver``): its children print to /dev/null, yet it formats
    every test's start, status and progress line (50 us a test on toolz's suite, a
    sixteenth of its tests' run). Whether a test failed is counted by the session."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        config.pluginmanager.unregister(reporter)


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


def settle(items: list[Any]) -> None:
    """Work out each item's location (path, line, name) here, before the children fork.

    pytest computes it once per item, on the first report, and caches it on the
    item. Left to the children, every child computes it again for each test it
    runs, with the relative-path cache it fills, which cost about a tenth of a
    child running one test (its time and the memory pages it copies).
    """
    for item in items:
        with contextlib.suppress(Exception):  # a plugin's item may not locate itself
            item.location  # noqa: B018  (a cached property: reading it fills the cache)


def run_items(items: list[Any]) -> ChildVerdict:
    """Run items in order; stop at the first failure. Used in forked children only.

    A failing test's report gets no traceback text: formatting it (reading and
    parsing source lines) cost half of a killed mutant's test run, and whether
    the test failed, which decides the verdict, does not depend on it.
    """
    for index, item in enumerate(items):
        item.repr_failure = _no_failure_text
        starting_test(item.nodeid)
        nextitem = items[index + 1] if index + 1 < len(items) else None
        if run_protocol(item, nextitem):
            return {"verdict": "killed", "killer": item.nodeid, "ran": index + 1}
    return {"verdict": "survived", "ran": len(items)}
