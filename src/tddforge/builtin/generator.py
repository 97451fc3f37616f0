"""The builtin generator as the cover loop sees it: a ``TestSuiteGenerator`` with no LLM.

``generate`` (attempt 0) discovers the module in the sandbox, mines its
constants and runs the coverage-guided search; it writes one test per call
that reached new arcs. ``enhance`` (attempts 1+) is the mutant-directed
phase: it runs calls against the mutants that survived the last measurement
(the calls the search ran, new calls fed the mutated lines' own literals, and
reads of the module's public data) and adds the calls whose observed outcome
differs on some mutant. Both phases share one time budget (``--budget``), the search
getting most of it; when nothing is left to add, ``enhance`` returns the
suite unchanged, the loop sees no progress, and the Router stops.

The output is formatted with ruff (the project's configuration) when ruff is
installed, so it passes ``ruff format --check`` as well as ``ruff check``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path

from tddforge.analysis.static import format_source
from tddforge.builtin.aliases import type_aliases, with_aliases
from tddforge.builtin.bounds import loop_bounds
from tddforge.builtin.constants import Constant, mine_constants, with_texts
from tddforge.builtin.data_files import DataFiles
from tddforge.builtin.discover import ModuleInfo, discover
from tddforge.builtin.environ import EnvRead, env_reads, isolated, pinned
from tddforge.builtin.explore import (
    Call,
    CallResult,
    capture_calls,
    confirm_calls,
    run_against_mutants,
    run_calls,
    smallest_cover,
    without_subsumed,
)
from tddforge.builtin.file_headers import composed_headers
from tddforge.builtin.forwarded import forwarded_literals, pattern_inputs, with_forwarded
from tddforge.builtin.from_tests import (
    TestInputs,
    ancestor_reexports,
    consuming,
    package_reexports,
    project_test_sources,
    read_tests,
    star_names,
)
from tddforge.builtin.imported_patterns import imported_patterns
from tddforge.builtin.match_cases import match_calls
from tddforge.builtin.module_sequences import StateUse, state_uses
from tddforge.builtin.module_state import (
    advanced_iterators,
    argv_readers,
    clock_lines,
    mutated_containers,
    rebound_globals,
    restoring,
    unclocked,
)
from tddforge.builtin.options import option_pairs, with_option_pairs
from tddforge.builtin.protocols import with_instance_hints
from tddforge.builtin.search import Guard, search
from tddforge.builtin.sequences import state_changers
from tddforge.builtin.sized import named_literals, sized_constants, with_sized
from tddforge.builtin.targeting import (
    call_site_strings,
    calls_with_inputs,
    choose,
    inputs_from_lines,
    kills,
    line_strings,
    plan,
    public_data,
    public_data_lines,
    users_of_line,
)
from tddforge.builtin.texts import composed_texts
from tddforge.builtin.usage import annotate, usage_hints
from tddforge.builtin.writer import bound_names, public_homes, write_module, written_keys
from tddforge.config import Settings
from tddforge.cover_contract import CoverTarget, GeneratedSuite
from tddforge.mutation.mutant import Mutant, apply_mutant
from tddforge.pysource import read_python
from tddforge.sandbox import Limits, Sandbox
from tddforge.sandbox.sandbox import BASE_ENV
from tddforge.types import Progress

#: Of the budget, counted from the generator's start (discovery, reading the project's
#: tests and capturing its API's calls come out of it, ``search_seconds``); the
#: mutant-directed phase gets the rest. Counted from the search's own start, the
#: generator took 16.2 s of a 15 s budget on toolz. When calls cost 16 ms a child, cutting
#: dnspython's search from 10.5 s to about 8 gave 326 and 512 arcs instead of 567; at
#: 3 ms (``calls.preload``) it reached 577 arcs in 3 rounds, but svg.path, whose rounds
#: take 2.5 s, ran 3 rounds where 4 (294 arcs where 319).
SEARCH_SHARE = 0.7
#: At least this long (when left) for reading the module's tables with each mutant on:
#: cheap, and often most of a module's mutants (inflection's 126 of 218 survivors take
#: 1.5 s), so a third of a short phase is not enough.
DATA_SECONDS = 2.0
CAPTURE_SHARE = 0.1  # at most, for the calls the package's API makes of the module
MIN_PHASE_SECONDS = 2.0
PER_MUTANT_CALLS = 64  # calls made from one mutant's line literals or its helper's call sites
MAX_NEW_CALLS = 600


def search_seconds(budget: float, spent: float) -> float:
    """What the coverage search may take, ``spent`` seconds into the generator's run
    (discovery, reading the project's tests, capturing its API's calls): its share of
    the budget less what is spent, and half its share at least."""
    share = budget * SEARCH_SHARE
    return max(share - spent, share / 2)


def phase_seconds(budget: float, spent: float, phase_spent: float) -> float:
    """What a mutant-directed phase may take: what is left of the budget, and at least what
    is left of the phases' own share (``1 - SEARCH_SHARE`` of it, over all attempts). The
    search overruns its share by the time it takes to confirm what it kept, a second or
    two on a slow machine, and that must not come out of the phases': on Python 3.10
    without bubblewrap the README's example got 3.0 s of 4.5, added one call, and stayed
    at 77% instead of 91%."""
    share = budget * (1 - SEARCH_SHARE)
    return max(budget - spent, share - phase_spent, 0.0)


def data_seconds(left: float, in_data: int, survivors: int) -> float:
    """The part of a mutant-directed phase of ``left`` seconds that reads the module's
    tables, for ``in_data`` of its ``survivors`` mutants: their share of the time, a third
    at least, and ``DATA_SECONDS`` when that much is left."""
    share = left * in_data / survivors if survivors else 0.0
    return max(left / 3, share, min(left, DATA_SECONDS))  # none of them is more than left


class BuiltinSuiteGenerator:
    """Writes and improves a suite from observed behaviour, within ``budget`` seconds."""

    name = "builtin"

    def __init__(
        self,
        settings: Settings,
        python: Path,
        *,
        budget: float = 20.0,
        progress: Progress = lambda message: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.python = python
        self.budget = budget
        self.progress = progress
        self.clock = clock
        self._deadline = 0.0
        self._spent = 0.0  # the budget counts the generator's own time, not the loop's measuring
        self._phase_spent = 0.0  # ... of which the mutant-directed phase's
        self._sandbox: Sandbox | None = None
        self._info: ModuleInfo | None = None
        self._kept: list[CallResult] = []
        self._pool: list[CallResult] = []
        self._targeted: set[str] = set()  # mutant ids already aimed at
        self._cut_short: set[str] = set()  # ... whose runs the time ran out on: aimed at again
        self._environ: dict[str, EnvRead] = {}  # variables the module's functions read

    def generate(self, target: CoverTarget) -> GeneratedSuite:
        """Discover, search for new coverage, and write a test per kept call."""
        started = self.clock()
        self._deadline = started + self.budget
        box = self._box(target)
        module = target.project / target.module_rel
        found_info = discover(target.project, module, python=self.python, sandbox=box)
        inferred = usage_hints(target.source)
        info = annotate(found_info, inferred)  # untyped code: hints from use
        info = with_aliases(info, type_aliases(target.source))  # a TYPE_CHECKING alias: its types
        info = with_instance_hints(info, inferred)  # ``a == b``: two instances of the class
        info = with_option_pairs(info, option_pairs(target.source))  # options given together
        self._info = info
        guard = Guard()  # reading the project's tests never stops the run
        sources = guard(
            "finding the project's tests",
            partial(project_test_sources, target.project, [target.test_path]),
            dict[str, str](),
        )
        offered = guard(
            "reading the package's re-exports",
            partial(
                package_reexports,
                _package_init(target),
                target.import_name,
                partial(_sibling_source, target),
            ),
            frozenset[str](),
        )
        above = guard(
            "reading the re-exports of the packages above",
            partial(
                ancestor_reexports, target.import_name, offered, partial(_ancestor_init, target)
            ),
            dict[str, frozenset[str]](),
        )
        namespace = frozenset(bound_names(target.source))
        files = DataFiles(target.project)
        read = partial(
            read_tests,
            target.import_name,
            info,
            sources,
            offered,
            namespace,
            files,
            above,
            partial(_star_names, target),
        )
        given = guard("reading the project's tests", read, TestInputs([], []))
        captured: list[Call] = []
        if given.drivers:  # the package's API run by the tests: the calls it makes of the module
            capture = partial(
                capture_calls,
                target.project,
                module,
                given.drivers,
                python=self.python,
                sandbox=box,
                timeout=max(self.budget * CAPTURE_SHARE, 2.0),
            )
            captured = guard("capturing the calls the package's API makes", capture, list[Call]())
            captured = consuming(captured, info)
        matched = guard(
            "reading the cases its functions match",
            partial(match_calls, target.source, info),
            list[Call](),
        )
        tested = list(dict.fromkeys([*given.calls, *captured]))
        seeded = list(dict.fromkeys([*tested, *matched]))
        mined = mine_constants(target.source)
        lengths = guard(
            "finding the lengths it checks",
            partial(_checked_lengths, target),
            dict[str, tuple[Constant, ...]](),
        )
        mined = with_sized(mined, lengths)
        forwarded = guard(
            "finding the literals its callees test what it passes on against",
            partial(forwarded_literals, target.source),
            dict[str, tuple[Constant, ...]](),
        )
        mined = with_forwarded(mined, forwarded)
        patterns = guard(
            "reading the regexes it imports",
            partial(_imported_patterns, target),
            dict[str, tuple[Constant, ...]](),
        )
        mined = with_forwarded(mined, patterns)
        compiled = guard(
            "finding the parameters it compiles as regexes",
            partial(pattern_inputs, target.source),
            dict[str, tuple[Constant, ...]](),
        )
        mined = with_forwarded(mined, compiled)
        texts = guard(
            "composing texts",
            partial(composed_texts, target.source, _regex_examples(mined)),
            dict[str, tuple[str, ...]](),
        )
        headers = guard(
            "composing binary headers",
            partial(composed_headers, target.source),
            dict[str, tuple[bytes, ...]](),
        )
        composed: dict[str, tuple[str | bytes, ...]] = {
            scope: (*texts.get(scope, ()), *headers.get(scope, ()))
            for scope in dict.fromkeys([*texts, *headers])
        }
        changers = guard(
            "finding methods that change state",
            partial(state_changers, target.source),
            dict[str, frozenset[str]](),
        )
        environ = guard(
            "finding environment variables read",
            partial(env_reads, target.source),
            dict[str, EnvRead](),
        )
        bounds = guard(
            "finding what bounds its loops",
            partial(loop_bounds, target.source),
            dict[str, frozenset[str]](),
        )
        found = search(
            target.project,
            module,
            info,
            with_texts(mined, composed),
            python=self.python,
            sandbox=box,
            budget=search_seconds(self.budget, self.clock() - started),
            clock=self.clock,
            seeded=seeded,
            changers=changers,
            module_state=guard(
                "finding what changes the module's state",
                partial(state_uses, target.source),
                StateUse(),
            ),
            environ=environ,
            bounds=bounds,
        )
        self._environ = environ
        self._kept = smallest_cover(found.kept, target.source)
        # the calls the cover left out reached something new when found: aimed at first
        written = {r.call for r in self._kept}
        spare = [r for r in found.kept if r.call not in written]
        spared = {r.call for r in spare}
        self._pool = [*spare, *(r for r in found.seen if r.call not in spared)]
        summary = (
            f"coverage search: {found.calls_run} calls in {found.rounds} round(s), "
            f"{len(found.kept)} kept, {len(found.covered)} arcs; stopped: {found.stopped}"
            + (f"; {len(tested)} call(s) from the project's tests" if tested else "")
            + (f" ({len(captured)} made through the package's API)" if captured else "")
        ) + "".join(f"; note: {note}" for note in [*guard.notes, *found.notes])
        self.progress(summary)
        self._spent += self.clock() - started
        return GeneratedSuite(self._write(target), summary)

    def enhance(
        self,
        target: CoverTarget,
        current: str,
        instruction_block: str,
        survivors: Sequence[Mutant] = (),
        killers: Sequence[str] = (),
    ) -> GeneratedSuite:
        """The mutant-directed phase: add calls whose outcome tells a survivor apart.

        When it adds some, the earlier tests that are not ``killers`` and reach no
        arc the others do not are left out of the new suite: the final suite would
        drop them and be measured a third time. Arcs, not lines, decide, so no
        branch is lost.
        """
        started = self.clock()
        try:
            return self._enhance(target, current, survivors, set(killers), started)
        finally:
            self._spent += self.clock() - started
            self._phase_spent += self.clock() - started

    def _enhance(
        self,
        target: CoverTarget,
        current: str,
        survivors: Sequence[Mutant],
        killers: set[str],
        started: float,
    ) -> GeneratedSuite:
        fresh = [m for m in survivors if m.id not in self._targeted]
        left = phase_seconds(self.budget, self._spent, self._phase_spent)
        self._deadline = started + left
        if not fresh or left < MIN_PHASE_SECONDS:
            why = "no new surviving mutants" if not fresh else "the time budget is spent"
            return GeneratedSuite(current, f"mutant-directed phase skipped: {why}", exhausted=True)
        self._targeted.update(m.id for m in fresh)
        self._cut_short.clear()
        guard = Guard()
        nothing: tuple[list[CallResult], set[str]] = ([], set())
        # a mutant in a public table is killed by reading the table: cheap, and first, as a
        # table can hold most of a module's mutants (a row of numbers, three mutants each)
        lines = public_data_lines(target.source)
        in_data = [m for m in fresh if m.line in lines]
        added, killed = nothing
        if in_data:
            seconds = data_seconds(left, len(in_data), len(fresh))
            step = partial(self._aim_with_module_data, target, in_data, seconds)
            added, killed = guard("reading module data", step, nothing)
        rest = [m for m in fresh if m.id not in killed]
        more, killed = guard(
            "aiming the pool's calls", partial(self._aim, target, rest, left / 3), nothing
        )
        added = [*added, *more]
        rest = [m for m in rest if m.id not in killed]
        for what, aim in (
            ("aiming line inputs", self._aim_with_line_inputs),
            ("reading module data", self._aim_with_module_data),
        ):
            if not rest:
                break
            step = partial(aim, target, rest, self._deadline - self.clock())
            more, killed = guard(what, step, nothing)
            added += more
            rest = [m for m in rest if m.id not in killed]
        # a mutant no run answered for is aimed at again by the next attempt, if time is left
        self._targeted -= self._cut_short
        reached = f"; {len(self._cut_short)} not reached in time" if self._cut_short else ""
        summary = (
            f"mutant-directed phase: {len(fresh)} surviving mutant(s), {len(added)} call(s) added"
            + reached
        ) + "".join(f"; note: {note}" for note in guard.notes)
        self.progress(summary)
        if not added:
            return GeneratedSuite(current, summary, exhausted=True)
        named = written_keys(target.import_name, self._kept, target.framework)
        protected = {r.call for r in self._kept if named.get(r.call) in killers}
        protected |= {r.call for r in added}
        self._kept = without_subsumed(self._kept + added, protected, target.source)
        return GeneratedSuite(self._write(target), summary)

    def _aim(
        self, target: CoverTarget, mutants: Sequence[Mutant], seconds: float
    ) -> tuple[list[CallResult], set[str]]:
        """The pool's calls that kill some of ``mutants`` (chosen greedily), and the ids killed."""
        if seconds < 1.0:
            return [], set()
        kept = {r.call for r in self._kept}
        pool = [r for r in self._pool if r.call not in kept]
        plans = plan(mutants, pool, source=target.source)
        if not plans:
            return [], set()
        jobs = [(p.mutant.id, apply_mutant(target.source, p.mutant), p.calls) for p in plans]
        return self._judge(target, pool, jobs, seconds)

    def _aim_with_module_data(
        self, target: CoverTarget, mutants: Sequence[Mutant], seconds: float
    ) -> tuple[list[CallResult], set[str]]:
        """The module's public data (``PLURALS``, ``__version__``), read with each mutant on:
        a table built at import time is checked where it is, as a test of its value."""
        if seconds < 1.0:
            return [], set()
        reads = [Call(name, attribute=True) for name in public_data(target.source)]
        if not reads:
            return [], set()
        module = target.project / target.module_rel
        results = run_calls(
            target.project,
            module,
            reads,
            python=self.python,
            sandbox=self._box(target),
            timeout=seconds / 3,
        )
        usable = [r for r in results if r.deterministic and r.outcome.literal]
        if not usable:
            return [], set()
        every = tuple(range(len(usable)))
        jobs = [(m.id, apply_mutant(target.source, m), every) for m in mutants]
        left = min(seconds, self._deadline - self.clock())
        return self._judge(target, usable, jobs, max(left, 1.0))

    def _aim_with_line_inputs(
        self, target: CoverTarget, mutants: Sequence[Mutant], seconds: float
    ) -> tuple[list[CallResult], set[str]]:
        """New calls fed the mutated lines' own literals (a rule table's words), each run
        against its mutant."""
        if seconds < MIN_PHASE_SECONDS:
            return [], set()
        strings = line_strings(target.source)
        wanted: dict[str, list[Call]] = {}
        for m in mutants:
            inputs = inputs_from_lines(m, strings, limit=2)
            inputs += call_site_strings(target.source, m.line)
            users = users_of_line(target.source, m.line)
            wanted[m.id] = calls_with_inputs(self._pool, inputs, users)[:PER_MUTANT_CALLS]
        tried = {r.call for r in self._pool}
        fresh = list(dict.fromkeys(c for calls in wanted.values() for c in calls if c not in tried))
        if not fresh:
            return [], set()
        module = target.project / target.module_rel
        results = run_calls(
            target.project,
            module,
            fresh[:MAX_NEW_CALLS],
            python=self.python,
            sandbox=self._box(target),
            timeout=seconds / 3,
        )
        self._pool += results
        index = {r.call: i for i, r in enumerate(results) if r.deterministic}
        jobs = []
        for m in mutants:
            calls = tuple(index[c] for c in wanted[m.id] if c in index)
            if calls:
                jobs.append((m.id, apply_mutant(target.source, m), calls))
        if not jobs:
            return [], set()
        return self._judge(target, results, jobs, max(self._deadline - self.clock(), 1.0))

    def _judge(
        self,
        target: CoverTarget,
        pool: Sequence[CallResult],
        jobs: Sequence[tuple[str, str, Sequence[int]]],
        seconds: float,
    ) -> tuple[list[CallResult], set[str]]:
        """Run each job's calls (indexes into ``pool``) with its mutant on; the calls that
        kill most, chosen greedily, and the mutant ids they kill."""
        runs = run_against_mutants(
            target.project,
            target.project / target.module_rel,
            [r.call for r in pool],
            jobs,
            python=self.python,
            sandbox=self._box(target),
            timeout=seconds,
        )
        self._cut_short.update(mutant for mutant, _, _ in jobs if mutant not in runs)
        self._cut_short.difference_update(runs)
        killers = kills(pool, runs)
        pool = list(pool)
        while True:  # a call is kept only once both hash seeds agree on its outcome
            chosen = choose(killers)
            todo = [pool[i] for i in chosen if not pool[i].confirmed]
            if not todo:
                return [pool[i] for i in chosen], {m for i in chosen for m in killers[i]}
            done = {r.call: r for r in self._confirm(target, todo)}
            for i in chosen:
                pool[i] = done.get(pool[i].call, pool[i])
                if not pool[i].confirmed or not pool[i].deterministic:
                    killers.pop(i, None)
            self._pool = [done.get(r.call, r) for r in self._pool]

    def _confirm(self, target: CoverTarget, results: list[CallResult]) -> list[CallResult]:
        """``results`` run again with the second hash seed (see ``confirm_calls``)."""
        return confirm_calls(
            target.project,
            target.project / target.module_rel,
            results,
            python=self.python,
            sandbox=self._box(target),
            timeout=max(self._deadline - self.clock(), 5.0),
        )

    def _box(self, target: CoverTarget) -> Sandbox:
        if self._sandbox is None:
            limits = Limits.from_config(
                self.settings.sandbox, self.settings.cover.test_timeout_seconds
            )
            self._sandbox = Sandbox(target.project, limits)
        return self._sandbox

    def _write(self, target: CoverTarget) -> str:
        homes = public_homes(target.import_name, target.source, _package_init(target))
        kept = isolated(self._kept, self._environ, BASE_ENV)  # the variables it ran without
        kept = pinned(kept)  # and those it read at run time, as they were where it ran
        kept = unclocked(kept, clock_lines(target.source))  # a value of the moment: its type
        prog = target.import_name.rsplit(".", 1)[-1]  # ``sys.argv`` as the runner set it
        rebinds, argv = rebound_globals(target.source), argv_readers(target.source)
        changes = mutated_containers(target.source)  # a registry it adds to: on a copy
        advances = advanced_iterators(target.source)  # a counter it takes ids from: afresh
        kept = restoring(kept, rebinds, argv, prog, changes, advances)  # globals, argv read
        code = write_module(target.import_name, kept, target.framework, homes)
        return format_source(code, target.test_path, target.project)


def _checked_lengths(target: CoverTarget) -> dict[str, tuple[Constant, ...]]:
    """Per scope, values of each length the module checks ``len(...)`` against."""
    package = target.import_name.rpartition(".")[0]
    named = named_literals(target.source, partial(_sibling_source, target), package)
    return sized_constants(target.source, named)


def _imported_patterns(target: CoverTarget) -> dict[str, tuple[Constant, ...]]:
    """Per scope, the regexes of sibling modules it matches text with, and examples."""
    package = target.import_name.rpartition(".")[0]
    return imported_patterns(target.source, partial(_sibling_source, target), package)


def _sibling_source(target: CoverTarget, name: str) -> str | None:
    """The source of the module ``name`` beside the target, when there is one."""
    return _read((target.project / target.module_rel).parent / f"{name}.py")


def _read(path: Path) -> str | None:
    """A source file's text, or None when it is not there or Python could not read it."""
    try:
        return read_python(path) if path.is_file() else None
    except (OSError, UnicodeDecodeError, SyntaxError):
        return None


def _ancestor_init(target: CoverTarget, package: str) -> str | None:
    """The source of the ``__init__`` of ``package``, a package above the module's own
    (``netaddr`` for ``netaddr.ip.sets``), when there is one."""
    up = target.import_name.count(".") - package.count(".") - 1
    module = target.project / target.module_rel
    if up < 1 or up >= len(module.parents):
        return None
    return _read(module.parents[up] / "__init__.py")


def _star_names(target: CoverTarget, dotted: str) -> frozenset[str]:
    """What ``from dotted import *`` binds, for a module of the package that is a file of
    the project (``dominate.tags`` beside ``dominate.dom_tag``); none otherwise."""
    depth = target.import_name.count(".")
    module = target.project / target.module_rel
    if depth < 1 or depth >= len(module.parents):
        return frozenset()
    base = module.parents[depth].joinpath(*dotted.split("."))
    return star_names(_read(base.with_suffix(".py")) or _read(base / "__init__.py"))


def _package_init(target: CoverTarget) -> str | None:
    """The source of the package ``__init__`` beside the module, when there is one."""
    return _sibling_source(target, "__init__") if "." in target.import_name else None


def _regex_examples(mined: Mapping[str, tuple[Constant, ...]]) -> dict[str, list[str]]:
    """Per scope, the strings its regexes match (``regex_match`` constants)."""
    return {
        scope: [c.value for c in found if c.kind == "regex_match" and isinstance(c.value, str)]
        for scope, found in mined.items()
    }
