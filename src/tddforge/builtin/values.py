"""Input synthesis: candidate literal values for one parameter.

Pure and deterministic: from the parameter's type hint (as written, parsed
with ``ast``, never evaluated), its literal default, the constants mined from
the code (:mod:`tddforge.builtin.constants`) and small mutations of those
(±1, empty and doubled strings, sign flips). Every value is a plain literal
whose ``repr`` evaluates back to an equal value, so it can be sent to the
target interpreter and written into a test as is.

Callables and files are the exceptions to "plain literals": a ``Callable`` hint
gets a few builtins and lambdas (of its number of arguments, when the hint or
the module's calls of it say it), and a file hint (``TextIO``, ``IO[bytes]``, or
a parameter read like one: ``usage.py``) in-memory files holding the module's
texts (``io.StringIO('...')``), as :class:`Expr` values whose ``repr`` is their
source. Types the table does not know (the module's own classes, protocols)
get no candidates here: building objects from the module's constructors
belongs to exploration, which can call them.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from tddforge.builtin.constants import Constant
from tddforge.builtin.discover import Param

T = TypeVar("T")

LIMIT = 12
_DIGIT = re.compile(r"\d")
_DIGITS_TO = {d: str.maketrans("0123456789", d * 10) for d in "19"}  # "E-042" → "E-111", "E-999"
_NOT_INPUTS = {"regex", "format"}  # a pattern or a format is rarely an input that matters
_ALIASES = {
    "List": "list",
    "Sequence": "list",
    "MutableSequence": "list",
    "Iterable": "list",
    "Collection": "list",
    "Tuple": "tuple",
    "Dict": "dict",
    "Mapping": "dict",
    "MutableMapping": "dict",
    "Set": "set",
    "AbstractSet": "set",
    "MutableSet": "set",
    "FrozenSet": "set",
    "frozenset": "set",
    "Text": "str",
    "Type": "type",
    "NoneType": "None",
    "Iterator": "list",
    "Generator": "list",
    "Container": "list",
    "OrderedDict": "dict",
    "defaultdict": "dict",
    "DefaultDict": "dict",
    "StringIO": "TextIO",
    "TextIOBase": "TextIO",
    "TextIOWrapper": "TextIO",
    "BytesIO": "BinaryIO",
    "BufferedIOBase": "BinaryIO",
    "BufferedReader": "BinaryIO",
    "RawIOBase": "BinaryIO",
}
#: File hints, and the in-memory file each is given (``IO`` by its argument: ``IO[bytes]``).
FILE_TYPES = {"TextIO": "io.StringIO", "BinaryIO": "io.BytesIO", "IO": "io.StringIO"}
_EXACT_TYPES: dict[str, type] = {
    "int": int,
    "str": str,
    "bytes": bytes,
    "bool": bool,
    "None": type(None),
    "list": list,
    "tuple": tuple,
    "dict": dict,
    "set": set,
}
_GENERIC: dict[str, tuple[object, ...]] = {
    "int": (0, 1, -1, 100),
    "float": (0.0, 1.5, -1.0),
    "str": ("", "a", "hello world"),
    "bytes": (b"", b"abc"),
    "bool": (True, False),
    "None": (None,),
}
_UNTYPED: tuple[object, ...] = (0, 1, -1, "", "a", None, [], 1.5, True, {"a": 1})


@dataclass(frozen=True)
class Expr:
    """A value written as an expression over the builtins (a callable): its repr is its source."""

    text: str

    def __repr__(self) -> str:
        return self.text


#: classes a ``type`` hint is given when it names none of them (``type[Any]``, a bare ``type``)
_CLASSES = (Expr("int"), Expr("str"), Expr("dict"))

# callables of one argument, of any arity, and of a pair (an item): what maps, filters,
# reducers and factories are usually handed
CALLABLES = (
    Expr("len"),
    Expr("str"),
    Expr("bool"),
    Expr("lambda *args: args"),
    Expr("lambda x: x"),
    Expr("lambda item: item[0]"),
    Expr("sum"),
    Expr("max"),
)


# stdlib value types a hint (or an isinstance check) may name, written through their module
STDLIB_MODULES = ("datetime", "decimal", "fractions", "io", "logging", "uuid")
_STDLIB: dict[str, tuple[Expr, ...]] = {
    "date": (Expr("datetime.date(2020, 1, 31)"), Expr("datetime.date(2024, 2, 29)")),
    "datetime": (Expr("datetime.datetime(2020, 1, 31, 12, 30)"),),
    "time": (Expr("datetime.time(12, 30)"),),
    "timedelta": (Expr("datetime.timedelta(days=1, seconds=30)"), Expr("datetime.timedelta(0)")),
    "Decimal": (Expr("decimal.Decimal('1.5')"), Expr("decimal.Decimal('-2')")),
    "Fraction": (Expr("fractions.Fraction(1, 3)"),),
    "timezone": (
        Expr("datetime.timezone.utc"),
        Expr("datetime.timezone(datetime.timedelta(hours=2))"),
    ),
    "tzinfo": (Expr("datetime.timezone.utc"),),
    # what a formatter, filter or handler is handed: a message alone, and one with arguments
    "LogRecord": (
        Expr("logging.LogRecord('app', logging.INFO, 'app.py', 10, 'message', None, None)"),
        Expr("logging.LogRecord('app', logging.ERROR, 'app.py', 20, 'hello %s', ('world',), None)"),
    ),
    "UUID": (Expr("uuid.UUID('12345678-1234-5678-1234-567812345678')"),),
    # a builtin: a span, the whole backwards, and a tail from a negative start
    "slice": (Expr("slice(1, 3)"), Expr("slice(None, None, -1)"), Expr("slice(-2, None)")),
}
_STDLIB_VALUES = {value for values in _STDLIB.values() for value in values}


@dataclass(frozen=True)
class Hint:
    """A type hint's shape: a normalised name, its arguments, and Literal members."""

    name: str  # int, str, ..., list, tuple, dict, set, Union, Literal, Any, or the name as written
    args: tuple[Hint, ...] = ()
    members: tuple[object, ...] = ()
    variadic: bool = False  # tuple[int, ...]; a Callable whose arguments are not known


@dataclass(frozen=True)
class Value:
    """One candidate input and where it came from (hint, default, constant:KIND, mutation)."""

    value: object
    origin: str

    @property
    def source(self) -> str:
        """The value as Python source, for a test file or the target interpreter."""
        return repr(self.value)


def parse_hint(text: str | None) -> Hint | None:
    """The shape of a hint written as text, or None when there is none or it is not an expression."""
    if not text:
        return None
    try:
        return _hint(ast.parse(text.strip(), mode="eval").body)
    except (SyntaxError, ValueError):
        return None


def _hint(node: ast.expr) -> Hint:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str):  # a quoted forward reference
            return parse_hint(node.value) or Hint(node.value)
        return Hint("None") if node.value is None else Hint(repr(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Name):
        # a TypeVar as ``inspect`` writes it (``~K``; ``+T``, ``-T`` when co- or
        # contravariant): any value will do, as without a hint (found on a Generic[K, V]
        # tree whose insert(key: K, value: V) got no value at all)
        return Hint("Any")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return Hint("Union", (_hint(node.left), _hint(node.right)))
    if isinstance(node, ast.Subscript):
        return _subscripted(_name(node.value), node.slice)
    name = _name(node)
    return Hint(name, variadic=name == "Callable")  # a bare Callable: any arguments


def _name(node: ast.expr) -> str:
    """``typing.List`` → ``list``; an unknown name stays as written."""
    name = node.attr if isinstance(node, ast.Attribute) else ast.unparse(node)
    return _ALIASES.get(name, name)


def _subscripted(name: str, index: ast.expr) -> Hint:
    items = list(index.elts) if isinstance(index, ast.Tuple) else [index]
    if name == "Callable":  # Callable[[A, B], R]: its parameters, as args (their number counts)
        params = items[0] if items else None
        if not isinstance(params, ast.List):  # Callable[..., R]
            return Hint("Callable", variadic=True)
        return Hint("Callable", tuple(map(_hint, params.elts)))
    if name == "Literal":
        return Hint("Literal", members=tuple(ast.literal_eval(item) for item in items))
    if name == "Optional":
        return Hint("Union", (_hint(items[0]), Hint("None")))
    variadic = bool(items) and isinstance(items[-1], ast.Constant) and items[-1].value is ...
    args = tuple(_hint(item) for item in (items[:-1] if variadic else items))
    return Hint(name, args, variadic=variadic)


def candidates(
    param: Param, constants: Sequence[Constant], *, limit: int = LIMIT
) -> tuple[Value, ...]:
    """Candidate values for ``param``, most promising first, without repeats.

    Order: the default, constants that fit the hint, values for the hint,
    mutations of those constants and the default. ``*args``/``**kwargs`` get
    none: leaving them empty is always possible.
    """
    if param.kind in ("var_positional", "var_keyword"):
        return ()
    hint = parse_hint(param.annotation)
    found: list[Value] = []
    default = literal_value(param.default) if param.default_is_literal else None
    if default is not None:
        found.append(Value(default[0], "default"))
    if hint is not None and _file_type(hint):  # a file: the texts it could hold
        return tuple(_file_values(hint, constants))[:limit]
    if hint is not None and hint.name in BYTES_VIEWS:  # ``memoryview(b"...")``: the bytes'
        inner = candidates(param.model_copy(update={"annotation": "bytes"}), constants, limit=limit)
        return tuple(_viewed(hint.name, v) for v in inner if isinstance(v.value, bytes))
    fitting = [
        Value(c.value, f"constant:{c.kind}")
        for c in constants
        if c.kind not in _NOT_INPUTS and fits(hint, c.value)
    ]
    generic = [Value(v, "hint") for v in values_for_hint(hint)]
    if hint is None:  # untyped: the module's strings must not crowd out dicts, lists, numbers
        found += [v for pair in itertools.zip_longest(fitting, generic) for v in pair if v]
    elif hint.name == "Union":  # each member in turn: many strings must not crowd out None
        members = [
            list(_file_values(arg, constants))
            if _file_type(arg)
            else [v for v in fitting + generic if fits(arg, v.value)]
            for arg in hint.args
        ]
        found += _interleave(members)
    else:
        found += fitting + generic
    for seed in [*found[:1], *fitting]:
        found += [Value(v, "mutation") for v in mutations(seed.value) if fits(hint, v)]
    return unique_values(found)[:limit]


def fits(hint: Hint | None, value: object) -> bool:
    """Whether ``value`` is of the hinted type: always without a hint, never for unknown types.

    An unknown name is usually one of the module's classes, which no literal
    stands for (a type alias is missed, on purpose: a wrong-typed input makes
    a test about nothing).
    """
    if hint is None or hint.name in ("Any", "object"):
        return True
    if hint.name == "Union":
        return any(fits(arg, value) for arg in hint.args)
    if hint.name == "Literal":
        return any(_same(value, member) for member in hint.members)
    if hint.name == "float":  # an int is acceptable where a float is hinted (PEP 484)
        return type(value) in (int, float)
    if hint.name == "Callable":
        return isinstance(value, Expr) and value not in _STDLIB_VALUES
    if _file_type(hint):
        return isinstance(value, Expr) and value.text.startswith(f"{_file_type(hint)}(")
    if hint.name in BYTES_VIEWS:
        return isinstance(value, Expr) and value.text.startswith(f"{hint.name}(")
    if hint.name in _STDLIB:
        return value in _STDLIB[hint.name]
    if hint.name == "Hashable":
        return not isinstance(value, Expr) and _hashable(value)
    if hint.name == "type":
        return value in _classes(hint)
    expected = _EXACT_TYPES.get(hint.name)
    return expected is not None and type(value) is expected


def values_for_hint(hint: Hint | None) -> list[object]:
    """Plain values of the hinted type; untyped parameters get a small mixed set."""
    if hint is None or hint.name in ("Any", "object"):
        return list(_UNTYPED)
    if hint.name == "Literal":
        return list(hint.members)
    if hint.name == "Union":
        return _interleave([values_for_hint(arg) for arg in hint.args])
    if hint.name in _GENERIC:
        return list(_GENERIC[hint.name])
    if hint.name == "Callable":
        return list(CALLABLES) if hint.variadic else callables_of(len(hint.args))
    if _file_type(hint):
        return [v.value for v in _file_values(hint, ())]
    if hint.name in BYTES_VIEWS:
        return [_viewed(hint.name, Value(b, "hint")).value for b in (b"", b"abc")]
    if hint.name in _STDLIB:
        return list(_STDLIB[hint.name])
    if hint.name == "Hashable":
        return [value for value in _UNTYPED if _hashable(value)]
    if hint.name == "type":
        return list(_classes(hint))
    return _containers(hint)


def _classes(hint: Hint) -> tuple[Expr, ...]:
    """The classes a ``type[X]`` hint is given: ``X`` itself, each member of a union
    ``X``, or a few builtins when ``X`` is anything (``type[Any]``, ``type[object]``)."""
    named = [
        arg
        for member in hint.args
        for arg in (member.args if member.name == "Union" else (member,))
    ]
    specific = [arg.name for arg in named if arg.name not in ("Any", "object", "None", "Union")]
    if not specific:
        return _CLASSES
    return tuple(Expr(name) for name in dict.fromkeys(specific) if name.isidentifier())


def callables_of(arity: int) -> list[object]:
    """Small callables taking ``arity`` positional arguments, as a test would write them:
    builtins for one; else lambdas giving back the last argument, the others as a tuple
    (a callback's ``(key, value)``), nothing, ``True`` or the first; and one taking any
    number and giving them back."""
    if arity == 1:
        return [Expr("str"), Expr("lambda x: x"), Expr("len"), Expr("bool"), Expr("lambda x: None")]
    anything = Expr("lambda *args: args")
    if arity == 0:
        return [Expr("lambda: None"), Expr("lambda: 1"), anything]
    if arity > 6:
        return [anything]
    names = [chr(ord("a") + i) for i in range(arity)]
    rest = names[1:] if arity > 2 else names
    bodies = [names[-1], f"({', '.join(rest)})", "None", "True", names[0]]
    return [*(Expr(f"lambda {', '.join(names)}: {body}") for body in bodies), anything]


def wants_file(hint: Hint | None) -> bool:
    """Whether a hint is a file, or a union with one (``str | TextIO``)."""
    if hint is None:
        return False
    return bool(_file_type(hint)) or any(
        wants_file(arg) for arg in hint.args if hint.name == "Union"
    )


def file_contents(hint: Hint | None, texts: Sequence[Constant]) -> list[Value]:
    """An in-memory file of each file type in ``hint`` (itself, or a union's members) per
    text of ``texts`` it can hold (the module's composed texts and binary headers).

    A parameter's planned candidates are few, and a union of five types shares them out:
    imagesize's ``get(filepath)`` had room for 3 of its 14 headers. A parser is written
    for each of these shapes, so a file parameter gets every one of them besides.
    """
    if hint is None:
        return []
    members = hint.args if hint.name == "Union" else (hint,)
    return [v for member in members if _file_type(member) for v in _file_values(member, texts)]


def wants_bytes(hint: Hint | None) -> bool:
    """Whether a hint is ``bytes`` (or ``bytearray``), or a union with one."""
    if hint is None:
        return False
    if hint.name == "Union":
        return any(wants_bytes(arg) for arg in hint.args)
    return hint.name == "bytes" or hint.name in BYTES_VIEWS


#: Bytes-like types a parameter may ask for, made from bytes: ``memoryview(b"abc")``.
BYTES_VIEWS = ("memoryview", "bytearray")


def _viewed(view: str, value: Value) -> Value:
    return Value(Expr(f"{view}({value.source})"), value.origin)


def _file_type(hint: Hint) -> str | None:
    """The in-memory file a file hint is given (``io.StringIO``, ``io.BytesIO``), or None."""
    if hint.name == "IO" and hint.args and hint.args[0].name == "bytes":
        return "io.BytesIO"
    return FILE_TYPES.get(hint.name)


def _file_values(hint: Hint, constants: Sequence[Constant]) -> Iterator[Value]:
    """In-memory files holding the module's texts (composed ones first), then an empty one
    and one short line; bytes for a binary file."""
    kind = _file_type(hint)
    binary = kind == "io.BytesIO"
    texts = sorted(
        (c for c in constants if isinstance(c.value, bytes if binary else str)),
        key=lambda c: c.kind != "text",  # composed multi-line texts before the short strings
    )
    plain = (b"", b"a\n") if binary else ("", "a\n")
    contents = [*(c.value for c in texts), *plain]
    for content in dict.fromkeys(contents):
        yield Value(Expr(f"{kind}({content!r})"), "file")


def _containers(hint: Hint) -> list[object]:
    """Empty and small containers of the hinted element types.

    An element type with no literal values (one of the module's classes) still gives
    the empty container, and never an error: a hint may name anything.
    """
    elements = values_for_hint(hint.args[0]) if hint.args else [1, "a"]
    if hint.name == "list":
        if not hint.args:
            return [[], ["a"], ["a", "b"], [1, 2, 3], [{"a": 1}, {"b": 2}]]
        return [[], *([elements[:1], elements[:2]] if elements else [])]
    if hint.name == "set":
        hashable = [e for e in elements if _hashable(e)]
        return [set(), *([{hashable[0]}] if hashable else [])]
    if hint.name == "tuple":
        if hint.variadic or not hint.args:
            return [(), *([tuple(elements[:1]), tuple(elements[:2])] if elements else [])]
        # the first values of each member, then the second ones: ``(0, 0)``, ``(1, 1)``
        each = [values_for_hint(arg)[:2] for arg in hint.args]
        if not all(each):
            return []
        first, second = (tuple(values[min(i, len(values) - 1)] for values in each) for i in (0, 1))
        return [first] if first == second else [first, second]
    if hint.name == "dict":
        if not hint.args:
            return [{}, {"a": 1}, {"a": 1, "b": 2}, {"a": {"b": 1}}]
        keys = [k for k in values_for_hint(hint.args[0]) if _hashable(k)]
        vals = values_for_hint(hint.args[1]) if len(hint.args) > 1 else [1]
        if hint.args[0].name == "Literal" and keys:  # the keys a body reads: all, or one
            every = [{k: v for k in keys} for v in ("a", 1)]
            return [{}, *every, *([{keys[0]: "a"}] if len(keys) > 1 else []), {"a": 1}]
        return [{}, *([{keys[0]: vals[0]}] if keys and vals else [])]
    return []  # a type we cannot write as a literal: exploration builds such objects


def mutations(value: object) -> list[object]:
    """Neighbours of an interesting value: boundaries, sign flips, empty and grown versions."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1, -value, 0]
    if isinstance(value, float):
        # and its scaled forms that print with an exponent (``1.5e+17``, ``1.5e-05``, ``1.5e+25``):
        # where float formatting and parsing branch (rfc8785's number serializer)
        scaled = [value * 1e17, value * 1e-5, value * 1e25] if value else []
        return [value + 1.0, value - 1.0, -value, 0.0, *scaled]
    if isinstance(value, str):
        digits = [value.translate(_DIGITS_TO[d]) for d in "19"] if _DIGIT.search(value) else []
        return ["", value[:-1], value + value, value.upper(), f" {value}", *digits]
    if isinstance(value, bytes):
        return [b"", value[:-1], value + value]
    if isinstance(value, list):
        return [[], value[:-1], value + value[:1], *_numbers_moved(value)]
    if isinstance(value, tuple):
        return [(), value[:-1], value + value[:1], *map(tuple, _numbers_moved(value))]
    return []


def _numbers_moved(items: Sequence[object]) -> list[list[object]]:
    """``items`` with every number one up, then every number of the other sign (a zero
    as -1), the rest kept: ``(0, 0)`` gives ``(1, 1)`` and ``(-1, -1)``, a check that all
    are positive or all negative reached at once. None without a number."""

    numbers = [isinstance(i, (int, float)) and not isinstance(i, bool) for i in items]
    if not any(numbers):
        return []
    up = [_moved(i, up=True) if n else i for i, n in zip(items, numbers, strict=True)]
    flipped = [_moved(i, up=False) if n else i for i, n in zip(items, numbers, strict=True)]
    return [up, flipped]


def _moved(number: object, *, up: bool) -> object:
    value = float(number) if isinstance(number, float) else int(number)  # type: ignore[call-overload]
    if up:
        return value + 1
    return -value if value else type(value)(-1)


def unique_values(values: Iterable[Value]) -> tuple[Value, ...]:
    """``values`` without repeats (the same type and repr), in their order."""
    seen: dict[tuple[str, str], Value] = {}
    for value in values:
        seen.setdefault((type(value.value).__name__, repr(value.value)), value)
    return tuple(seen.values())


def _same(value: object, member: object) -> bool:
    return type(value) is type(member) and value == member


def literal_value(source: str | None) -> tuple[object] | None:
    """The value ``source`` writes, boxed, or None when it is not a literal (``inf``)."""
    if source is None:
        return None
    try:
        return (ast.literal_eval(source),)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _interleave(groups: Sequence[Sequence[T]]) -> list[T]:
    """First of each group, then second of each, and so on."""
    longest = max((len(g) for g in groups), default=0)
    return [g[i] for i in range(longest) for g in groups if i < len(g)]
