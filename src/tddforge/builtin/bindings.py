"""What the names in a test stand for: literal values, followed through the test statically.

People keep test inputs in tables: ``TEST_DATA = (("a title", "A Title"), ...)`` walked by
``for data in TEST_DATA: titlecase(data[0])``, rows handed to ``@pytest.mark.parametrize``,
or a text assigned to a name before the call (``s = "line one\\n\\nline three"``). This
module follows those names (``ast`` only, nothing is imported or run): an *environment*
maps a name (``s``, ``self.text``) to its value, and a loop over a table or a parametrized
test gives several environments at once, one per row, so that each row becomes its own
call.

:func:`evaluate` is the value of an expression in one environment: literals, the names
bound in it, subscripts, containers, ``+``/``-``/``*`` on literal values, the table walks
people write (``.items()``, ``enumerate``, ``zip``, ``range``, ``sorted``) and, through
``call``, whatever the caller recognises (an instance of the module's class). :func:`walk`
follows a function's statements in order and yields each expression with the
environments in force there.
"""

from __future__ import annotations

import ast
import itertools
import posixpath
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Environments in force at once (table rows, times nested loops), at most.
MAX_ROWS = 300
#: The longest text or container a computed value may have (``"ab" * 10_000`` is not kept).
MAX_SIZE = 2_000

Env = Mapping[str, Any]
#: What the caller makes of a call it recognises, given the environment (or ``MISSING``).
CallValue = Callable[[ast.Call, Env], Any]


#: Builtins a test passes as values (a schema's types, a key function), written as named.
BUILTIN_VALUES = frozenset(
    {"int", "float", "complex", "str", "bytes", "bool", "list", "dict", "tuple", "set"}
    | {"frozenset", "object", "type", "len", "abs", "min", "max", "sum", "sorted", "repr"}
    | {"callable", "iter", "next", "ord", "chr", "hash", "id", "bytearray", "range"}
)


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: An expression whose value is not known statically.
MISSING: Any = _Missing()


@dataclass(frozen=True)
class Reference:
    """A value the module under test can name: ``Strategy.SEMVER`` where the module binds
    ``Strategy`` too, kept as its source (the runner evaluates it in the module)."""

    source: str


@dataclass(frozen=True)
class FilePath:
    """A file path a test builds (``Path(__file__).parent / "data.json"``,
    ``os.path.join(os.path.dirname(__file__), "data.json")``), as text; what it names is
    for the caller's ``call`` to find and read (``data_files``)."""

    path: str


@dataclass(frozen=True)
class OpenFile:
    """What ``open(path)`` gives a test (``with open("testdata.json") as f``): the file
    found, which the caller's ``call`` reads (``json.load(f)``, ``f.read()``)."""

    path: str
    binary: bool = False


class Param(tuple):  # type: ignore[type-arg]
    """The values of one ``pytest.param(...)`` row."""

    __slots__ = ()


_PLAIN = (type(None), bool, int, float, complex, str, bytes)


def is_plain(value: Any) -> bool:
    """Whether ``value`` is made of literals only, so that its ``repr`` is its source."""
    if isinstance(value, Param):
        return False
    if isinstance(value, _PLAIN):
        return True
    if isinstance(value, (tuple, list, set, frozenset)):
        return len(value) <= MAX_SIZE and all(map(is_plain, value))
    if isinstance(value, dict):
        return len(value) <= MAX_SIZE and all(map(is_plain, [*value, *value.values()]))
    return False


def source_of(value: Any) -> str | None:
    """The source of a value found in a test: ``repr`` for literals (when it reads back
    as the value: not ``nan``), a reference's own source, containers of either."""
    if isinstance(value, Reference):
        return value.source
    text: str | None
    if is_plain(value):
        text = repr(value)
        try:
            ast.literal_eval(text)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    elif isinstance(value, (tuple, list, set, frozenset)) and not isinstance(value, Param):
        parts = [source_of(item) for item in value]
        if None in parts or (not parts and isinstance(value, (set, frozenset))):
            return None
        joined = ", ".join(sorted(parts) if isinstance(value, (set, frozenset)) else parts)  # type: ignore[arg-type]
        if isinstance(value, tuple):
            text = f"({joined}{',' if len(parts) == 1 else ''})"
        else:
            text = f"[{joined}]" if isinstance(value, list) else f"{{{joined}}}"
    elif isinstance(value, dict):
        pairs = [(source_of(k), source_of(v)) for k, v in value.items()]
        if any(k is None or v is None for k, v in pairs):
            return None
        text = "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    else:
        return None
    return text if len(text) <= MAX_SIZE else None


def evaluate(node: ast.expr, env: Env, call: CallValue | None = None) -> Any:
    """``node``'s value in ``env``, or ``MISSING``."""
    try:
        value = _evaluate(node, env, call)
    except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError):
        return MISSING
    if isinstance(value, (str, bytes, tuple, list, dict, set, frozenset)) and (
        len(value) > MAX_SIZE
    ):
        return MISSING
    return value


def _evaluate(node: ast.expr, env: Env, call: CallValue | None) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return _name(node.id, env)
    if isinstance(node, ast.Attribute):
        found = env.get(ast.unparse(node), MISSING)  # ``self.text``, ``TestX.CASES``
        base = evaluate(node.value, env, call) if found is MISSING else MISSING
        if isinstance(base, Reference):
            return Reference(f"{base.source}.{node.attr}")  # ``Strategy.SEMVER``
        if isinstance(base, FilePath) and node.attr == "parent":
            return FilePath(posixpath.dirname(base.path))
        return found
    if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        return _container(node, env, call)
    if isinstance(node, ast.Subscript):
        return _subscript(node, env, call)
    if isinstance(node, ast.UnaryOp):
        operand = evaluate(node.operand, env, call)
        return _unary(node.op, operand)
    if isinstance(node, ast.BinOp):
        left = evaluate(node.left, env, call)
        right = evaluate(node.right, env, call)
        return _binary(node.op, left, right)
    if isinstance(node, ast.Call):
        found = _table_walk(node, env, call)
        if found is not MISSING or call is None:
            return found
        return call(node, env)
    return MISSING


def _name(name: str, env: Env) -> Any:
    found = env.get(name, MISSING)
    if found is MISSING and name in BUILTIN_VALUES:
        return Reference(name)  # ``Schema({"q": int})``: a type passed as a value
    return found


def _container(
    node: ast.Tuple | ast.List | ast.Set | ast.Dict, env: Env, call: CallValue | None
) -> Any:
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        # a table's row keeps what is known of it: ``("2007-01-01", datetime(...))`` gives
        # its text though not its expected value (each use of MISSING stays unknown)
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return MISSING
        items = [evaluate(e, env, call) for e in node.elts]
        if items and all(item is MISSING for item in items):
            return MISSING
        kind = {ast.Tuple: tuple, ast.List: list, ast.Set: set}[type(node)]
        return kind(items)  # a set of unhashable values: TypeError, MISSING in ``evaluate``
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            return MISSING  # ``{**other}``
        keys = _all([k for k in node.keys if k is not None], env, call)
        values = _all(node.values, env, call)
        if keys is MISSING or values is MISSING:
            return MISSING
        return dict(zip(keys, values, strict=True))
    return MISSING


def _all(nodes: Sequence[ast.expr], env: Env, call: CallValue | None) -> Any:
    values = []
    for node in nodes:
        if isinstance(node, ast.Starred):
            return MISSING
        value = evaluate(node, env, call)
        if value is MISSING:
            return MISSING
        values.append(value)
    return values


def _subscript(node: ast.Subscript, env: Env, call: CallValue | None) -> Any:
    base = evaluate(node.value, env, call)
    if not isinstance(base, (str, bytes, tuple, list, dict)):
        return MISSING
    if isinstance(node.slice, ast.Slice):
        parts = [node.slice.lower, node.slice.upper, node.slice.step]
        bounds = [None if p is None else evaluate(p, env, call) for p in parts]
        if any(b is MISSING or not isinstance(b, (int, type(None))) for b in bounds):
            return MISSING
        if isinstance(base, dict):
            return MISSING
        return base[slice(*bounds)]
    index = evaluate(node.slice, env, call)
    if index is MISSING:
        return MISSING
    return base[index]


def _unary(op: ast.unaryop, operand: Any) -> Any:
    if operand is MISSING or not isinstance(operand, (int, float, complex)):
        return MISSING
    if isinstance(op, ast.USub):
        return -operand
    if isinstance(op, ast.UAdd):
        return +operand
    return MISSING


_SEQUENCES = (str, bytes, tuple, list)


def _binary(op: ast.operator, left: Any, right: Any) -> Any:
    if isinstance(op, ast.Div) and isinstance(left, FilePath) and isinstance(right, str):
        return FilePath(posixpath.join(left.path, right))  # ``HERE / "data.json"``
    if left is MISSING or right is MISSING or isinstance(left, bool) or isinstance(right, bool):
        return MISSING
    numbers = isinstance(left, (int, float)) and isinstance(right, (int, float))
    same = type(left) is type(right) and isinstance(left, _SEQUENCES)
    if isinstance(op, ast.Add) and (numbers or same):
        return left + right
    if isinstance(op, ast.Sub) and numbers:
        return left - right
    if isinstance(op, ast.Mult):
        if numbers:
            return left * right
        if (
            isinstance(left, _SEQUENCES)
            and isinstance(right, int)
            and right * len(left) <= MAX_SIZE
        ):
            return left * right
    return MISSING


#: The builtins people walk tables with, as lists (a range past ``MAX_SIZE`` is not kept).
_WALKS: dict[str, Callable[..., Any]] = {
    "enumerate": lambda *a: list(enumerate(*a)),
    "zip": lambda *a: list(zip(*a, strict=False)),
    "range": lambda *a: list(range(*a)) if len(range(*a)) <= MAX_SIZE else MISSING,
    "sorted": sorted,
    "reversed": lambda a: list(reversed(a)),
    "list": list,
    "tuple": tuple,
}


def _table_walk(node: ast.Call, env: Env, call: CallValue | None) -> Any:
    """The calls people walk tables with: ``.items()``/``.keys()``/``.values()``,
    ``enumerate``, ``zip``, ``range``, ``sorted``, ``reversed``, ``list``, ``tuple``,
    and ``pytest.param(...)`` rows."""
    func = ast.unparse(node.func)
    if node.keywords and func not in ("pytest.param", "param"):
        return MISSING
    if func in ("pytest.param", "param"):
        values = _all(node.args, env, call)
        return MISSING if values is MISSING else Param(values)
    if isinstance(node.func, ast.Attribute) and node.func.attr in ("items", "keys", "values"):
        if node.args:
            return MISSING
        base = evaluate(node.func.value, env, call)
        if not isinstance(base, dict):
            return MISSING
        return list(getattr(base, node.func.attr)())
    if func not in _WALKS:
        return MISSING
    args = _all(node.args, env, call)
    if args is MISSING or not all(isinstance(a, (int, *_SEQUENCES, dict)) for a in args):
        return MISSING
    return _WALKS[func](*args)


def _is_self_attribute(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in ("self", "cls")  # ``cls.parser = ...`` in ``setUpClass``
    )


def bind(target: ast.expr, value: Any, env: Env) -> dict[str, Any]:
    """``env`` with ``target`` (a name, ``self.x``, or a tuple of them) bound to
    ``value``; a name that cannot be bound (an unknown value, a row of the wrong
    length) is unbound, so that an older value does not stand for it."""
    bound = dict(env)
    if value is MISSING:
        for name in assigned_names(target):
            bound.pop(name, None)
        return bound
    if isinstance(target, ast.Name) or _is_self_attribute(target):
        bound[ast.unparse(target)] = value
        return bound
    if isinstance(target, (ast.Tuple, ast.List)):
        fits = isinstance(value, (tuple, list, str, bytes)) and len(value) == len(target.elts)
        if not fits or any(isinstance(e, ast.Starred) for e in target.elts):
            return bind(target, MISSING, env)
        for element, item in zip(target.elts, value, strict=True):
            bound = bind(element, item, bound)
        return bound
    return bound


def assigned_names(target: ast.expr) -> list[str]:
    """The names an assignment to ``target`` binds."""
    if isinstance(target, ast.Name) or _is_self_attribute(target):
        return [ast.unparse(target)]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in assigned_names(e)]
    if isinstance(target, ast.Starred):
        return assigned_names(target.value)
    return []


def rows(
    target: ast.expr, iterable: ast.expr, envs: Sequence[Env], call: CallValue | None
) -> list[Env]:
    """The environments in a loop's body: each of ``envs`` once per item of ``iterable``
    (a table), at most ``MAX_ROWS`` in all; ``target`` unbound when the items are unknown."""
    found: list[Env] = []
    for env in envs:
        items = evaluate(iterable, env, call)
        if isinstance(items, dict):
            items = list(items)
        if not isinstance(items, (tuple, list, set, frozenset)):
            found.append(bind(target, MISSING, env))
        else:
            found += [bind(target, item, env) for item in items]
        if len(found) >= MAX_ROWS:
            break
    return found[:MAX_ROWS]


def walk(
    body: Sequence[ast.stmt], envs: Sequence[Env], call: CallValue | None = None
) -> Iterator[tuple[ast.AST, Sequence[Env]]]:
    """Each expression of ``body``'s statements, in order, with the environments in force
    when it runs: an assignment binds its target for what follows, a ``for`` over a
    table runs its body once per row, a comprehension over one its element. Statements
    (a ``return``, a ``yield``) come too, before their expressions. Nested functions and
    classes are left out (they are scopes of their own)."""
    current = list(envs)
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(statement, _COMPOUND):
            current = yield from _compound(statement, current, call)
            continue
        yield statement, current
        for child in ast.iter_child_nodes(statement):
            if isinstance(child, ast.expr):
                yield from expressions(child, current, call)
        current = _assigned(statement, current, call)


_COMPOUND = (ast.For, ast.AsyncFor, ast.If, ast.While, ast.With, ast.AsyncWith, ast.Match, ast.Try)


def _compound(
    statement: ast.stmt, current: list[Env], call: CallValue | None
) -> Generator[tuple[ast.AST, Sequence[Env]], None, list[Env]]:
    """A compound statement's parts, each with its environments; returns those after it."""
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        yield from expressions(statement.iter, current, call)
        inner = rows(statement.target, statement.iter, current, call)
        yield from walk(statement.body, inner, call)
        yield from walk(statement.orelse, current, call)
        return [bind(statement.target, MISSING, env) for env in current]
    if isinstance(statement, (ast.If, ast.While)):
        yield from expressions(statement.test, current, call)
        yield from walk(statement.body, current, call)
        yield from walk(statement.orelse, current, call)
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        for item in statement.items:
            yield from expressions(item.context_expr, current, call)
            current = _entered(item, current, call)
        yield from walk(statement.body, current, call)
    elif isinstance(statement, ast.Match):
        yield from expressions(statement.subject, current, call)
        for case in statement.cases:
            yield from walk(case.body, current, call)
    elif isinstance(statement, ast.Try):
        yield from walk(statement.body, current, call)
        for handler in statement.handlers:
            yield from walk(handler.body, current, call)
        yield from walk(statement.orelse, current, call)
        yield from walk(statement.finalbody, current, call)
    return current


def _entered(item: ast.withitem, envs: list[Env], call: CallValue | None) -> list[Env]:
    """The environments in a ``with`` item's body: its name bound to an opened file
    (``with open("data.json") as f``), unbound for any other context."""
    if item.optional_vars is None:
        return envs
    found: list[Env] = []
    for env in envs:
        value = evaluate(item.context_expr, env, call)
        found.append(
            bind(item.optional_vars, value if isinstance(value, OpenFile) else MISSING, env)
        )
    return found


def settle(body: Sequence[ast.stmt], env: Env, call: CallValue | None = None) -> Env:
    """``env`` after ``body``'s own assignments, in order (a module's constants, a class's
    attributes, what ``setUp`` stores on ``self``), those inside a ``with`` included
    (``with open(...) as f: self.data = json.load(f)``); what a loop binds is left
    unbound."""
    current: list[Env] = [env]
    for statement in body:
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            current = [bind(statement.target, MISSING, e) for e in current]
        if isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                current = _entered(item, current, call)
            current = [settle(statement.body, current[0], call)]
        current = _assigned(statement, current, call)
    return current[0]


def _assigned(statement: ast.stmt, envs: list[Env], call: CallValue | None) -> list[Env]:
    if isinstance(statement, ast.Assign):
        updated = []
        for env in envs:
            value = evaluate(statement.value, env, call)
            for target in statement.targets:
                env = bind(target, value, env)
            updated.append(env)
        return updated
    if isinstance(statement, ast.AnnAssign):
        value = MISSING if statement.value is None else statement.value
        return [
            bind(statement.target, value if value is MISSING else evaluate(value, env, call), env)
            for env in envs
        ]
    if isinstance(statement, ast.AugAssign):
        return [bind(statement.target, MISSING, env) for env in envs]
    return envs


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def expressions(
    node: ast.expr, envs: Sequence[Env], call: CallValue | None = None
) -> Iterator[tuple[ast.AST, Sequence[Env]]]:
    """``node`` and the expressions inside it, outer first, in source order, with the
    environments in force: inside a comprehension, one per item it walks."""
    yield node, envs
    if isinstance(node, _COMPREHENSIONS):
        inner: Sequence[Env] = envs
        for generator in node.generators:
            yield from expressions(generator.iter, inner, call)
            inner = rows(generator.target, generator.iter, inner, call)
            for condition in generator.ifs:
                yield from expressions(condition, inner, call)
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for part in parts:
            yield from expressions(part, inner, call)
        return
    if isinstance(node, ast.Lambda):
        names = [a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]]
        inner = [{k: v for k, v in env.items() if k not in names} for env in envs]
        yield from expressions(node.body, inner, call)
        return
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.expr):
            yield from expressions(child, envs, call)


def parametrized(
    decorators: Sequence[ast.expr], env: Env, call: CallValue | None = None
) -> list[Env]:
    """The environments a test starts in: one per row of its ``@pytest.mark.parametrize``
    decorators (their product, at most ``MAX_ROWS``), each ``env`` with the row's names
    bound. A decorator whose rows are not literal binds nothing; ``indirect`` ones go to
    fixtures and bind nothing either."""
    tables: list[list[dict[str, Any]]] = []
    for decorator in decorators:
        table = _parametrize_rows(decorator, env, call)
        if table:
            tables.append(table)
    found: list[Env] = []
    for combination in itertools.islice(itertools.product(*tables), MAX_ROWS):
        merged = dict(env)
        for row in combination:
            merged.update(row)
        found.append(merged)
    return found or [dict(env)]


def _parametrize_rows(
    decorator: ast.expr, env: Env, call: CallValue | None
) -> list[dict[str, Any]]:
    if not isinstance(decorator, ast.Call) or len(decorator.args) < 2:
        return []
    if not ast.unparse(decorator.func).endswith("parametrize"):
        return []
    if any(k.arg == "indirect" for k in decorator.keywords):
        return []
    spec = evaluate(decorator.args[0], env, call)
    if isinstance(spec, str):
        names = [n.strip() for n in spec.split(",") if n.strip()]
    elif isinstance(spec, (tuple, list)) and all(isinstance(n, str) for n in spec):
        names = list(spec)
    else:
        return []
    table = evaluate(decorator.args[1], env, call)
    if not isinstance(table, (tuple, list)) or not names:
        return []
    found = []
    for row in table:
        whole = isinstance(spec, str) and len(names) == 1  # ``"text"``: each row is the value
        values = tuple(row) if isinstance(row, Param) else (row,) if whole else row
        if isinstance(values, (tuple, list)) and len(values) == len(names):
            found.append(dict(zip(names, values, strict=True)))
    return found
