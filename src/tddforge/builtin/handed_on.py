"""What one call returns, handed to another (pure): a writer's bytes to its reader.

biplist's ``readPlistFromString(data)`` parses a binary property list; no literal the
search writes or mutates is one, and its parser stops at the header. Its own
``writePlistToString({'a': 1})`` returns one. A call seen returning text or bytes
deterministically is written as a source (``protocols.call_source``) and handed to
every other callable whose first parameter takes that type
(``readPlistFromString(writePlistToString({'a': 1}))``), as Pynguin's object pool
hands values on. A test then reads as a round trip.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from itertools import zip_longest

from tddforge.builtin.discover import CallableInfo
from tddforge.builtin.explore import Call, CallResult, required
from tddforge.builtin.protocols import call_source
from tddforge.builtin.values import fits, parse_hint

#: the returned types handed on, each with a sample its consumers' hints must take
HANDED_TYPES = {"str": "x", "bytes": b"x"}
PER_TYPE = 3  # sources per type: one per callable that returns it
MAX_HANDED = 32  # calls planned per round (ahead of the planned calls left)


def calls_on_returned_values(
    seen: Iterable[CallResult],
    funcs: Mapping[str, CallableInfo],
    working: Mapping[str, Sequence[Call]],
    tried: Collection[Call] = (),
) -> list[Call]:
    """Calls handing each value in ``seen``'s returns on (``sources``) to each callable of
    ``funcs`` that takes it first, with no other argument it needs (``consumers``); a
    method on the first instance its class was seen building (``working``), given what
    its own class's methods return first (``to_entropy(generate())``). Not to the
    callable that returned it; none in ``tried``; at most ``MAX_HANDED``, the consumers
    taking turns."""
    by_consumer: dict[str, list[Call]] = {}
    for kind, makers in sources(seen).items():
        for func in consumers(funcs, HANDED_TYPES[kind]):
            base = _base_call(func, working)
            if base is None:
                continue
            for maker, source in _mine_first(makers, func):
                call = replace(base, args=(source,))
                if maker != func.qualname and call not in tried:
                    by_consumer.setdefault(func.qualname, []).append(call)
    turns = zip_longest(*by_consumer.values())
    return [call for turn in turns for call in turn if call is not None][:MAX_HANDED]


def sources(seen: Iterable[CallResult], per_type: int = PER_TYPE) -> dict[str, dict[str, str]]:
    """Type → callable → the source of a call it was seen returning a non-empty value of
    that type with, deterministically: one per callable, in the order seen, plain calls
    first; ``per_type`` plain callables per type, and as many methods of each class.
    mnemonic has four functions returning text: one cap for all kept its ``generate``,
    whose words its ``to_entropy`` reads, from ever being handed on."""
    found: dict[str, dict[str, str]] = {}
    counted: dict[tuple[str, str | None], int] = {}  # (type, class or None): makers kept
    for result in sorted(seen, key=lambda r: r.call.on_instance):
        outcome = result.outcome
        if not (result.deterministic and outcome.kind == "return"):
            continue
        if outcome.type_module != "builtins" or outcome.type not in HANDED_TYPES:
            continue
        if outcome.repr in ("''", "b''"):
            continue
        source = call_source(result.call)
        makers = found.setdefault(outcome.type, {})
        group = (outcome.type, _owner(result.call.target) if result.call.on_instance else None)
        if source is None or result.call.target in makers or counted.get(group, 0) >= per_type:
            continue
        makers[result.call.target] = source
        counted[group] = counted.get(group, 0) + 1
    return {kind: makers for kind, makers in found.items() if makers}


def _mine_first(makers: Mapping[str, str], func: CallableInfo) -> list[tuple[str, str]]:
    """``makers`` (callable → source), those of ``func``'s own class first when it is a
    method, else as they are."""
    if func.kind != "method":
        return list(makers.items())
    own = _owner(func.qualname)
    return sorted(makers.items(), key=lambda pair: _owner(pair[0]) != own)


def _owner(qualname: str) -> str | None:
    """The class a method belongs to (``Codec`` of ``Codec.encode``); None for a function."""
    owner, dot, _ = qualname.partition(".")
    return owner if dot else None


def consumers(funcs: Mapping[str, CallableInfo], sample: object) -> list[CallableInfo]:
    """The callables whose first parameter takes ``sample``'s type (unhinted, or hinted
    with it) and that need no other argument."""
    found = []
    for func in funcs.values():
        params = [p for p in func.parameters if p.kind not in ("var_positional", "var_keyword")]
        if not params or params[0].kind == "keyword_only":
            continue
        if any(map(required, params[1:])):
            continue
        if fits(parse_hint(params[0].annotation), sample):
            found.append(func)
    return found


def _base_call(func: CallableInfo, working: Mapping[str, Sequence[Call]]) -> Call | None:
    """``func``'s call with no arguments yet: a method on its class's first instance seen
    built, else nothing (no instance to call it on)."""
    if func.kind != "method":
        return Call(func.qualname)
    owner = func.qualname.split(".")[0]
    built = working.get(owner)
    if not built:
        return None
    return Call(func.qualname, init_args=built[0].args, init_kwargs=built[0].kwargs)
