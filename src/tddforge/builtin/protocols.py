"""Instances as a test handles them (pure): compared with their kind, and taken from the
calls that return them.

A module's objects are not only built by their constructors: ``parse(text)``
returns entries whose ``__eq__``, ``__repr__`` and properties no test reaches when
every method runs on an instance its class built. ``returned_instances`` finds, in
the calls seen so far, the ones that returned an instance of the module's own
classes, as the source of that call (``parse('a=1')``); ``calls_on_returned``
plans each method and property of the class on such an instance (``entry =
parse('a=1')`` … ``entry.key``). ``with_instance_hints`` gives an unannotated
``other`` of a comparison its own class, so ``a == b`` is tried with two instances
and not only with literals. An instance returned by a call on another instance
(``where('a') == 1`` gives a query object) is followed the same way, a level per round.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from itertools import zip_longest

from tddforge.builtin.discover import CallableInfo, ModuleInfo
from tddforge.builtin.explore import Call, CallResult, Step
from tddforge.builtin.sequences import as_step
from tddforge.builtin.values import literal_value
from tddforge.builtin.writer import call_arguments, method_call
from tddforge.target.probe import CALL, IN_PLACE, ROUND_TRIPS, STATEMENTS

COMPARISONS = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"})
#: operators whose other operand is most often another instance of the class: two test
#: suites added (``suite + other`` merges them when they are equal), two sets joined
ARITHMETIC = frozenset(
    {
        "__add__",
        "__sub__",
        "__mul__",
        "__truediv__",
        "__floordiv__",
        "__mod__",
        "__and__",
        "__or__",
        "__xor__",
        "__matmul__",
        *IN_PLACE,
    }
)
PER_CLASS = 3  # returned instances used per class
PER_MAKER = 2  # returned functions called per callable that returns them
PER_ENTERED = 32  # calls entered per callable seen returning a context manager
#: the types of a returned function that can be called in its turn: a closure or lambda
#: (a decorator factory's decorator, a decorator's wrapper), or a partial
FUNCTION_TYPES = frozenset({("builtins", "function"), ("functools", "partial")})
#: what a returned function is called with: nothing, a function (a decorator's argument),
#: a number and a string (a factory's product, ``make_adder(1)(2)``)
RETURNED_FUNCTION_ARGS: tuple[tuple[str, ...], ...] = (
    (),
    ("lambda *args: args",),
    ("len",),
    ("1",),
    ("'a'",),
)
#: failures a returned function is given before it is called again: the call after them
#: is the third (a retry's usual limit) and the sixth (past a circuit breaker's 5); the
#: wrapper refuses the next failure once it trips, so a step past its threshold fails
FAILURES_BEFORE = (5, 2)
CALLS_PER_INSTANCE = 40  # calls planned on one returned instance
MAX_SOURCE = 120  # the longest expression an instance is taken from


def with_instance_hints(
    info: ModuleInfo, inferred: Mapping[str, Mapping[str, str]] | None = None
) -> ModuleInfo:
    """``info`` with the unannotated operand of each comparison method hinted as its own
    class (or None): ``Version('1') < Version('2')``, not only ``Version('1') < 0``; and of
    each arithmetic operator as its own class or anything (``suite + TestSuite('b')``
    before ``suite + 1``). ``inferred`` (``usage.usage_hints``): an arithmetic operand
    hinted from its use only is its own class or that (junitparser's ``for case in
    other`` made a suite's ``other`` a list, where another suite is iterable too)."""
    inferred = inferred or {}

    def fill(func: CallableInfo, key: str) -> CallableInfo:
        owner, _, method = key.partition(".")
        if len(func.parameters) != 1 or method not in COMPARISONS | ARITHMETIC:
            return func
        other = func.parameters[0]
        if method in COMPARISONS:
            if other.annotation is not None:
                return func
            hint = f"{owner} | None"
        else:
            used = inferred.get(key, {}).get(other.name)
            if other.annotation not in (None, used):
                return func
            hint = f"{owner} | {other.annotation or 'Any'}"
        hinted = other.model_copy(update={"annotation": hint})
        return func.model_copy(update={"parameters": (hinted,)})

    return info.with_each(fill)


def call_source(call: Call) -> str | None:
    """``call`` as one expression a test can write, or None: a plain call of a function or
    a static or class method (``parse('a=1')``), or a method or property of an instance
    built in place or returned by another expression (``where('a') == 1``,
    ``Query().name``), so that what such a call returns is followed in its turn. Not a
    sequence (its steps are statements), a statement, a round trip, a call made with an
    environment variable set, a context manager entered (``with``), or a text longer
    than ``MAX_SOURCE``."""
    if call.consume or call.enter or call.before or call.env or call.module_data:
        return None
    if not call.on_instance:
        return f"{call.target}({call_arguments(call.args, call.kwargs)})"
    owner, _, member = call.target.partition(".")
    if member in STATEMENTS or member in ROUND_TRIPS:
        return None
    if call.via is not None:
        base = call.via
    else:
        base = f"{owner}({call_arguments(call.init_args or (), call.init_kwargs)})"
    if call.attribute:
        source = f"{base}.{member}"
    else:
        source = method_call(base, Step(member, call.args, call.kwargs))
    return source if len(source) <= MAX_SOURCE else None


def returned_instances(
    seen: Iterable[CallResult], module: str, classes: Collection[str], per_class: int = PER_CLASS
) -> dict[str, list[str]]:
    """Class name → the sources of calls seen returning one of its instances
    deterministically (the class's own constructor excluded: those are built already).

    Instances made by different callables hold different state (``field('a') == 1`` and
    ``check & other`` each close over their own test), so each callable that returns the
    class gets one source before any gets a second; plain calls first, then calls on an
    instance (``where('a') == 1``), and calls given only literals before those given an
    object (whose address a repr may carry into the instance's state), each in the order
    seen."""
    by_maker: dict[str, dict[str, list[str]]] = {}  # class → maker → sources
    for result in sorted(seen, key=_source_rank):  # stable: in the order seen
        outcome = result.outcome
        if not (result.deterministic and outcome.kind == "return"):
            continue
        if outcome.type_module != module or outcome.type not in classes:
            continue
        source = call_source(result.call)
        if source is None or result.call.target == outcome.type:
            continue
        sources = by_maker.setdefault(outcome.type, {}).setdefault(result.call.target, [])
        if source not in sources:
            sources.append(source)
    found: dict[str, list[str]] = {}
    for cls, makers in by_maker.items():
        turns = zip_longest(*makers.values())  # the first of each maker, then the second...
        found[cls] = [source for turn in turns for source in turn if source][:per_class]
    return found


def instances_made_elsewhere(
    seen: Iterable[CallResult], classes: Collection[str], per_class: int = PER_CLASS
) -> dict[str, list[str]]:
    """Class name → objects of it that other code made (``Call.via``, as the project's
    tests made them: ``XPath1Parser().parse('2 + 5')`` returns one of elementpath's
    tokens), on which one of its methods ran and returned: its other methods are called
    on those too (``calls_on_returned``), as on an instance a call of the module returned.
    The objects whose calls reached the most arcs first, at most ``MAX_SOURCE`` long."""
    reach: dict[str, dict[str, int]] = {}
    for result in seen:
        call = result.call
        owner = call.target.partition(".")[0]
        if call.via is None or owner not in classes or len(call.via) > MAX_SOURCE:
            continue
        if not (result.deterministic and result.outcome.kind == "return"):
            continue
        sources = reach.setdefault(owner, {})
        sources[call.via] = max(sources.get(call.via, 0), len(result.arcs))
    return {
        owner: sorted(sources, key=lambda source: -sources[source])[:per_class]
        for owner, sources in reach.items()
    }


def _source_rank(result: CallResult) -> tuple[bool, bool]:
    call = result.call
    sources = [*call.args, *(v for _, v in call.kwargs)]
    return call.on_instance, any(literal_value(source) is None for source in sources)


def calls_on_returned(
    info: ModuleInfo,
    returned: Mapping[str, Sequence[str]],
    variants: Mapping[str, Sequence[Call]],
    done: Collection[str] = (),
) -> list[Call]:
    """Each method and property of a class, on every returned instance in ``returned``
    whose source is not in ``done``: ``variants`` (method qualname → its planned calls,
    arguments only) moved onto that instance, and each property read."""
    calls: list[Call] = []
    for cls in info.classes:
        methods = [m for m in cls.methods if m.kind == "method"]
        for source in returned.get(cls.name, ()):
            if source in done:
                continue
            reads = [
                Call(f"{cls.name}.{name}", attribute=True, via=source) for name in cls.properties
            ]
            moved = [
                replace(call, init_args=None, init_kwargs=(), via=source, before=())
                for method in methods
                for call in variants.get(method.qualname, ())
            ]
            calls += list(dict.fromkeys([*reads, *moved]))[:CALLS_PER_INSTANCE]
    return calls


def calls_of_returned_functions(
    seen: Iterable[CallResult], done: Collection[str] = (), per_maker: int = PER_MAKER
) -> list[Call]:
    """Each function a call was seen returning deterministically, called in its turn with
    each of ``RETURNED_FUNCTION_ARGS`` (``autoparams()(len)``): a decorator factory's
    decorator, a decorator's wrapper, a factory's product. The call is ``__call__`` on
    what the source returns; sources in ``done`` were planned already. Followed a level
    per round, as far as ``MAX_SOURCE`` allows."""
    by_maker: dict[str, list[str]] = {}
    for result in sorted(seen, key=_source_rank):
        outcome = result.outcome
        if not (result.deterministic and outcome.kind == "return"):
            continue
        if (outcome.type_module, outcome.type) not in FUNCTION_TYPES:
            continue
        source = call_source(result.call)
        if source is None or source in done:
            continue
        sources = by_maker.setdefault(result.call.target, [])
        if source not in sources and len(sources) < per_maker:
            sources.append(source)
    return [
        Call(f"{maker.split('.')[0]}.{CALL}", args, via=source)
        for maker, sources in by_maker.items()
        for source in sources
        for args in RETURNED_FUNCTION_ARGS
    ]


def calls_entering(
    seen: Iterable[CallResult], done: Collection[Call] = (), per_maker: int = PER_ENTERED
) -> list[Call]:
    """Each call seen returning a context manager, again with it entered and left (``with
    atomic_write(path) as result``): a ``contextlib.contextmanager`` function, or a method
    returning one, runs its body only then. ``per_maker`` calls per callable in all, in
    the order seen; calls in ``done`` were planned already (and count).
    Their neighbours (other arguments) are entered too, as the search's neighbours keep
    the rest of a call."""
    made: dict[str, int] = {}
    entering: dict[Call, None] = {}
    for result in seen:
        call, outcome = result.call, result.outcome
        if outcome.kind != "return" or not outcome.context:
            continue
        if call.enter or call.consume or call.module_data:  # entered, iterated, not a call
            continue
        entered = replace(call, enter=True)
        if entered in entering or made.get(call.target, 0) >= per_maker:
            continue
        made[call.target] = made.get(call.target, 0) + 1  # planned before or now
        entering[entered] = None
    return [call for call in entering if call not in done]


def calls_after_failures(seen: Iterable[CallResult], per_maker: int = PER_MAKER) -> list[Call]:
    """Each returned function (``calls_of_returned_functions``) seen raising an exception a
    test can expect, called again after that failure repeated each of ``FAILURES_BEFORE``
    times: a decorator's wrapper that counts failures (a circuit breaker opens, a retry
    gives up) behaves otherwise from then on, which one call never shows. Its first failing
    arguments, per returned function, both as the steps and as the call after them;
    ``per_maker`` returned functions per callable that returns them."""
    failures: dict[str, tuple[str, Step]] = {}  # returned function → its target, its failure
    makers: dict[str, int] = {}
    for result in seen:
        call, outcome = result.call, result.outcome
        if call.via is None or call.before or not call.target.endswith(f".{CALL}"):
            continue
        if not result.deterministic or outcome.kind != "raise" or not outcome.type:
            continue
        if outcome.denied or call.via in failures:
            continue
        maker = call.via.partition("(")[0]
        if makers.get(maker, 0) >= per_maker:
            continue
        makers[maker] = makers.get(maker, 0) + 1
        failures[call.via] = (call.target, as_step(result))
    return [
        Call(target, step.args, step.kwargs, via=source, before=(step,) * times)
        for source, (target, step) in failures.items()
        for times in FAILURES_BEFORE
    ]
