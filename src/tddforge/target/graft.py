"""Graft mutants: the mutated ``__code__`` swapped into live functions, in a collector's children.

One collector child collects the tests but never runs one; per mutant it
forks a grandchild that gives the live function objects the mutated code (or,
for a module-level data mutant, ``rebind``s it) and runs only the covering
tests, fastest first, stopping at the first failure. No test's side effects
can leak into another mutant's verdict: every grandchild starts from the
never-run collector.
"""

from __future__ import annotations

import gc
import time
import types
from typing import TYPE_CHECKING, Any, Dict, List, Tuple, Union

import pytest

from .hosting import Starter, hand_back, host, run_items
from .processes import Pool, limit_cpu, wall_limit
from .protocol import ChildVerdict, MutantRecord
from .rebind import rebind
from .source import apply_mutant
from .tracing import SameFile

if TYPE_CHECKING:
    from .baseline import Measured
    from .request import Request

Key = Tuple[MutantRecord, List[str], float]  # a mutant, the tests its child runs, when it began
Live = Dict[Tuple[str, int], List[types.FunctionType]]
# what a grandchild switches on: grafted code, a compile error to raise there, or None: rebind
Prepared = Union[types.CodeType, Exception, None]


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


def live_functions(target: str) -> Live:
    """Every live function object whose code comes from the target file."""
    index: Live = {}
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

    def compile(self, m: MutantRecord, target: str) -> types.CodeType:
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


def graft(statement_code: types.CodeType, m: MutantRecord, live: Live) -> None:
    """Give the live functions enclosing the mutant their mutated code (raises if impossible)."""
    key = (m["graft_name"], m["graft_firstlineno"])
    code = find_code(statement_code, *key)
    functions = live.get(key)
    if code is None or not functions:
        raise LookupError(f"no live function {key[0]} at line {key[1]}")
    for function in functions:
        function.__code__ = code  # ValueError if the closure's shape changed


class GraftPlugin:
    """In the collector child: never runs a test; forks one grandchild per graft mutant."""

    def __init__(
        self,
        request: Request,
        measured: Measured,
        work: list[tuple[MutantRecord, list[str]]],
        fd: int,
    ):
        self.request = request
        self.measured = measured
        self.work = work
        self.fd = fd
        self.fallback: list[str] = []  # the ids of mutants handed to the fresh path

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: Any) -> bool:
        """Judge every mutant in a grandchild; hand back those needing a fresh import; end."""
        items = {item.nodeid: item for item in session.items}
        live = live_functions(self.request.target)
        blocks = Blocks(self.request.source, self.request.offsets)
        gc.collect()
        gc.freeze()  # grandchildren share the collected heap instead of copying it
        pool: Pool[Key] = Pool(self.request.workers)
        for m, nodeids in self.work:
            limit = self.measured.timeout(nodeids, self._extra(m))
            code = self._compiled(blocks, m)

            def body(
                m: MutantRecord = m,
                nodeids: list[str] = nodeids,
                limit: float = limit,
                code: Prepared = code,
            ) -> ChildVerdict:
                limit_cpu(limit)
                switched = self._switch_on(m, code, live)
                return switched or run_items([items[n] for n in nodeids if n in items])

            pool.submit((m, nodeids, time.monotonic()), wall_limit(limit), body, self._done)
        pool.drain(self._done)
        hand_back(self.fd, self.fallback)

    def _extra(self, m: MutantRecord) -> float:
        """A rebound mutant's child also re-runs the module: collection's time is added."""
        return self.measured.collect_seconds if m["strategy"] == "fresh" else 0.0

    def _compiled(self, blocks: Blocks, m: MutantRecord) -> Prepared:
        """Compiled here, in the parent's warm memory, while earlier children run: a compile
        in a fresh child costs several times more (its memory is all new). Rebind (None)
        compiles the whole module in the child."""
        if m["strategy"] == "fresh":
            return None
        try:
            return blocks.compile(m, self.request.target)
        except Exception as exc:  # raised again in the child, which decides its meaning
            return exc

    def _switch_on(self, m: MutantRecord, code: Prepared, live: Live) -> ChildVerdict | None:
        """In the grandchild: switch the mutant on; a verdict when that already decides one."""
        try:
            if code is None:
                rebind(self.request.mutated(m), self.request.target)
            elif isinstance(code, Exception):
                raise code
            else:
                graft(code, m, live)
        except (LookupError, ValueError, SyntaxError) as exc:
            return {"verdict": "fallback", "detail": str(exc)}
        except Exception as exc:  # the mutated module fails to run: an import error
            return {"verdict": "killed", "killer": "collection: " + type(exc).__name__, "ran": 0}
        return None

    def _done(self, key: Key, result: ChildVerdict) -> None:
        m, nodeids, started = key
        if result.get("verdict") == "fallback":
            self.fallback.append(m["id"])
        else:
            self.request.journal.verdict(m, nodeids, started, result)


def run_graft(
    request: Request,
    measured: Measured,
    starter: Starter,
    work: list[tuple[MutantRecord, list[str]]],
) -> list[MutantRecord]:
    """Judge graft and rebind mutants from a collector child; return those that need the
    fresh path."""
    ids = [m["id"] for m, _ in work]
    handed_back = host(starter, lambda fd: GraftPlugin(request, measured, work, fd), ids)
    return [m for m, _ in work if m["id"] in handed_back]
