"""Call sequences on one instance (pure): which methods change state, which sequences to run.

A stateful class (a cache, a container, a builder) is tested one call deep
when every method runs on a fresh instance: a ``get`` after a ``put``, or the
eviction after a third insert, is never reached. ``state_changers`` finds,
statically, the methods that change their instance; ``plan_sequences`` gives
each instance method a few calls with a short prefix of those methods run on
the same instance first (``cache.put("a", 1)`` … ``cache.get("a")``), with
arguments taken from the calls that were seen to return on their own, and from the
chains of steps seen working (``add_row`` after ``header``), planned again as more
of them work.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from tddforge.builtin.explore import Call, CallResult, Step
from tddforge.builtin.values import literal_value
from tddforge.target.probe import IN_PLACE, OPERATORS, STATEMENTS

#: Methods of the builtin containers (and ``deque``) that change the receiver.
MUTATING = frozenset(
    {
        "add",
        "append",
        "appendleft",
        "clear",
        "difference_update",
        "discard",
        "extend",
        "extendleft",
        "insert",
        "intersection_update",
        "pop",
        "popitem",
        "popleft",
        "remove",
        "reverse",
        "rotate",
        "setdefault",
        "sort",
        "symmetric_difference_update",
        "update",
        "__setitem__",
        "__delitem__",
    }
)
#: Special methods that store into their instance whatever their body does.
STORES = frozenset({"__setitem__", "__delitem__", "__setattr__", "__delattr__"})
MAX_PREFIX = 3  # steps before the call under test
PER_METHOD = 4  # prefixes tried per method
CALLS_PER_METHOD = 8  # calls planned per method, over its prefixes
STEPS_PER_METHOD = 3  # distinct argument lists of one state-changing method used as steps
RAISING_STEPS = 1  # ... of which raise
REPEATED = 6  # a failing step repeated: past the thresholds failures are counted against
FAILURE_READERS = 3  # methods called after a repeated failure (properties first)
MAX_CHAINS = 4  # chains of steps seen working, per class, tried first as prefixes
#: Offsets given, step by step, to the value every step of a kind shares: a shuffled
#: rise (a heap's pop then moves its last entry down past a smaller right child), then
#: a fall (each push moves up past its parent).
ORDERS = ((0, 2, 1, 3), (3, 2, 1, 0))
#: The keys a filled instance receives, as offsets from a step's first argument: rising,
#: falling, in the order that builds a balanced search tree (each key splits what is
#: left), and zigzag (each key between the last two: a self-balancing tree's double
#: rotations). A tree's rotations, a heap's sift-downs and a full cache's evictions need
#: more entries than a few steps hold.
FILLS = (
    tuple(range(8)),
    tuple(range(7, -1, -1)),
    (5, 2, 8, 1, 4, 7, 9, 0, 3, 6),
    (0, 9, 1, 8, 2, 7, 3, 6, 4, 5),
)
#: The keys then taken out again, in turn, by a method that removes one (those present).
DRAIN = (3, 0, 5, 7, 1, 6)


def state_changers(source: str) -> dict[str, frozenset[str]]:
    """Class name → the methods that change their instance (module-level aliases of a
    class, ``BList = BarrelList``, included); empty when ``source`` does not parse.

    A method changes state when it stores into ``self`` (``self.x = …``,
    ``self.x[k] = …``, ``self[k] = …``, ``del self.x[k]``, ``setattr(self, …)``),
    calls a mutating container method on what ``self`` holds (``self.items.append``,
    also through a local name bound to it), is ``__setitem__``, ``__delitem__``,
    ``__setattr__`` or ``__delattr__``, is inherited from a class of the module that
    changes it, or calls a method of ``self`` that does (one of its own, or an
    inherited container method such as ``self.pop()``).
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, frozenset[str]] = {}
    for node in ast.walk(tree):  # a base before its subclasses, as Python needs them
        if isinstance(node, ast.ClassDef):
            bases = [b.id for b in node.bases if isinstance(b, ast.Name) and b.id in found]
            inherited = frozenset().union(*(found[b] for b in bases))
            found[node.name] = _class_changers(node, inherited)
    for node in tree.body:  # ``BList = BarrelList``
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Name)
            and node.value.id in found
        ):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, found[node.value.id])
    return found


def _class_changers(cls: ast.ClassDef, inherited: frozenset[str] = frozenset()) -> frozenset[str]:
    """The methods of ``cls`` that change their instance: the direct ones, those it
    ``inherited`` from a base of the module that it does not override, then every method
    calling one, until nothing more is added."""
    methods = {
        node.name: node
        for node in cls.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_instance_method(node)
    }
    changers = {name for name, node in methods.items() if _changes_directly(node, methods)}
    changers |= inherited - methods.keys()
    changers |= STORES & methods.keys()
    calls = {name: _self_calls(node) for name, node in methods.items()}
    while True:
        more = {name for name in methods if name not in changers and calls[name] & changers}
        if not more:
            return frozenset(changers)
        changers |= more


def _is_instance_method(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    decorators = {d.id for d in node.decorator_list if isinstance(d, ast.Name)}
    return bool(node.args.args) and not decorators & {"staticmethod", "classmethod"}


def _self_name(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    return node.args.args[0].arg


def _changes_directly(
    node: ast.FunctionDef | ast.AsyncFunctionDef, methods: Collection[str]
) -> bool:
    """A store into ``self``, a mutating call on what it holds, or an inherited mutating
    method of ``self`` called (``self.pop()`` in a ``list`` subclass)."""
    me = _self_name(node)
    roots = {me} | _aliases(node, me)
    for child in ast.walk(node):
        if isinstance(child, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = (
                child.targets if isinstance(child, (ast.Assign, ast.Delete)) else [child.target]
            )
            if any(_stores_into(t, roots) for t in targets):
                return True
        elif isinstance(child, ast.Call):
            func = child.func
            if isinstance(func, ast.Name) and func.id in ("setattr", "delattr"):
                first = child.args[0] if child.args else None
                if isinstance(first, ast.Name) and first.id == me:
                    return True
            if not isinstance(func, ast.Attribute) or func.attr not in MUTATING:
                continue
            inner = func.value
            if isinstance(inner, ast.Name) and inner.id == me:
                if func.attr not in methods:  # an own method decides for itself
                    return True
            elif _root(inner) in roots:
                return True
    return False


def _stores_into(target: ast.expr, roots: Collection[str]) -> bool:
    """An assignment target that changes what ``roots`` name (``self.x``, ``items[k]``)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_stores_into(t, roots) for t in target.elts)
    if isinstance(target, ast.Starred):
        return _stores_into(target.value, roots)
    return isinstance(target, (ast.Attribute, ast.Subscript)) and _root(target) in roots


def _aliases(node: ast.FunctionDef | ast.AsyncFunctionDef, me: str) -> set[str]:
    """Local names bound to what ``self`` holds: ``items = self.items``, ``for row in
    self.rows``."""
    found: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Assign) and _root(child.value) == me:
            found |= {t.id for t in child.targets if isinstance(t, ast.Name)}
        elif (
            isinstance(child, ast.For)
            and _root(child.iter) == me
            and isinstance(child.target, ast.Name)
        ):
            found.add(child.target.id)
    found.discard(me)
    return found


def _root(node: ast.expr) -> str | None:
    """The name an attribute or subscript chain starts from (``self`` in ``self.a[0].b``)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _self_calls(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The methods of ``self`` a method calls (``self._evict()``; ``with self:`` calls
    its ``__enter__`` and ``__exit__``, ``self(...)`` its ``__call__``)."""
    me = _self_name(node)
    found = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Call) and _is_name(child.func, me):
            found.add("__call__")
        elif (
            isinstance(child, ast.Call)
            and isinstance(child.func, ast.Attribute)
            and _is_name(child.func.value, me)
        ):
            found.add(child.func.attr)
        elif isinstance(child, ast.withitem) and _is_name(child.context_expr, me):
            found |= {"__enter__", "__exit__"}
    return found


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def can_prefix(method: str) -> bool:
    """Whether a method may run as a step: a plain method, or a special method written as
    a statement (``box[k] = v``, ``del box[k]``); ``box[k]`` alone would be a useless
    expression in a test. Not an in-place operator: ``suite += other`` may bind the name
    to another object, which the steps after it would have to follow."""
    return (method not in OPERATORS or method in STATEMENTS) and method not in IN_PLACE


def plan_sequences(
    seen: Iterable[CallResult],
    changers: Mapping[str, Collection[str]],
    done: Collection[str] = (),
    per_method: int = PER_METHOD,
    planned: Mapping[str, Collection[Step | tuple[Step, ...]]] | None = None,
    tried: Collection[Call] = (),
) -> list[Call]:
    """Calls of each instance method with a prefix of state-changing steps, for each class
    of ``changers`` not in ``done`` whose steps were ``seen`` to return.

    Per class, the instance is the one most methods were seen called on; the
    steps are the state-changing calls seen returning on it (up to
    ``STEPS_PER_METHOD`` argument lists each), and each method's call is the first
    seen (and the first seen returning, when that one raised). A method gets at
    most ``per_method`` prefixes (see ``prefixes_for``) and ``CALLS_PER_METHOD``
    calls not in ``tried``: after each prefix, its call, the call given the last
    step's first argument (``get("a")`` after ``put("a", 1)``), and its returning call;
    besides, two calls after each of ``varied_prefixes`` (the steps' shared values made
    to differ); last, the calls on an instance filled with many keys, and on one drained
    of some again (``filled_calls``). ``planned`` (class → the steps its sequences were
    last planned from): a class is planned again only once more of its steps have been
    seen returning, as calls that failed in the first rounds start to work in later ones.
    """
    calls, steps, chains, failing = _observed(seen, changers, done)
    found: list[Call] = []
    for owner in dict.fromkeys([*steps, *failing]):
        kinds, worked, fails = steps.get(owner, {}), chains.get(owner, []), failing.get(owner, {})
        if planned is not None and set(planned.get(owner, ())) == _known(kinds, worked, fails):
            continue  # nothing new to start from
        varied = [prefix for own in kinds.values() for prefix in varied_prefixes(own)]
        repeated = repeated_failures(fails)
        for index, (method, targets) in enumerate(calls[owner].items()):
            call = Step(method, targets[0].args, targets[0].kwargs)
            ordered = [*worked, *prefixes_for(method, kinds, index, call)]  # what worked first
            prefixes = list(dict.fromkeys(ordered))[:per_method]
            sequences = [c for prefix in prefixes for c in _with_prefix(targets, prefix)]
            fresh = [c for c in dict.fromkeys(sequences) if c not in tried]
            found += fresh[:CALLS_PER_METHOD]
            for prefix in varied:  # besides: its first two calls after each
                found += [c for c in _with_prefix(targets, prefix) if c not in tried][:2]
        found += [c for c in filled_calls(kinds, calls[owner], changers[owner]) if c not in tried]
        for prefix in repeated:  # a few reads of the state a repeated failure leaves
            readers = _readers(calls[owner])[:FAILURE_READERS]
            after = (replace(targets[0], before=prefix) for targets in readers)
            found += [call for call in after if call not in tried]
    return list(dict.fromkeys(found))


Known = frozenset[Step | tuple[Step, ...]]


def known_steps(
    seen: Iterable[CallResult], changers: Mapping[str, Collection[str]]
) -> dict[str, Known]:
    """Class → the steps and chains ``plan_sequences`` would start from now (its
    ``planned``)."""
    _, steps, chains, failing = _observed(seen, changers, ())
    return {
        owner: _known(steps.get(owner, {}), chains.get(owner, []), failing.get(owner, {}))
        for owner in dict.fromkeys([*steps, *failing])
    }


def _known(
    kinds: Mapping[str, Sequence[Step]],
    chains: Sequence[tuple[Step, ...]],
    failing: Mapping[str, Sequence[Step]],
) -> Known:
    steps = [step for found in [*kinds.values(), *failing.values()] for step in found]
    return frozenset([*steps, *chains])


Observed = tuple[
    dict[str, dict[str, list[Call]]],
    dict[str, dict[str, list[Step]]],
    dict[str, list[tuple[Step, ...]]],
    dict[str, dict[str, list[Step]]],
]


def _observed(
    seen: Iterable[CallResult], changers: Mapping[str, Collection[str]], done: Collection[str]
) -> Observed:
    """Per class (on the instance whose methods were called most, the first seen among
    equals): each method's first call (and its first returning call, when the first
    raised), the steps each state-changing method offers, and the chains of steps seen
    working (a state-changing call that returned after steps: ``add_row`` once ``header``
    ran)."""
    calls: dict[str, dict[str, list[CallResult]]] = {}
    steps: dict[str, dict[str, list[Step]]] = {}
    failing: dict[str, dict[str, list[Step]]] = {}
    chains: dict[str, list[tuple[Step, ...]]] = {}
    seen = list(seen)
    bases = _bases(seen, changers, done)
    for result in seen:
        call = result.call
        owner, _, method = call.target.partition(".")
        if owner not in bases or (call.init_args, call.init_kwargs) != bases[owner]:
            continue
        methods = calls.setdefault(owner, {})
        if call.before:
            chain = (*call.before, as_step(result))
            found = chains.setdefault(owner, [])
            usable = (
                _returned(result)
                and _usable_step(result, changers[owner])
                and len(chain) <= MAX_PREFIX
            )
            if usable and chain not in found and len(found) < MAX_CHAINS:
                found.append(chain)
            continue
        targets = methods.setdefault(method, [result])
        if len(targets) == 1 and _returned(result) and not _returned(targets[0]):
            targets.append(result)  # raising alone, it may return once the instance holds data
        if _usable_step(result, changers[owner]):
            step = as_step(result)
            # a failure is kept apart: prefixes of its own, after the others
            kinds = (failing if step.raises else steps).setdefault(owner, {})
            own = kinds.setdefault(method, [])
            if step not in own and len(own) < (RAISING_STEPS if step.raises else STEPS_PER_METHOD):
                own.append(step)
    found_calls = {
        owner: {method: [r.call for r in rs] for method, rs in methods.items()}
        for owner, methods in calls.items()
    }
    return found_calls, steps, chains, failing


def _bases(
    seen: Sequence[CallResult], changers: Mapping[str, Collection[str]], done: Collection[str]
) -> dict[str, tuple[tuple[str, ...] | None, tuple[tuple[str, str], ...]]]:
    """Class → the constructor arguments of the instance whose methods were called most
    (the search's own, usually; one a test of the project happened to build, with a
    method or two, must not hide it), the first seen among equals."""
    methods: dict[str, dict[tuple[Any, Any], set[str]]] = {}
    for result in seen:
        call = result.call
        owner, _, method = call.target.partition(".")
        if call.init_args is None or owner in done or owner not in changers:
            continue
        methods.setdefault(owner, {}).setdefault((call.init_args, call.init_kwargs), set()).add(
            method
        )
    return {
        owner: max(instances, key=lambda init: len(instances[init]))
        for owner, instances in methods.items()
    }


def _returned(result: CallResult) -> bool:
    return result.outcome.kind == "return"


def _usable_step(result: CallResult, changers: Collection[str]) -> bool:
    """A state-changing call that returned, or raised an exception its test can expect
    (a circuit breaker counting a failure, a parser recovering from an error)."""
    method = result.call.target.partition(".")[2]
    outcome = result.outcome
    return (
        method in changers
        and can_prefix(method)
        and not result.call.consume
        and not result.call.enter  # a step is a bare call: what entering did, it would not
        and result.deterministic
        and (
            _returned(result)
            or (outcome.kind == "raise" and bool(outcome.type) and not outcome.denied)
        )
    )


def as_step(result: CallResult) -> Step:
    """``result``'s call as a step, expecting the exception it raised."""
    call, outcome = result.call, result.outcome
    raises = (outcome.type, outcome.type_module) if outcome.kind == "raise" else ()
    return Step(call.target.partition(".")[2], call.args, call.kwargs, raises)


def prefixes_for(
    method: str,
    kinds: Mapping[str, Sequence[Step]],
    offset: int = 0,
    call: Step | None = None,
) -> list[tuple[Step, ...]]:
    """The prefixes to try before ``method``'s ``call``, best first: two of its own steps
    other than the call (which is then the third of its kind: a full cache evicts), then
    in turn one step of each kind, three steps of one kind, and two kinds in a row;
    ``offset`` rotates the turns, so that the methods of a class do not all try the
    same few."""
    others = [step for step in kinds.get(method, ()) if step != call]
    own = [tuple(itertools.islice(itertools.cycle(others), 2))] if others else []
    firsts = [found[0] for found in kinds.values() if found]
    singles = [(step,) for step in firsts]
    triples = [
        tuple(itertools.islice(itertools.cycle(found), MAX_PREFIX))
        for found in kinds.values()
        if found
    ]
    pairs = list(itertools.permutations(firsts, 2))
    groups = [_rotated(group, offset) for group in (singles, triples, pairs)]
    turns = itertools.zip_longest(*groups)
    ordered = own + [prefix for turn in turns for prefix in turn if prefix]
    return list(dict.fromkeys(ordered))


def _readers(calls: Mapping[str, list[Call]]) -> list[list[Call]]:
    """Each method's calls, the properties' first (a read of the state: ``breaker.state``)."""
    return sorted(calls.values(), key=lambda found: not found[0].attribute)


def repeated_failures(kinds: Mapping[str, Sequence[Step]]) -> list[tuple[Step, ...]]:
    """Each step that raises, ``REPEATED`` times in a row: a circuit breaker opens, a
    retry gives up, a rate limiter refuses after a threshold of failures (5 by default
    in circuitbreaker and pybreaker, 3 in many a retry), which a short prefix never
    reaches."""
    return [(step,) * REPEATED for steps in kinds.values() for step in steps if step.raises]


def varied_prefixes(steps: Sequence[Step]) -> list[tuple[Step, ...]]:
    """Prefixes of ``len(ORDERS[0])`` steps of one kind in which the values all of
    ``steps`` share (a number or a string, in the same place) differ step by step, in
    each of ``ORDERS``: ``push("a", 1)``, ``push("b", 3)``, ``push("a", 2)``, ... .

    A heap, a ranking or a running maximum fed the same priority at every step never
    reorders anything; the steps seen returning often share one (the first value that
    worked). Values that already differ are kept, the steps taken in turn."""
    shared = _shared_values(steps)
    if not shared:
        return []
    prefixes = []
    for order in ORDERS:
        prefix = []
        for index, offset in enumerate(order):
            step = steps[index % len(steps)]
            args = tuple(
                _shifted(arg, shared[place], offset) if place in shared else arg
                for place, arg in enumerate(step.args)
            )
            kwargs = tuple(
                (name, _shifted(value, shared[name], offset) if name in shared else value)
                for name, value in step.kwargs
            )
            prefix.append(step._replace(args=args, kwargs=kwargs))
        prefixes.append(tuple(prefix))
    return prefixes


def filled_prefixes(kinds: Mapping[str, Sequence[Step]]) -> list[tuple[Step, ...]]:
    """The instance filled by the first step (of any kind) whose first argument is a number
    or a string, once in each of ``FILLS``: that argument moved up by each offset in turn
    (``put("k", 1)``, ``put("k1", 1)``, …), the rest as the step had them."""
    base = _fill_base(kinds)
    return [] if base is None else [_filled(*base, order) for order in FILLS]


def _fill_base(kinds: Mapping[str, Sequence[Step]]) -> tuple[Step, int | float | str] | None:
    """The first step whose first argument is a number or a string, with that value."""
    for step in (step for steps in kinds.values() for step in steps if step.args):
        value = _shiftable(step.args[0])
        if value is not None:
            return step, value
    return None


def _filled(step: Step, value: int | float | str, offsets: Sequence[int]) -> tuple[Step, ...]:
    """``step`` once per offset, its first argument (writing ``value``) moved up by it."""
    rest = step.args[1:]
    return tuple(step._replace(args=(_shifted(step.args[0], value, o), *rest)) for o in offsets)


def filled_calls(
    kinds: Mapping[str, Sequence[Step]],
    calls: Mapping[str, Sequence[Call]],
    changers: Collection[str],
) -> list[Call]:
    """Each method's call on an instance filled in each of ``FILLS`` (``filled_prefixes``),
    and after each method that removes by key (a state-changing method whose call takes
    an argument) has taken out the filled keys of ``DRAIN`` but the last: each method's
    call again, and the remover given that last key.

    The removals reach what few entries never do: a search tree's deletion fix-ups, a
    heap refilled from its end, a cache's entries moving up as others go."""
    base = _fill_base(kinds)
    if base is None:
        return []
    step = base[0]
    drain = [s.args[0] for s in _filled(*base, DRAIN)]
    found: list[Call] = []
    for prefix in (_filled(*base, order) for order in FILLS):
        present = {s.args[0] for s in prefix}
        keys = [k for k in drain if k in present]
        for targets in calls.values():
            found += list(_with_prefix(targets, prefix))[:2]
        for remover, targets in calls.items():
            call = targets[0]
            if remover == step.method or remover not in changers or not call.args:
                continue
            if not can_prefix(remover) or len(keys) < 2:
                continue
            rest = call.args[1:]
            drained = (*prefix, *(Step(remover, (k, *rest), call.kwargs) for k in keys[:-1]))
            found += [replace(other[0], before=drained) for other in calls.values()]
            found.append(replace(call, args=(keys[-1], *rest), before=drained))
    return list(dict.fromkeys(found))


def _shared_values(steps: Sequence[Step]) -> dict[int | str, int | float | str]:
    """The argument places (positions and keywords) holding one number or string in
    every step, with that value."""
    if not steps:
        return {}
    first = steps[0]
    places: list[tuple[int | str, str]] = [*enumerate(first.args), *first.kwargs]
    shared: dict[int | str, int | float | str] = {}
    for place, source in places:
        value = _shiftable(source)
        if value is not None and all(_at(step, place) == source for step in steps[1:]):
            shared[place] = value
    return shared


def _shiftable(source: str) -> int | float | str | None:
    """The number or string ``source`` writes, which ``_shifted`` can move; None for
    anything else (a bool is not shifted)."""
    value = (literal_value(source) or (None,))[0]
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    return value


def _at(step: Step, place: int | str) -> str | None:
    if isinstance(place, int):
        return step.args[place] if place < len(step.args) else None
    return dict(step.kwargs).get(place)


def _shifted(source: str, value: int | float | str, offset: int) -> str:
    """``source`` (writing ``value``) moved ``offset`` up: a number plus it, a string
    suffixed; at 0, ``source`` as it was written."""
    if offset == 0:
        return source
    return repr(value + str(offset)) if isinstance(value, str) else repr(value + offset)


def _rotated(items: Sequence[tuple[Step, ...]], offset: int) -> list[tuple[Step, ...]]:
    if not items:
        return []
    start = offset % len(items)
    return [*items[start:], *items[:start]]


def _with_prefix(targets: Sequence[Call], prefix: tuple[Step, ...]) -> Iterator[Call]:
    """The method's first call after ``prefix``, then given the last step's first argument
    as its own (the key a ``put`` stored, read back by ``get``), then its first call that
    returned (when the first raised)."""
    call = targets[0]
    yield replace(call, before=prefix)
    last = prefix[-1].args
    if call.args and last and last[0] != call.args[0]:
        yield replace(call, args=(last[0], *call.args[1:]), before=prefix)
    for other in targets[1:]:
        yield replace(other, before=prefix)
