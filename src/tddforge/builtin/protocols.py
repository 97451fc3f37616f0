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
and not only with literals.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace

from tddforge.builtin.discover import CallableInfo, ModuleInfo
from tddforge.builtin.explore import Call, CallResult

COMPARISONS = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"})
PER_CLASS = 2  # returned instances used per class
CALLS_PER_INSTANCE = 40  # calls planned on one returned instance


def with_instance_hints(info: ModuleInfo) -> ModuleInfo:
    """``info`` with the unannotated operand of each comparison method hinted as its own
    class (or None): ``Version('1') < Version('2')``, not only ``Version('1') < 0``."""

    def fill(func: CallableInfo, key: str) -> CallableInfo:
        owner, _, method = key.partition(".")
        if method not in COMPARISONS or len(func.parameters) != 1:
            return func
        other = func.parameters[0]
        if other.annotation is not None:
            return func
        hinted = other.model_copy(update={"annotation": f"{owner} | None"})
        return func.model_copy(update={"parameters": (hinted,)})

    return info.with_each(fill)


def call_source(call: Call) -> str | None:
    """``call`` as an expression a test can write, when it is a plain call of a function
    or a static or class method (no instance, no steps); else None."""
    if call.on_instance or call.attribute or call.consume or call.before:
        return None
    arguments = ", ".join([*call.args, *(f"{k}={v}" for k, v in call.kwargs)])
    return f"{call.target}({arguments})"


def returned_instances(
    seen: Iterable[CallResult], module: str, classes: Collection[str], per_class: int = PER_CLASS
) -> dict[str, list[str]]:
    """Class name → the sources of calls seen returning one of its instances
    deterministically (the class's own constructor excluded: those are built already)."""
    found: dict[str, list[str]] = {}
    for result in seen:
        outcome = result.outcome
        if not (result.deterministic and outcome.kind == "return"):
            continue
        if outcome.type_module != module or outcome.type not in classes:
            continue
        source = call_source(result.call)
        if source is None or result.call.target == outcome.type:
            continue
        sources = found.setdefault(outcome.type, [])
        if source not in sources and len(sources) < per_class:
            sources.append(source)
    return found


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
