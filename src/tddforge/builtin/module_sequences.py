"""Call sequences on the module's own state (pure): which of its functions change it, and
which calls to run after them.

esper keeps its world in module globals: ``create_entity(1, "a")`` stores an entity and
its components, and ``component_for_entity(1, int)`` reads one back. Called one at a
time on a fresh module, every reader finds an empty world and raises, or returns
nothing: a third of its branches. :func:`state_uses` finds the functions that change
the module's state (they rebind its globals, change a container it keeps, or advance an
iterator it keeps, ``module_state``) and what each function reads of it, and
:func:`plan_module_sequences` calls each function of the module after a few calls seen
returning of the changers of what it reads, as ``sequences`` does on an instance. A
reader is also given, as its first argument, what the last step returned (the entity's
number), and a step that returned only after others becomes a chain of steps, tried
first.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from tddforge.builtin.explore import Call, CallResult, Step
from tddforge.builtin.module_state import (
    advanced_iterators,
    mutated_containers,
    rebound_globals,
)
from tddforge.builtin.sequences import (
    CALLS_PER_METHOD,
    MAX_CHAINS,
    MAX_PREFIX,
    STEPS_PER_METHOD,
    Known,
    prefixes_for,
)
from tddforge.builtin.values import literal_value

#: the name ``sequences`` plans are keyed by, for the module's own functions
MODULE = ""


@dataclass(frozen=True)
class StateUse:
    """The module's top-level functions that change its state, each with the names it
    changes (its globals, containers and iterators), and each function's names of that
    state it reads; both through the functions of the module it calls."""

    writes: Mapping[str, frozenset[str]] = field(default_factory=dict)
    reads: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def kinds_for(self, function: str) -> frozenset[str]:
        """The changers whose steps may matter to ``function``: those changing what it
        reads; all of them when it reads none of what they change."""
        read = self.reads.get(function, frozenset())
        feeding = frozenset(name for name, changed in self.writes.items() if changed & read)
        return feeding or frozenset(self.writes)


def state_uses(source: str) -> StateUse:
    """The module's ``StateUse``; empty when ``source`` does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return StateUse()
    functions = {
        node.name: node
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    direct: dict[int, set[str]] = {}
    found = (rebound_globals(source), mutated_containers(source), advanced_iterators(source)[0])
    for spans in found:
        for (first, _), names in spans.items():
            direct.setdefault(first, set()).update(name.split(".")[0] for name in names)
    state = {
        t.id
        for node in tree.body
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(t, ast.Name)
    }
    writes = {name: set(direct.get(node.lineno, ())) for name, node in functions.items()}
    reads = {
        name: {
            inner.id
            for inner in ast.walk(node)
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load) and inner.id in state
        }
        for name, node in functions.items()
    }
    calls = {
        name: {
            inner.func.id
            for inner in ast.walk(node)
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
        }
        & functions.keys()
        for name, node in functions.items()
    }
    for found_names in (writes, reads):  # what the functions it calls use, it uses
        changed = True
        while changed:
            changed = False
            for name, called in calls.items():
                more = set().union(*(found_names[c] for c in called)) - found_names[name]
                if more:
                    found_names[name] |= more
                    changed = True
    return StateUse(
        {name: frozenset(names) for name, names in writes.items() if names},
        {name: frozenset(names) for name, names in reads.items()},
    )


def _own(call: Call) -> bool:
    """A call of one of the module's functions, made alone (no instance, no sequence)."""
    plain = not (call.consume or call.enter or call.attribute or call.env or call.workdir)
    return plain and not call.on_instance and "." not in call.target


def _step(result: CallResult) -> Step | None:
    """A changer's call as a step: one that returned, the same in both runs."""
    call = result.call
    if result.outcome.kind != "return" or not result.deterministic:
        return None
    return Step(call.target, call.args, call.kwargs)


def _given(result: CallResult) -> str | None:
    """What a step returned, as a literal source a later call can take (an entity's
    number, a name); None when it is no such value."""
    outcome = result.outcome
    if outcome.kind != "return" or not outcome.literal or outcome.repr in ("None", "True", "False"):
        return None
    return outcome.repr if len(outcome.repr) <= 80 else None


def observed(
    seen: Iterable[CallResult], changers: Collection[str]
) -> tuple[dict[str, list[Call]], dict[str, list[Step]], list[tuple[Step, ...]], dict[Step, str]]:
    """Each function's first call (and its first returning one, when the first raised),
    the steps each changer offers, the chains seen working, and what each step returned."""
    calls: dict[str, list[Call]] = {}
    kinds: dict[str, list[Step]] = {}
    chains: list[tuple[Step, ...]] = []
    given: dict[Step, str] = {}
    for result in seen:
        call = result.call
        if not _own(call):
            continue
        step = _step(result) if call.target in changers else None
        if call.before:  # a changer that returned after steps: a chain of them
            chain = (*call.before, step) if step is not None else ()
            if step is None or len(chain) > MAX_PREFIX or chain in chains:
                continue
            if len(chains) < MAX_CHAINS:
                chains.append(chain)
                value = _given(result)
                if value is not None:
                    given.setdefault(step, value)
            continue
        targets = calls.setdefault(call.target, [call])
        if len(targets) == 1 and result.outcome.kind == "return" and targets[0] != call:
            targets.append(call)  # it may take its first call's arguments once state exists
        if step is not None:
            own = kinds.setdefault(call.target, [])
            if step not in own:
                own.append(step)
                value = _given(result)
                if value is not None:
                    given.setdefault(step, value)
    # the steps that store most first: ``create_entity(1, False)`` before ``create_entity()``
    richest = {name: sorted(found, key=_stored)[:STEPS_PER_METHOD] for name, found in kinds.items()}
    return calls, richest, chains, given


def _stored(step: Step) -> tuple[int, int]:
    """How much a step stores, most first: its values, then their distinct types."""
    values = [*step.args, *(v for _, v in step.kwargs)]
    return -len(values), -len({_type_name(v) for v in values})


def _type_name(source: str) -> str | None:
    """The builtin type of the literal ``source`` writes (``int`` for ``1``), or None."""
    boxed = literal_value(source)
    if boxed is None:
        return None
    name = type(boxed[0]).__name__
    return name if getattr(builtins, name, None) is type(boxed[0]) else None


def known(seen: Iterable[CallResult], changers: Collection[str]) -> Known:
    """The steps and chains a plan would start from now (``plan_module_sequences``'s
    ``planned``)."""
    _, kinds, chains, _ = observed(seen, changers)
    return _known(kinds, chains)


def _known(kinds: Mapping[str, Sequence[Step]], chains: Sequence[tuple[Step, ...]]) -> Known:
    return frozenset([*(s for found in kinds.values() for s in found), *chains])


def plan_module_sequences(
    seen: Iterable[CallResult],
    uses: StateUse,
    per_method: int,
    planned: Known | None = None,
    tried: Collection[Call] = (),
) -> list[Call]:
    """Calls of each function of the module after a prefix of steps of the changers of
    what it reads (``StateUse.kinds_for``; the chains seen working first, then
    ``sequences.prefixes_for``'s), ``per_method`` prefixes and ``CALLS_PER_METHOD``
    calls not in ``tried`` each; none when nothing changes the module's state, or when
    the steps are those of the last plan (``planned``)."""
    changers = frozenset(uses.writes)
    if not changers:
        return []
    seen = list(seen)
    calls, kinds, chains, given = observed(seen, changers)
    if not kinds and not chains:
        return []
    if planned is not None and planned == _known(kinds, chains):  # read once, above
        return []
    found: list[Call] = []
    for index, (name, targets) in enumerate(calls.items()):
        call = Step(name, targets[0].args, targets[0].kwargs)
        feeding = uses.kinds_for(name)
        own = {kind: steps for kind, steps in kinds.items() if kind in feeding}
        fed = [chain for chain in chains if chain[-1].method in feeding]
        ordered = [*fed, *prefixes_for(name, own, index, call)]
        prefixes = list(dict.fromkeys(ordered))[:per_method]
        sequences = [c for prefix in prefixes for c in _after(targets, prefix, given)]
        found += [c for c in dict.fromkeys(sequences) if c not in tried][:CALLS_PER_METHOD]
    return list(dict.fromkeys(found))


def _after(
    targets: Sequence[Call], prefix: tuple[Step, ...], given: Mapping[Step, str]
) -> list[Call]:
    """The function's first call after ``prefix``; then given, as its first argument,
    what the last step returned (``component_for_entity(1, int)`` after a
    ``create_entity`` that returned 1), then the last step's own first argument; then
    its first call that returned."""
    call = targets[0]
    found = [replace(call, before=prefix)]
    last = prefix[-1]
    firsts = [given.get(last), last.args[0] if last.args else None]
    for first in firsts:
        if call.args and first is not None and first != call.args[0]:
            found.append(replace(call, args=(first, *call.args[1:]), before=prefix))
    typed = _asking_stored_type(found[1] if len(found) > 1 else call, prefix)
    if typed is not None:
        found.append(typed)
    found += [replace(other, before=prefix) for other in targets[1:]]
    return found


def _asking_stored_type(call: Call, prefix: tuple[Step, ...]) -> Call | None:
    """``call`` asking, where it names a builtin type (``int``), for the type of the
    first value the steps stored that is of another (``str`` after
    ``create_entity("a")``): the components a query finds are those of its type."""
    stored = [_type_name(v) for step in prefix for v in (*step.args, *(v for _, v in step.kwargs))]
    kinds = [name for name in stored if name is not None]
    asked = [
        i
        for i, arg in enumerate(call.args)
        if getattr(builtins, arg, None) is not None and isinstance(getattr(builtins, arg), type)
    ]
    if not kinds or not asked:
        return None
    args = list(call.args)
    for index in asked:
        other = next((name for name in kinds if name != args[index]), None)
        if other is None:
            return None
        args[index] = other
    return replace(call, args=tuple(args))
