"""Which data mutants change nothing but their module's own globals (pure).

Narrowing a rebound mutant's tests (``narrowing``) compares the module's globals
before and after ``rebind``: an effect elsewhere (``os.environ[k] = v``, a foreign
registry filled) would go unseen, and the tests reading it would be skipped. So
only a mutant in a plain data statement is narrowed: an assignment to module names
(or to items and attributes of the module's own data), whose value builds data
without calling anything but a few builtins that only build values (lambdas are
not run there, so their bodies do not count). The calls other files make into the
module while importing it (``replays``, run again after the rebind) must keep
their writes to the module's data too: a function that stores into, or calls a
mutating method of, anything but its own locals, its parameters defaulting to the
module's data, or that data, keeps every test. What a called function does beyond
its module is not followed: a replay calling another module's function is trusted,
as the drift check trusts it.
"""

from __future__ import annotations

import ast
import functools
from typing import Iterable

# builtins that only build a value from their arguments
BUILDERS = frozenset(
    {
        "dict", "list", "tuple", "set", "frozenset", "str", "bytes", "int", "float",
        "bool", "complex", "range", "sorted", "reversed", "enumerate", "zip", "len",
        "min", "max", "sum", "abs", "round", "repr", "chr", "ord",
    }
)  # fmt: skip
# methods that change the object they are called on
MUTATORS = frozenset(
    {
        "append", "extend", "insert", "remove", "pop", "popitem", "clear", "update",
        "setdefault", "add", "discard", "sort", "reverse", "__setitem__", "__delitem__",
        "__setattr__", "__iadd__",
    }
)  # fmt: skip
_SIMPLE = (ast.Assign, ast.AnnAssign, ast.AugAssign)


@functools.lru_cache(maxsize=64)
def narrowable_lines(source: str, called: frozenset[str] = frozenset()) -> frozenset[int]:
    """The lines of ``source``'s plain data statements, whose mutants can be narrowed;
    none when a function in ``called`` (what other files call into it at import) writes
    beyond the module's data."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset()
    data = _data_names(tree)
    functions: dict[str, ast.AST] = {
        f.name: f for f in tree.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    if BUILDERS & (set(functions) | data | _bound_otherwise(tree)):
        return frozenset()  # a builtin shadowed: its calls may do anything
    if not all(_keeps_to_data(name, functions, data, set()) for name in called):
        return frozenset()
    lines: set[int] = set()
    for statement in tree.body:
        if _plain(statement, data) or _filling(statement, data):
            lines.update(range(statement.lineno, (statement.end_lineno or statement.lineno) + 1))
    return frozenset(lines)


def _data_names(tree: ast.Module) -> set[str]:
    """The names the module's top-level assignments bind."""
    return {
        n.id
        for s in tree.body
        if isinstance(s, _SIMPLE)
        for n in ast.walk(s)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _bound_otherwise(tree: ast.Module) -> set[str]:
    """The names imports and classes bind at the top level."""
    found: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in statement.names)
        elif isinstance(statement, ast.ClassDef):
            found.add(statement.name)
    return found


def _filling(statement: ast.stmt, data: set[str]) -> bool:
    """Whether a statement fills the module's data in place (``TABLE[k].update(a=[...])``,
    ``NAMES.append("x")``) with values built as ``_plain`` builds them."""
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
        return False
    if call.func.attr not in MUTATORS or root(call.func.value) not in data:
        return False
    parts = [call.func.value, *call.args, *(k.value for k in call.keywords)]
    return all(_builds(node) for part in parts for node in _evaluated(part))


def _plain(statement: ast.stmt, data: set[str]) -> bool:
    """Whether an assignment binds module names (or items and attributes of its data) to
    a value built without calls but to ``BUILDERS``."""
    if not isinstance(statement, _SIMPLE):
        return False
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    if not all(_target_in(t, data) for t in targets):
        return False
    return all(_builds(node) for node in _evaluated(statement))


def _target_in(target: ast.expr, data: set[str]) -> bool:
    if isinstance(target, ast.Name):
        return True
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(_target_in(e, data) for e in target.elts)
    if isinstance(target, ast.Starred):
        return _target_in(target.value, data)
    return root(target) in data


def root(node: ast.expr) -> str | None:
    """The name an attribute or item chain starts from (``TABLE`` of ``TABLE[k].x``)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _evaluated(node: ast.AST) -> Iterable[ast.AST]:
    """The nodes evaluated when ``node`` runs: a lambda's body is not (its defaults are)."""
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Lambda):
            yield from (d for default in _defaults(child.args) for d in _evaluated(default))
        else:
            yield from _evaluated(child)


def _defaults(args: ast.arguments) -> list[ast.expr]:
    return [*args.defaults, *(d for d in args.kw_defaults if d is not None)]


def _builds(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id in BUILDERS
    return not isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr))


def _keeps_to_data(
    name: str, functions: dict[str, ast.AST], data: set[str], seen: set[str]
) -> bool:
    """Whether the module function ``name`` (and the module's functions it calls) writes
    only to its locals, its parameters defaulting to module data, and module data."""
    if name in seen:
        return True
    seen.add(name)
    function = functions.get(name)
    if function is None:
        return False
    own = _locals(function)
    args = function.args  # type: ignore[attr-defined]
    parameters = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    allowed = own | (data - parameters)  # a parameter named as data is the caller's object
    return all(_within(node, allowed, functions, data, seen) for node in ast.walk(function))


def _within(
    node: ast.AST, allowed: set[str], functions: dict[str, ast.AST], data: set[str], seen: set[str]
) -> bool:
    """Whether one node of a function writes only within ``allowed`` (``_keeps_to_data``)."""
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return False
    if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(
        node.ctx, (ast.Store, ast.Del)
    ):
        return root(node) in allowed
    if not isinstance(node, ast.Call):
        return True
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in MUTATORS:
        return root(func.value) in allowed
    if isinstance(func, ast.Name) and func.id in functions:
        return _keeps_to_data(func.id, functions, data, seen)
    return True


def _locals(function: ast.AST) -> set[str]:
    """What a function may write into: its parameters whose default is a module name
    (``signatures=signatures``: the module's data, unless a caller passes another), and
    the names it only ever binds to a container it builds (``found = {}``)."""
    args = function.args  # type: ignore[attr-defined]
    positional = [*args.posonlyargs, *args.args]
    defaulted = positional[len(positional) - len(args.defaults) :]
    found = {a.arg for a, d in zip(defaulted, args.defaults) if isinstance(d, ast.Name)}
    found |= {
        a.arg
        for a, d in zip(args.kwonlyargs, args.kw_defaults)
        if d is not None and isinstance(d, ast.Name)
    }
    built: set[str] = set()
    other: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and _fresh(node.value):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if len(names) == len(node.targets):
                built.update(names)
                continue
        for target in _stores(node):
            other.add(target)
    return found | (built - other - found)


def _stores(node: ast.AST) -> list[str]:
    """The names a node binds other than as ``name = <fresh container>``."""
    if isinstance(node, ast.Assign):
        return [n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension)):
        return [n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [
            n.id
            for item in node.items
            if item.optional_vars is not None
            for n in ast.walk(item.optional_vars)
            if isinstance(n, ast.Name)
        ]
    if isinstance(node, ast.NamedExpr):
        return [node.target.id]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    return []


def _fresh(value: ast.expr) -> bool:
    """Whether an expression builds a new container."""
    containers = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)
    if isinstance(value, containers):
        return True
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in ("dict", "list", "set")
    )
