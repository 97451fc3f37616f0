"""Graft mutants: the mutated ``__code__`` swapped into live functions, in a collector's children.

One collector child collects the tests but never runs one; per mutant it
forks a grandchild that gives the live function objects the mutated code (or,
for a module-level data mutant, ``rebind``s it) and runs only the covering
tests, stopping at the first failure. No test's side effects can leak into
another mutant's verdict: every grandchild starts from the never-run collector.

A target the collection did not import (its tests import it inside test
functions) has no live functions yet: the grandchild serves the mutated module
to the tests' own import instead (the module's code with the mutated function
put in, or, for code run at import, the mutated source), as a fresh import
would, without collecting again.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import gc
import time
import types
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Tuple, Union

import pytest

from .blocks import Blocks, find_code, replace_code
from .entries import Snapshot
from .fresh import CodeFinder, MutatedFinder
from .hosting import Hosted, Starter, hand_back, run_items, settle, unreported
from .narrowing import TRACED, Narrowing
from .order import Neighbours, schedule
from .processes import Pool, limit_tests, wall_limit
from .protocol import ChildVerdict, DefaultRecord, Key, MutantRecord
from .purity import narrowable_lines
from .rebind import rebind
from .request import called
from .statements import Statements
from .tracing import Targets

if TYPE_CHECKING:
    from .baseline import Measured
    from .request import Request

Live = Dict[Tuple[str, str, int], List[types.FunctionType]]  # (target, name, first line)


class Served:
    """What a grandchild serves to the tests' import of a target the collection left alone."""

    def __init__(self, target: str, code: types.CodeType | None, source: str | None):
        self.target = target
        self.code = code
        self.source = source

    def install(self) -> None:
        """Put the finder first on ``sys.meta_path``."""
        import sys

        finder = (
            CodeFinder(self.target, self.code)
            if self.code is not None
            else MutatedFinder(self.target, self.source or "")
        )
        sys.meta_path.insert(0, finder)


# what a grandchild switches on: grafted code, a module to serve, a compile error to raise
# there, or None: rebind
class Default:
    """A mutated default's value, made in the collector, set in a grandchild; and the
    unmutated one (``MISSING`` when its text is not a literal), which the live
    function's default must still be."""

    def __init__(self, site: DefaultRecord):
        self.value = ast.literal_eval(site["value"])
        self.original = ast.literal_eval(site["original"]) if site["original"] else MISSING


MISSING = object()


Prepared = Union[types.CodeType, Served, "Default", Exception, None]


def live_functions(targets: Targets) -> Live:
    """Every live function object whose code comes from a target file. The heap frozen
    before the collection (what pytest imported as it started: pluggy, when the project
    is pluggy) is unfrozen first, or ``gc.get_objects`` would not list it; the collector
    freezes it all again before its children fork."""
    index: Live = {}
    gc.unfreeze()
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType):
            target = targets(obj.__code__.co_filename)
            if target is not None:
                key = (target, obj.__code__.co_name, obj.__code__.co_firstlineno)
                index.setdefault(key, []).append(obj)
    return index


def graft(statement_code: types.CodeType, m: MutantRecord, target: str, live: Live) -> None:
    """Give the live functions enclosing the mutant their mutated code (raises if impossible)."""
    key = (m["graft_name"], m["graft_firstlineno"])
    code = find_code(statement_code, *key)
    functions = live.get((target, *key))
    if code is None or not functions:
        raise LookupError(f"no live function {key[0]} at line {key[1]}")
    for function in functions:
        function.__code__ = code  # ValueError if the closure's shape changed


def set_default(site: DefaultRecord, default: Default, target: str, live: Live) -> None:
    """Give the live functions of ``site`` the mutated default. Raises (the mutant is then
    imported fresh) if they are not there, or their defaults are not what the source
    gives: another number of them, or a literal default that is no longer its value (a
    decorator or the module changed it after the ``def``)."""
    functions = live.get((target, site["name"], site["first"]))
    if not functions:
        raise LookupError(f"no live function {site['name']} at line {site['first']}")
    slot = site["slot"]
    for function in functions:
        if isinstance(slot, int):
            defaults = function.__defaults__ or ()
            if len(defaults) != site["count"]:
                raise LookupError(f"{site['name']} has {len(defaults)} defaults")
            _still(default.original, defaults[slot], site)
            function.__defaults__ = (*defaults[:slot], default.value, *defaults[slot + 1 :])
        else:
            keywords = function.__kwdefaults__ or {}
            if slot not in keywords:
                raise LookupError(f"{site['name']} has no default for {slot}")
            _still(default.original, keywords[slot], site)
            function.__kwdefaults__ = {**keywords, slot: default.value}


def _still(original: Any, live: Any, site: DefaultRecord) -> None:
    """Raise unless the live default is the source's literal (when it is one)."""
    if original is MISSING:
        return
    try:
        same = type(live) is type(original) and bool(live == original)
    except Exception:
        same = False
    if not same:
        raise LookupError(f"{site['name']}'s default is no longer {site['original']}")


class CompiledAhead:
    """Graft mutants' functions compiled before the collector needs them.

    The worker's process waits while the baseline collects, with a core to spare:
    compiling there, one mutant per step, spares the collector that work (about a
    millisecond a mutant), which otherwise shares a core with its children. The
    collector inherits what was done and compiles the rest itself.
    """

    def __init__(self, request: Request):
        self.request = request
        self.code: dict[str, types.CodeType] = {}
        self.blocks: dict[str, Blocks] = {}

    def steps(self) -> Iterator[None]:
        """Compile one graft mutant per step."""
        for m in self.request.config["mutants"]:
            if m.get("strategy") != "graft":
                continue
            target = self.request.target_of(m)
            with contextlib.suppress(Exception):  # the collector compiles it again, and decides
                self.code[m["id"]] = self.block(target).compile(m, target)
            yield

    def block(self, target: str) -> Blocks:
        """The target's ``Blocks``, made once."""
        if target not in self.blocks:
            module = self.request.modules[target]
            self.blocks[target] = Blocks(module.source, module.offsets)
        return self.blocks[target]


class GraftPlugin:
    """In the collector child: never runs a test; forks one grandchild per mutant."""

    def __init__(
        self,
        request: Request,
        measured: Measured,
        work: list[tuple[MutantRecord, list[str]]],
        fd: int,
        ahead: CompiledAhead | None = None,
    ):
        self.request = request
        self.measured = measured
        self.work = work
        self.fd = fd
        self.fallback: list[str] = []  # the ids of mutants handed to the fresh path
        self.neighbours = Neighbours(request.target_of)
        self.ahead = ahead or CompiledAhead(request)
        self.module_code: dict[str, types.CodeType] = {}
        self.lazy: set[str] = set()
        self.narrowing = Narrowing(measured, request.target_of)
        self.statements: dict[str, Statements | None] = {}  # rebound targets, compiled

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: Any) -> bool:
        """Judge every mutant in a grandchild; hand back those needing a fresh import; end."""
        items = {item.nodeid: item for item in session.items}
        targets = Targets(self.request.targets)
        self.lazy = set(self.request.targets) - set(targets.imported())
        live = live_functions(targets)
        settle(session.items)
        unreported(session.config)  # this process ends in ``hand_back``
        gc.collect()
        gc.freeze()  # grandchildren share the collected heap instead of copying it
        pool: Pool[Key] = Pool(self.request.workers, self.request.slots)
        work = schedule(
            self.work, lambda w: w[0], self.request.target_of, lambda w: self.measured.seconds(w[1])
        )
        narrowed = [(m, covering) for m, covering in work if self._narrows(m)]
        self.narrowing.start(pool, session.items, narrowed, self._done)
        for m, covering in self.narrowing.in_turn(pool, work, self._narrows, self._done):
            covering = self.measured.affinity.first(self.request.words(m), covering)
            nodeids = self.neighbours.first(m, covering)
            limit = self.measured.timeout(nodeids, self._extra(m))
            deadlines = self.measured.deadlines(nodeids)
            code = self._prepared(m)

            def body(
                m: MutantRecord = m,
                nodeids: list[str] = nodeids,
                limit: float = limit,
                deadlines: dict[str, float] = deadlines,
                code: Prepared = code,
            ) -> ChildVerdict:
                limit_tests(limit, deadlines)
                before = self._snapshot(m, code)
                switched = self._switch_on(m, code, live)
                if switched:
                    return switched
                if before is not None:
                    return self.narrowing.run(m, before, nodeids, items)
                return run_items([items[n] for n in nodeids if n in items])

            pool.submit((m, nodeids, time.monotonic()), wall_limit(limit), body, self._done)
        pool.drain(self._done)
        hand_back(self.fd, self.fallback)

    def _rebound(self, m: MutantRecord) -> bool:
        """Whether ``m`` is switched on by ``rebind`` here (a data mutant of a live module)."""
        target = self.request.target_of(m)
        return m["strategy"] == "fresh" and "default" not in m and target not in self.lazy

    def _narrows(self, m: MutantRecord) -> bool:
        """Whether ``m`` is a rebound mutant in a plain data statement (``purity``), whose
        child may run only the tests reading what it changed (``narrowing``). Worked out
        per module once, in the collector: its children inherit the answer."""
        if not self._rebound(m):
            return False
        target = self.request.target_of(m)
        source = self.request.module_of(m).source
        return m["line"] in narrowable_lines(source, called(self.request.config, target))

    def _snapshot(self, m: MutantRecord, code: Prepared) -> Snapshot | None:
        """In a rebound mutant's child: its module before ``rebind`` (``entries``)."""
        if code is not None or not self._narrows(m):
            return None
        return self.narrowing.snapshot(self.request.target_of(m))

    def _extra(self, m: MutantRecord) -> float:
        """A rebound or served mutant's child also runs the module: collection's time is added."""
        rebound = m["strategy"] == "fresh" and "default" not in m
        return self.measured.collect_seconds if rebound else 0.0

    def _prepared(self, m: MutantRecord) -> Prepared:
        """Made here, in the parent's warm memory, while earlier children run: a compile in a
        fresh child costs several times more (its memory is all new). Rebind (None)
        compiles the whole module in the child, as does a served mutant run at import."""
        target = self.request.target_of(m)
        try:
            if target in self.lazy:
                return self._served(m, target)
            if m["strategy"] == "fresh":
                default = m.get("default")
                if default is None:
                    self._statements(target)  # here, once: every rebound child shares it
                    return None
                return Default(default)
            return self._compiled(m, target)
        except Exception as exc:  # raised again in the child, which decides its meaning
            return exc

    def _statements(self, target: str) -> Statements | None:
        """The target's top-level statements compiled one by one (``statements``), once;
        None when its source does not compile (each child then finds that out)."""
        if target not in self.statements:
            try:
                self.statements[target] = Statements.of(self.request.modules[target].source, target)
            except (SyntaxError, ValueError):
                self.statements[target] = None
        return self.statements[target]

    def _compiled(self, m: MutantRecord, target: str) -> types.CodeType:
        """The code holding ``m``'s mutated function: compiled ahead, or now."""
        code = self.ahead.code.pop(m["id"], None)
        return code if code is not None else self.ahead.block(target).compile(m, target)

    def _served(self, m: MutantRecord, target: str) -> Served:
        """The mutated module for the tests' import: the module's code with the mutated
        function in it, or the mutated source (code that runs at import)."""
        if m["strategy"] == "fresh":
            return Served(target, None, self.request.mutated(m))
        if target not in self.module_code:
            source = self.request.modules[target].source
            self.module_code[target] = compile(source, target, "exec", dont_inherit=True)
        key = (m["graft_name"], m["graft_firstlineno"])
        function = find_code(self._compiled(m, target), *key)
        whole = None if function is None else replace_code(self.module_code[target], key, function)
        if whole is None:
            raise LookupError(f"no function {key[0]} at line {key[1]}")
        return Served(target, whole, None)

    def _switch_on(self, m: MutantRecord, code: Prepared, live: Live) -> ChildVerdict | None:
        """In the grandchild: switch the mutant on; a verdict when that already decides one."""
        target = self.request.target_of(m)
        try:
            if isinstance(code, Served):
                code.install()
            elif code is None:
                # the baseline checked once whether the module's data drifted; else, here
                checked = target in self.measured.checked
                source = None if checked else self.request.module_of(m).source
                mutated = self.request.mutated(m)
                statements = self.statements.get(target)
                run = None
                if statements is not None:
                    run = functools.partial(statements.run, mutated, m["line"], m["end_line"])
                rebind(mutated, target, source, self.request.replays(target), run)
            elif isinstance(code, Exception):
                raise code
            elif isinstance(code, Default):
                set_default(m["default"], code, target, live)
            else:
                graft(code, m, target, live)
        except (LookupError, ValueError, SyntaxError) as exc:
            return {"verdict": "fallback", "detail": str(exc)}
        except Exception as exc:  # the mutated module fails to run: an import error
            return {"verdict": "killed", "killer": "collection: " + type(exc).__name__, "ran": 0}
        return None

    def _done(self, key: Key, result: ChildVerdict) -> None:
        m, nodeids, started = key
        if m is TRACED:
            self.narrowing.ended(result)
            return
        if result.get("verdict") == "fallback":
            self.fallback.append(m["id"])
            return
        killer = result.get("killer")
        if result.get("verdict") == "killed" and killer in nodeids:
            self.neighbours.killed(m, killer)
        self.request.journal.verdict(m, nodeids, started, result)


def start_graft(
    request: Request,
    measured: Measured,
    starter: Starter,
    work: list[tuple[MutantRecord, list[str]]],
    ahead: CompiledAhead | None = None,
) -> Hosted:
    """Start judging graft, rebind and served mutants from a collector child; its ``wait``
    gives the ids of those that need the fresh path. ``ahead``: code compiled already."""
    ids = [m["id"] for m, _ in work]
    return Hosted.start(starter, lambda fd: GraftPlugin(request, measured, work, fd, ahead), ids)
