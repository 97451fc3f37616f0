"""The coverage-guided search: rounds of exploration within a time budget.

Round 0 runs the planned calls (:func:`tddforge.builtin.explore.plan_calls`).
Each later round runs the untried *neighbours* of the calls kept so far (one
argument mutated at a time, staying within its hint) and keeps those that
reach new arcs. When that frontier runs dry, the search *widens*, at most
twice, for one round: it tries neighbours of every call run so far, kept or not (a call
that reached nothing new may be one step from a branch: ``resolve`` on a path
that fails is one keyword away from returning its ``default``), taking the
functions in turn. A second widening goes on where the first stopped, even when
the first found nothing (jsonpointer's missing branches are found there). The
last round swaps one argument of each kept call for a plain value of another
type (:func:`off_hint`). The search stops when the frontier runs dry after
these (coverage has stopped rising), when there is nothing untried left, or
when the budget is spent; it says which.
"""

from __future__ import annotations

import ast
import itertools
import time
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TypeVar

from tddforge.builtin.bounds import bounded
from tddforge.builtin.constants import Constant
from tddforge.builtin.discover import CallableInfo, ModuleInfo, Param
from tddforge.builtin.environ import EnvRead, env_variants
from tddforge.builtin.explore import (
    Arc,
    Call,
    CallResult,
    calls_per_process,
    confirm_calls,
    constructor_calls,
    keep_new_coverage,
    method_variants,
    object_sources,
    param_options,
    plan_calls,
    run_calls,
    working_instances,
)
from tddforge.builtin.handed_on import calls_on_returned_values
from tddforge.builtin.module_sequences import MODULE, StateUse, known, plan_module_sequences
from tddforge.builtin.protocols import (
    calls_after_failures,
    calls_entering,
    calls_of_returned_functions,
    calls_on_returned,
    instances_made_elsewhere,
    returned_instances,
)
from tddforge.builtin.sequences import PER_METHOD, Known, known_steps, plan_sequences
from tddforge.builtin.values import LIMIT, fits, mutations, parse_hint
from tddforge.sandbox import Sandbox

MAX_ROUNDS = 16
MAX_HEIRS = 64  # calls confirmed besides the kept ones, once a kept one varied
MAX_BATCH = 400  # calls per round (each runs twice, in a fork of its own)
MAX_WIDENINGS = 2
FIRST_CALLS = 2  # planned calls of each callable run ahead of any callable's third
_POSITIONAL = ("positional_only", "positional_or_keyword")
_KEYWORD = ("positional_or_keyword", "keyword_only")
_NEW_ARGUMENT_VALUES = 4
# plain values of every common type, a slice (for ``__getitem__`` and its kin) and a class
# (it has ``__getitem__`` but is no sequence)
OFF_HINT = ("None", "0", "''", "[]", "['a']", "{}", "{'a': 1}", "slice(0, 2)", "str")


@dataclass(frozen=True)
class SearchResult:
    """The calls kept (each reached new arcs), the arcs reached, and why the search stopped."""

    kept: tuple[CallResult, ...]
    covered: frozenset[Arc]
    rounds: int
    calls_run: int
    stopped: str  # "coverage stopped rising", "nothing left to try", "budget spent", "round limit"
    seen: tuple[CallResult, ...] = ()  # every result, kept or not (the mutant phase's pool)
    #: What went wrong inside the search and was stepped over (it never ends the run).
    notes: tuple[str, ...] = ()


T = TypeVar("T")


class Guard:
    """Runs the search's own steps so that a failure in one is noted and stepped over.

    A module the generator has never seen can hit a case its code does not handle;
    the run then goes on with what it has instead of ending in a traceback.
    """

    def __init__(self) -> None:
        self.notes: list[str] = []

    def __call__(self, what: str, step: Callable[[], T], fallback: T) -> T:
        """``step()``, or ``fallback`` (noted) when it raises."""
        try:
            return step()
        except Exception as exc:  # a bug of ours on an unseen module: note it and go on
            self.notes.append(f"{what} failed ({type(exc).__name__}: {exc}); went on without it")
            return fallback


def neighbours(
    call: Call, func: CallableInfo, options: Mapping[str, Sequence[str]] | None = None
) -> list[Call]:
    """``call`` with one argument replaced by each of its mutations that fits the hint.

    ``options`` (parameter name → candidate sources) adds the parameter's
    other candidates: a value that failed as the first argument of the plan
    may pass once another argument got past a guard.
    """
    positional = [p for p in func.parameters if p.kind in _POSITIONAL]
    by_name = {p.name: p for p in func.parameters}
    options = options or {}
    found: list[Call] = []
    for i, source in enumerate(call.args):
        param = positional[i] if i < len(positional) else None
        others = options.get(param.name, ()) if param is not None else ()
        for value in [*_mutated(source, param), *others]:
            if value != source:
                found.append(replace(call, args=(*call.args[:i], value, *call.args[i + 1 :])))
    for i, (name, source) in enumerate(call.kwargs):
        for value in [*_mutated(source, by_name.get(name)), *options.get(name, ())]:
            if value != source:
                kwargs = (*call.kwargs[:i], (name, value), *call.kwargs[i + 1 :])
                found.append(replace(call, kwargs=kwargs))
    more = _with_new_keyword(call, func, options) + _with_new_pair(call, func, options)
    return list(dict.fromkeys(found + more))


def _with_new_keyword(
    call: Call, func: CallableInfo, options: Mapping[str, Sequence[str]]
) -> list[Call]:
    """``call`` with one optional parameter it left out given a few of its candidates."""
    given = {name for name, _ in call.kwargs}
    found: list[Call] = []
    for index, param in enumerate(func.parameters):
        if param.name in given or index < len(call.args) or param.kind not in _KEYWORD:
            continue
        for value in options.get(param.name, ())[:_NEW_ARGUMENT_VALUES]:
            found.append(replace(call, kwargs=(*call.kwargs, (param.name, value))))
    return found


def _with_new_pair(
    call: Call, func: CallableInfo, options: Mapping[str, Sequence[str]]
) -> list[Call]:
    """``call`` with a pair of options that act together (``func.together``), both left
    out, given two of their candidates each: ``Walker(depth=1, callback=...)``."""
    given = {name for name, _ in call.kwargs}
    positional = {p.name for p in func.parameters[: len(call.args)]}
    defaults = {p.name: p.default for p in func.parameters}
    found: list[Call] = []
    for one, other in func.together:
        if {one, other} & (given | positional):
            continue
        firsts = [[v for v in options.get(n, ()) if v != defaults.get(n)][:2] for n in (one, other)]
        for a, b in itertools.product(*firsts):
            found.append(replace(call, kwargs=(*call.kwargs, (one, a), (other, b))))
    return found


def candidate_sources(
    func: CallableInfo,
    mined: Mapping[str, tuple[Constant, ...]],
    objects: Mapping[str, list[str]] | None = None,
) -> dict[str, list[str]]:
    """Each parameter's candidate values as sources (what ``neighbours`` may swap in)."""
    options = param_options(func, mined, LIMIT, objects or {})
    return {name: [v.source for v in values] for name, values in options.items()}


def given_by_parameter(
    seeded: Sequence[Call], funcs: Mapping[str, CallableInfo], limit: int = 3
) -> dict[str, list[str]]:
    """What the project's tests pass to a parameter of each name, whatever the function:
    a graph built for ``reachable(graph, start)`` is one for ``is_chain(graph)`` too,
    though the tests may build only a simple one there. At most ``limit`` per name,
    in the tests' order."""
    found: dict[str, list[str]] = {}
    for call in seeded:
        func = funcs.get(call.target)
        if func is None:
            continue
        positional = [p.name for p in func.parameters if p.kind in _POSITIONAL]
        pairs = [*zip(positional, call.args, strict=False), *call.kwargs]
        for name, source in pairs:
            sources = found.setdefault(name, [])
            if source not in sources and len(sources) < limit:
                sources.append(source)
    return found


def _offer_given(options: dict[str, dict[str, list[str]]], given: Mapping[str, list[str]]) -> None:
    """Add to each function's candidates what the tests pass to a parameter of its name."""
    for name, sources in given.items():
        for found in options.values():
            if name in found:
                found[name] = list(dict.fromkeys([*found[name], *sources]))


def _mutated(source: str, param: Param | None) -> list[str]:
    hint = parse_hint(param.annotation) if param is not None else None
    try:
        value = ast.literal_eval(source)
    except ValueError:  # a callable (values.Expr): it has no mutations
        return []
    return [repr(m) for m in mutations(value) if fits(hint, m) and repr(m) != source]


def search(
    project: Path,
    module: Path,
    info: ModuleInfo,
    mined: Mapping[str, tuple[Constant, ...]],
    *,
    python: Path,
    sandbox: Sandbox,
    budget: float = 20.0,
    first: Sequence[Call] | None = None,
    clock: Callable[[], float] = time.monotonic,
    seeded: Sequence[Call] = (),
    changers: Mapping[str, Collection[str]] | None = None,
    environ: Mapping[str, EnvRead] | None = None,
    bounds: Mapping[str, frozenset[str]] | None = None,
    module_state: StateUse | None = None,
) -> SearchResult:
    """Search within ``budget`` seconds; ``first`` replaces the planned round 0 (for tests).

    ``seeded`` are calls found in the project's own tests: they run first (constructors
    among the instance builders), ahead of the planned calls. ``changers`` (class name →
    its methods that change state, ``sequences.state_changers``): once a class's
    state-changing calls are seen returning, its methods are called after a few of
    them on the same instance (``plan_sequences``), ahead of the next round; the class
    is planned again whenever more of them work (a step that returned only after
    another becomes a chain of steps), with twice the prefixes while more than half
    the budget is left. ``module_state`` (``module_sequences.state_uses``): the module's
    functions that change its own state are steps so too, before each of its functions
    reading what they change (``plan_module_sequences``). An instance of the module's class returned by a call
    (``protocols.returned_instances``) gets its class's methods and properties.
    ``environ`` (``environ.env_reads``): a kept call that ran a function reading an
    environment variable runs again with it set to each of its values, and unset.
    ``bounds`` (``bounds.loop_bounds``): a call that timed out runs again with each
    parameter bounding its loops set small, ahead of the next round.
    """
    deadline = clock() + budget
    funcs = {f.qualname: f for f in info.callables()}
    classes = {cls.name for cls in info.classes}
    seen: list[CallResult] = []
    covered: frozenset[Arc] = frozenset()
    tried: set[Call] = set()
    rounds = 0
    widening = Widening()
    sequenced: dict[str, Known] = {}  # class → the steps its sequences were planned from
    guard = Guard()
    timings: list[tuple[int, float]] = []  # each run's calls (in one process) and seconds
    kept_count = 0  # calls reaching something new, all unconfirmed until the end

    def result(stopped: str) -> SearchResult:
        # the rounds ran each call once: confirm what is kept, with the second seed
        cover, reached, everything = confirmed_cover(
            seen,
            lambda todo: confirm_calls(
                project,
                module,
                todo,
                python=python,
                sandbox=sandbox,
                timeout=max(deadline - clock(), 5.0),
            ),
        )
        notes = tuple(guard.notes)
        return SearchResult(cover, reached, rounds, len(tried), stopped, everything, notes)

    working: dict[str, list[Call]] = {}
    builders = guard(
        "planning constructor calls", partial(constructor_calls, info, mined), list[Call]()
    )
    builders = builders if first is None else []
    seeded_classes = {c.target for c in seeded if c.init_args is None and c.target in classes}
    builders = list(dict.fromkeys([*(c for c in seeded if c.target in seeded_classes), *builders]))
    if builders:  # which instances can be built: methods are then called on those
        began = clock()
        built = run_calls(
            project,
            module,
            builders,
            python=python,
            sandbox=sandbox,
            timeout=max((deadline - clock()) / 4, 1.0),
        )
        timings.append((calls_per_process(len(builders), confirm=True), clock() - began))
        tried.update(builders)
        seen += built
        covered = keep_new_coverage(built, covered)[1]
        working = working_instances(built)
    built_objects = partial(object_sources, info, mined, working=working)
    objects = guard("building objects", built_objects, dict[str, list[str]]())
    options = {
        name: guard(
            f"inputs for {name}",
            partial(candidate_sources, f, mined, objects),
            dict[str, list[str]](),
        )
        for name, f in funcs.items()
    }
    _offer_given(options, given_by_parameter(seeded, funcs))
    variants = {  # what a method is called with, on whatever instance (see ``protocols``)
        m.qualname: guard(
            f"inputs for {m.qualname}",
            partial(method_variants, m, mined, objects),
            list[Call](),
        )
        for cls in info.classes
        for m in cls.methods
    }
    returned_done: set[str] = set()  # instances returned by calls, whose methods are planned
    functions_done: set[str] = set()  # functions returned by calls, whose calls are planned
    env_done: set[Call] = set()  # kept calls already run with each variable they read set
    planned = (
        guard("planning calls", partial(plan_calls, info, mined, working=working), list[Call]())
        if first is None
        else list(first)
    )
    pending = list(
        dict.fromkeys(c for c in [*seeded, *first_calls_ahead(planned)] if c not in tried)
    )

    while rounds < MAX_ROUNDS:
        # what confirming the calls kept so far will take comes out of the budget too
        left = deadline - clock() - confirm_reserve(timings, calls_per_process(kept_count))
        if left <= 0:
            return result("budget spent")
        if not pending:
            return result("nothing left to try")
        batch, pending = pending[:MAX_BATCH], pending[MAX_BATCH:]
        tried.update(batch)
        rounds += 1
        # once each, unconfirmed (``result`` confirms the calls kept); each round gets at
        # most half of what is left
        began = clock()
        results = run_calls(
            project,
            module,
            batch,
            python=python,
            sandbox=sandbox,
            timeout=max(left / 2, 1.0),
            confirm=False,
        )
        timings.append((calls_per_process(len(results)), clock() - began))
        seen += results
        new, covered = keep_new_coverage(results, covered)
        kept_count += len(new)
        # re-planned as more state-changing calls work; more prefixes while time is plenty
        per_method = PER_METHOD * 2 if deadline - clock() > budget / 2 else PER_METHOD
        plan = partial(plan_sequences, seen, changers or {}, (), per_method, sequenced, tried)
        sequences = guard("planning call sequences", plan, list[Call]())
        if module_state is not None and module_state.writes:  # ``create_entity`` first
            plan_module = partial(
                plan_module_sequences,
                seen,
                module_state,
                per_method,
                sequenced.get(MODULE),
                tried,
            )
            sequences += guard(
                "planning calls after the module's changers", plan_module, list[Call]()
            )
            steps_seen = partial(known, seen, frozenset(module_state.writes))
            sequenced[MODULE] = guard("module steps seen", steps_seen, frozenset())
        sequenced.update(
            guard(
                "steps seen",
                partial(known_steps, seen, changers or {}),
                dict[str, Known](),
            )
        )
        returned = guard(
            "finding returned instances",
            partial(returned_instances, seen, info.name, classes),
            dict[str, list[str]](),
        )
        made = guard(  # elementpath's tokens, made by its parsers in the project's tests
            "finding the instances other code made",
            partial(instances_made_elsewhere, seen, classes),
            dict[str, list[str]](),
        )
        for owner, sources in made.items():
            returned[owner] = list(dict.fromkeys([*returned.get(owner, ()), *sources]))
        on_returned = guard(
            "planning calls on returned instances",
            partial(calls_on_returned, info, returned, variants, returned_done),
            list[Call](),
        )
        returned_done.update(source for sources in returned.values() for source in sources)
        of_functions = guard(  # a decorator factory's decorator, a factory's product
            "planning calls of returned functions",
            partial(calls_of_returned_functions, seen, functions_done),
            list[Call](),
        )
        functions_done.update(c.via for c in of_functions if c.via is not None)
        after_failures = guard(  # a wrapper that counts failures: a circuit breaker, a retry
            "planning calls after repeated failures",
            partial(calls_after_failures, seen),
            list[Call](),
        )
        entering = guard(  # a context manager returned: entered (``with f() as result``)
            "planning calls entering what they return",
            partial(calls_entering, seen, tried),
            list[Call](),
        )
        handed = guard(  # a writer's bytes to its reader: ``read(write({'a': 1}))``
            "planning calls on returned values",
            partial(calls_on_returned_values, seen, funcs, working, tried),
            list[Call](),
        )
        on_returned = [*on_returned, *of_functions, *after_failures, *entering, *handed]
        varied: list[Call] = []
        if environ:
            kept_now = keep_new_coverage(seen)[0]
            plan_env = partial(env_variants, kept_now, environ, env_done)
            varied = guard("planning environment variables", plan_env, list[Call]())
            env_done.update(r.call for r in kept_now)
        stuck = guard(  # a call that never ended: the parameters bounding its loops, small
            "bounding loops", partial(bounded, results, funcs, bounds or {}), list[Call]()
        )
        sequences = [c for c in [*stuck, *sequences, *on_returned, *varied] if c not in tried]
        if new:  # the newest finds' neighbours first, then what earlier rounds left over
            near = guard(
                "neighbour inputs", partial(all_neighbours, new, funcs, options), list[Call]()
            )
            sequences += [c for c in near if c not in tried]
        pending = list(dict.fromkeys([*sequences, *pending]))  # sequences: a few
        if not pending:  # nothing follows from this round: wider
            # one round each: breadth, every function in turn
            pending = widening.next(seen, funcs, options, tried, guard)[:MAX_BATCH]
            if not pending:
                return result("coverage stopped rising")
    return result("round limit")


@dataclass
class Widening:
    """What the search tries when a round leads nowhere: the neighbours of every call run,
    ``MAX_WIDENINGS`` times at most; then, once, the kept calls with values of other
    types than the hints say; then nothing."""

    done: int = 0
    off_hint_done: bool = False

    def next(
        self,
        seen: Sequence[CallResult],
        funcs: Mapping[str, CallableInfo],
        options: Mapping[str, Mapping[str, Sequence[str]]],
        tried: Collection[Call],
        guard: Guard,
    ) -> list[Call]:
        found: list[Call] = []
        if self.done < MAX_WIDENINGS:
            found = guard("widening", partial(widen, seen, funcs, options), list[Call]())
            found = [c for c in found if c not in tried]
        if not found and not self.off_hint_done:  # last: other types than the hints say
            self.off_hint_done = True
            kept = keep_new_coverage(seen)[0]
            found = guard("off-hint inputs", partial(off_hint, kept, funcs), list[Call]())
            found = [c for c in found if c not in tried]
        self.done += bool(found)
        return found


def first_calls_ahead(
    calls: Sequence[Call], first: int = FIRST_CALLS, batch: int = MAX_BATCH
) -> list[Call]:
    """``calls`` with each callable's ``first`` calls ahead of the rest, which keep their
    order, when they are more than a round runs (``batch``); else as they are.
    Planned class by class, junitparser's 1027 calls reached ``TestSuite.__add__`` (the
    910th) in no round of a 15-second search. openskill's 157 fit in one round, and
    their order decides which of its ``rate`` calls are kept and varied first: taken
    apart, its branches fell from 74 to 50%."""
    if len(calls) <= batch:
        return list(calls)
    seen: dict[str, int] = {}
    ahead: list[Call] = []
    rest: list[Call] = []
    for call in calls:
        seen[call.target] = seen.get(call.target, 0) + 1
        (ahead if seen[call.target] <= first else rest).append(call)
    return [*ahead, *rest]


def confirm_reserve(timings: Sequence[tuple[int, float]], calls: int) -> float:
    """Seconds to keep for confirming the kept calls when the search ends, ``calls`` of
    them in one runner process, from the runs so far (calls in one process, seconds).

    A run costs a start (the process, the module's import) and a time per call: the
    least-squares line through the runs, its start no more than the quickest run took.
    Where no line rises (one run, runs of one size, noise), twice the largest run's
    time per call, start included, and no more than that run took for as many calls or
    fewer. Without a reserve, toolz's search ended 1.4 s past its share of the budget,
    confirming 48 calls; with the largest run's whole time for one, svg.path's search
    stopped after one round of four.
    """
    if not calls or not timings:
        return 0.0
    sizes = [float(n) for n, _ in timings]
    seconds = [t for _, t in timings]
    mean_n, mean_t = sum(sizes) / len(sizes), sum(seconds) / len(seconds)
    spread = sum((n - mean_n) ** 2 for n in sizes)
    if spread:
        per_call = sum((n - mean_n) * (t - mean_t) for n, t in timings) / spread
        if per_call > 0:
            start = min(max(mean_t - per_call * mean_n, 0.0), min(seconds))
            return start + per_call * calls
    most, took = max(timings)
    if not most:
        return took
    return took * max(min(2 * calls / most, 1.0), calls / most)


def confirmed_cover(
    seen: Sequence[CallResult],
    confirm: Callable[[list[CallResult]], list[CallResult]],
) -> tuple[tuple[CallResult, ...], frozenset[Arc], tuple[CallResult, ...]]:
    """The calls kept from ``seen`` (in order, each reaching new arcs), every one confirmed.

    ``confirm`` runs the second seed on unconfirmed results. A kept call that
    turns out not to be deterministic leaves its arcs to the later calls that
    reach them, which are then confirmed in turn: after the first run, every
    unconfirmed call reaching an arc of one that varied (up to ``MAX_HEIRS``) is
    confirmed with the kept ones, so that a table of random calls (``random(n)``
    for a hundred ``n``) takes a few runs, not one each. Returns the kept calls, the
    arcs they reach, and ``seen`` with the confirmed results in place.
    """
    everything = list(seen)
    orphaned: frozenset[Arc] = frozenset()  # arcs of the calls that turned out to vary
    while True:
        kept, covered = keep_new_coverage(everything)
        todo = [r for r in kept if not r.confirmed]
        if not todo:
            return tuple(kept), covered, tuple(everything)
        if orphaned:  # the calls that may inherit them, confirmed at once, not one a run
            asked = {r.call for r in todo}
            heirs = [
                r
                for r in everything
                if not r.confirmed
                and r.deterministic
                and r.call not in asked
                and not r.arcs.isdisjoint(orphaned)
            ]
            todo += heirs[:MAX_HEIRS]
        answered = {r.call: r for r in confirm(todo) if r.confirmed}
        # a call the confirming run did not answer for cannot be kept
        done = {
            r.call: answered.get(r.call, replace(r, deterministic=False, confirmed=True))
            for r in todo
        }
        orphaned = orphaned.union(*(r.arcs for r in done.values() if not r.deterministic))
        everything = [done.get(r.call, r) for r in everything]


def widen(
    results: Sequence[CallResult],
    funcs: Mapping[str, CallableInfo],
    options: Mapping[str, Mapping[str, Sequence[str]]],
) -> list[Call]:
    """The neighbours of every call run, kept or not, one target at a time in turn (so a
    function with many neighbours does not crowd out the others within a round)."""
    by_target: dict[str, list[Call]] = {}
    for call in all_neighbours(results, funcs, options):
        by_target.setdefault(call.target, []).append(call)
    turns = itertools.zip_longest(*by_target.values())
    return [call for turn in turns for call in turn if call is not None]


def off_hint(kept: Sequence[CallResult], funcs: Mapping[str, CallableInfo]) -> list[Call]:
    """The kept calls with one argument replaced by a plain value of another type
    (``OFF_HINT``), one target at a time in turn: a hint inferred from use is a guess, and
    a duck-typed branch (``hasattr(doc, "__getitem__")``) wants what no hint names."""
    options = {name: {p.name: OFF_HINT for p in f.parameters} for name, f in funcs.items()}
    return widen(kept, funcs, options)


def all_neighbours(
    results: Iterable[CallResult],
    funcs: Mapping[str, CallableInfo],
    options: Mapping[str, Mapping[str, Sequence[str]]],
) -> list[Call]:
    """The neighbours of every result's call, once each, and the same method call on
    instances built with one constructor argument changed."""
    found: list[Call] = []
    for result in results:
        func = funcs.get(result.call.target)
        if func is not None:
            found += neighbours(result.call, func, options.get(func.qualname))
        owner = result.call.target.split(".")[0]
        if result.call.init_args is not None and owner in funcs:
            found += instance_neighbours(result.call, funcs[owner], options.get(owner))
    return list(dict.fromkeys(found))


def instance_neighbours(
    call: Call, ctor: CallableInfo, options: Mapping[str, Sequence[str]] | None = None
) -> list[Call]:
    """A method call on instances built with one constructor argument changed."""
    init = Call(ctor.qualname, call.init_args or (), call.init_kwargs)
    others = neighbours(init, ctor, options)  # one argument changed, or one more given
    return [replace(call, init_args=o.args, init_kwargs=o.kwargs) for o in others]
