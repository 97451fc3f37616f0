"""Fresh mutants: the mutated module imported through an import hook, then collected and run.

For import-time code, or a graft or rebind that cannot be applied. One host
child starts a pytest session; where collection begins it forks a child per
mutant, which imports the mutated module through an import hook (the user's
file is never written), collects, and runs the tests fastest first up to the
first failure. When the target was imported before collection (a conftest
imports it), each mutant's child starts pytest whole from the pristine
process instead.
"""

from __future__ import annotations

import gc
import importlib.abc
import importlib.machinery
import os
import sys
import time
import types
from typing import TYPE_CHECKING, Any, Collection

import pytest

from .hosting import COLLECTION_PATH, Hosted, Starter, hand_back, run_items, unreported
from .order import Neighbours
from .preload import preload
from .processes import Pool, deliver, limit_tests, wall_limit
from .protocol import ChildVerdict, Key, MutantRecord
from .tracing import Targets

if TYPE_CHECKING:  # the reference run imports this module and needs neither
    from .baseline import Measured
    from .request import Request


class MutatedFinder(importlib.abc.MetaPathFinder):
    """Serves the mutated source for the target file; every other import is untouched."""

    def __init__(self, target: str, source: str):
        self.target = target
        self.source = source

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        """The target's spec, loading the mutated source; None for every other module."""
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
        """The mutated source's code."""
        return compile(self.mutated, self.path, "exec", dont_inherit=True)


class CodeFinder(MutatedFinder):
    """Serves ready-made code for the target file (a module with one function mutated)."""

    def __init__(self, target: str, code: types.CodeType):
        super().__init__(target, "")
        self.code = code

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        """The target's spec, loading the code; None for every other module."""
        spec = super().find_spec(name, path, target)
        if spec is not None:
            spec.loader = CodeLoader(name, spec.origin, self.code)
        return spec


class CodeLoader(importlib.machinery.SourceFileLoader):
    """Loads ready-made code; never reads or writes bytecode caches."""

    def __init__(self, name: str, path: str, code: types.CodeType):
        super().__init__(name, path)
        self.code = code

    def get_code(self, fullname: str) -> types.CodeType:
        """The code it was given."""
        return self.code


class FreshPlugin:
    """Selects and orders the covering tests and runs them itself, stopping at the first failure.

    Owning the test loop matters for speed: stopping pytest's own loop (``-x``,
    ``shouldstop``, or a collection error) raises ``Interrupted``, whose report
    pytest always formats in long style, costing far more than the run.
    """

    def __init__(self) -> None:
        self.order: list[str] = []
        self.only: set[str] | None = None  # the test files to collect (None: all)
        self.target = ""  # the mutated file, imported after collection if nothing did
        self.name = ""  # its module's name, as the baseline's collection imported it
        self.rootdir = ""

    def ignore(self, path: str) -> bool | None:
        """Leave out a test file none of ``order`` comes from (``only``): its tests cannot
        see the mutant, so importing it would only cost time. None: pytest decides."""
        if self.only is None or not path.endswith(".py") or not os.path.isfile(path):
            return None
        if os.path.basename(path) in ("conftest.py", "__init__.py"):
            return None
        return True if os.path.realpath(path) not in self.only else None

    if COLLECTION_PATH:

        def pytest_ignore_collect(self, collection_path: Any, config: Any) -> Any:
            """``ignore`` (when pytest runs this plugin itself)."""
            return self.ignore(str(collection_path))

    else:  # pytest < 7 names the argument ``path`` (a py.path)

        def pytest_ignore_collect(self, path: Any, config: Any) -> Any:  # type: ignore[misc]
            """``ignore`` (when pytest runs this plugin itself)."""
            return self.ignore(str(path))

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session: Any, config: Any, items: list[Any]) -> None:
        """Keep the tests of ``order``, in that order; import the target if no collected
        file did (a mutant that breaks its import is killed, as a full collection would)."""
        if self.only is not None and self.target:
            _import_target(self.target, self.rootdir, self.name)
        rank = {nodeid: index for index, nodeid in enumerate(self.order)}
        dropped = [item for item in items if item.nodeid not in rank]
        items[:] = sorted((i for i in items if i.nodeid in rank), key=lambda i: rank[i.nodeid])
        if dropped:
            config.hook.pytest_deselected(items=dropped)

    def pytest_collectreport(self, report: Any) -> None:
        """A collection error kills the mutant."""
        if report.failed:
            deliver({"verdict": "killed", "killer": f"collection: {report.nodeid}", "ran": 0})

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: Any) -> bool:
        """Run the tests up to the first failure; deliver the verdict."""
        deliver(run_items(list(session.items)))

    def restrict(self, rootdir: str, target: str, name: str = "") -> None:
        """Collect only the files of ``order`` (and import ``target``, by its module's
        ``name`` when known, if they do not)."""
        self.only = {
            os.path.realpath(os.path.join(rootdir, n.split("::", 1)[0])) for n in self.order
        }
        self.target = target
        self.name = name
        self.rootdir = rootdir


def _import_target(target: str, rootdir: str, name: str = "") -> None:
    """Import the (mutated) target unless it is imported already, by ``name`` (how the
    collection imported it: right in a namespace package too), else by the dotted name
    its ``__init__.py`` files give; deliver a kill if importing it fails."""
    if _imported(target):
        return
    try:
        importlib.import_module(name or dotted_name(target))
    except BaseException as exc:
        killer = f"collection: {os.path.relpath(target, rootdir)}"
        deliver({"verdict": "killed", "killer": killer, "ran": 0, "detail": repr(exc)[:200]})


def _imported(target: str) -> bool:
    """Whether a module of ``target``'s file is imported. A file is resolved only when its
    name is the target's or it is a link (only then can it resolve to the target):
    resolving every module's file cost a fresh child more than its test did."""
    real = os.path.realpath(target)
    bases = {os.path.basename(real)}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and may_be(path, bases) and os.path.realpath(path) == real:
            return True
    return False


def may_be(path: str, bases: Collection[str]) -> bool:
    """Whether ``path`` may resolve to a file named one of ``bases``: it is named so, or
    it is a link. Only then is its real path worth a stat per directory."""
    return bool(path) and (os.path.basename(path) in bases or os.path.islink(path))


def package_parts(path: str) -> tuple[str, list[str]]:
    """A file's real path split where its packages (directories with ``__init__.py``)
    begin: the directory above the outermost one, and the names from there down to the
    file's (``("/p/src", ["pkg", "sub", "leaf.py"])``)."""
    folder, name = os.path.split(os.path.realpath(path))
    parts = [name]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, package = os.path.split(folder)
        parts.insert(0, package)
    return folder, parts


def dotted_name(path: str) -> str:
    """The name a file is imported by: its packages, then the module's own name."""
    _, parts = package_parts(path)
    *packages, name = parts
    return ".".join(packages if name == "__init__.py" else [*packages, name[:-3]])


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

    def __init__(
        self,
        request: Request,
        measured: Measured,
        mutants: list[MutantRecord],
        fd: int,
        seeing: dict[str, list[str]],
    ):
        super().__init__()
        self.request = request
        self.measured = measured
        self.mutants = mutants
        self.fd = fd
        self.seeing = seeing
        self.neighbours = Neighbours(request.target_of)

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_collection(self, session: Any) -> Any:  # registered itself: no prepared config
        """Fork the children as collection starts."""
        self.collection_starts(session)
        yield

    def collection_starts(self, session: Any) -> None:
        """In the host: fork the children, wait for them, hand back, end. A child returns."""
        request = self.request
        imported = set(Targets(request.targets).imported())
        early = [m["id"] for m in self.mutants if request.target_of(m) in imported]
        preload(self.measured.stdlib)  # once here, not in every child
        unreported(session.config)  # this process ends in ``hand_back``
        gc.collect()
        gc.freeze()  # the children share the started session's heap
        pool: Pool[Key] = Pool(request.workers, request.slots)
        limit = self.measured.fresh_limit()
        for m in self.mutants:
            if m["id"] in early:
                continue
            nodeids = fresh_tests(request, self.measured, self.neighbours, m, self.seeing)
            deadlines = self.measured.deadlines(nodeids)
            if pool.spawn((m, nodeids, time.monotonic()), wall_limit(limit), self._done):
                limit_tests(limit, deadlines)
                self._switch_on(m)
                self.order = nodeids
                if m["id"] in self.seeing:
                    root = getattr(session.config, "rootpath", None) or session.config.rootdir
                    target = self.request.target_of(m)
                    self.restrict(str(root), target, self.measured.names.get(target, ""))
                return  # this child goes on: pytest collects the mutant and runs its tests
        pool.drain(self._done)
        hand_back(self.fd, early)

    def _switch_on(self, m: MutantRecord) -> None:
        """In a mutant's child: serve the mutated source to the coming import."""
        try:
            mutated = self.request.mutated(m)
        except ValueError as exc:
            deliver({"verdict": "error", "detail": str(exc)})
        sys.meta_path.insert(0, MutatedFinder(self.request.target_of(m), mutated))

    def _done(self, key: Key, result: ChildVerdict) -> None:
        _note_killer(self.neighbours, key, result)
        self.request.journal.verdict(key[0], key[1], key[2], result)


def _note_killer(neighbours: Neighbours, key: Key, result: ChildVerdict) -> None:
    """A test that killed a mutant runs first for its neighbours (same line, same function,
    or the module's top level)."""
    killer = result.get("killer")
    if result.get("verdict") == "killed" and killer in key[1]:
        neighbours.killed(key[0], killer)


def fresh_tests(
    request: Request,
    measured: Measured,
    neighbours: Neighbours,
    m: MutantRecord,
    seeing: dict[str, list[str]] | None,
) -> list[str]:
    """A fresh mutant's tests in the order its child runs them: its neighbours' killers,
    then those naming words of its lines (``affinity``), then ``fresh_order``'s."""
    tests = measured.affinity.first(request.words(m), fresh_order(measured, m, seeing))
    return neighbours.first(m, tests)


def fresh_order(
    measured: Measured, m: MutantRecord, seeing: dict[str, list[str]] | None = None
) -> list[str]:
    """The tests that can see the mutant (``seeing``, else every test), fastest first,
    those that ran the mutant's module before the others."""
    tests = (seeing or {}).get(m["id"], measured.by_speed)
    users = measured.tests_of(measured.target(m))
    return [n for n in tests if n in users] + [n for n in tests if n not in users]


def start_fresh(
    request: Request,
    measured: Measured,
    starter: Starter,
    mutants: list[MutantRecord],
    seeing: dict[str, list[str]] | None = None,
) -> Hosted:
    """Start judging fresh mutants from one started session; its ``wait`` gives the ids of
    those whose target was imported before collection (``run_each_fresh`` then).
    ``seeing``: a mutant's tests, when not every test can see it."""
    ids = [m["id"] for m in mutants]
    return Hosted.start(
        starter, lambda fd: FreshHost(request, measured, mutants, fd, seeing or {}), ids
    )


def run_fresh(
    request: Request,
    measured: Measured,
    starter: Starter,
    mutants: list[MutantRecord],
    seeing: dict[str, list[str]] | None = None,
) -> None:
    """Judge fresh mutants, from one started session when nothing imported their target yet
    (``seeing``: a mutant's tests, when not every test can see it)."""
    if not mutants:
        return
    handed_back = start_fresh(request, measured, starter, mutants, seeing).wait()
    rest = [m for m in mutants if m["id"] in handed_back]
    run_each_fresh(request, measured, starter, rest, seeing)


def run_each_fresh(
    request: Request,
    measured: Measured,
    starter: Starter,
    mutants: list[MutantRecord],
    seeing: dict[str, list[str]] | None = None,
) -> None:
    """Per mutant, a child forked from the pristine process starts pytest whole, with the
    mutant served by the import hook (what a conftest importing the target needs)."""
    pool: Pool[Key] = Pool(request.workers, request.slots)
    neighbours = Neighbours(request.target_of)

    def done(key: Key, result: ChildVerdict) -> None:
        _note_killer(neighbours, key, result)
        request.journal.verdict(key[0], key[1], key[2], result)

    from .preimported import NOT_SWITCHABLE, running_targets  # it imports this module

    limit = measured.fresh_limit()
    running = set(running_targets(request.targets))
    preload(measured.stdlib)
    for m in mutants:
        mutated = request.mutated(m)
        nodeids = fresh_tests(request, measured, neighbours, m, seeing)
        deadlines = measured.deadlines(nodeids)

        def body(
            mutated: str = mutated,
            nodeids: list[str] = nodeids,
            target: str = request.target_of(m),
            deadlines: dict[str, float] = deadlines,
        ) -> ChildVerdict:
            if target in running:  # no import of it is left to serve the mutant to
                return {"verdict": "error", "detail": NOT_SWITCHABLE, "ran": 0}
            limit_tests(limit, deadlines)
            sys.meta_path.insert(0, MutatedFinder(target, mutated))
            plugin = FreshPlugin()
            plugin.order = nodeids
            code = starter.main(plugin)  # delivers the verdict when it knows it
            return {"verdict": "killed", "killer": f"pytest exit {code}", "ran": 0}

        pool.submit((m, nodeids, time.monotonic()), wall_limit(limit), body, done)
    pool.drain(done)
