"""Options that act together (pure): which keyword parameters to give in one call.

Planning varies one parameter at a time, so a branch that needs two options at
once (``if depth and callback is not None``, a test of one option inside the
branch of another, a callback called where a depth is compared) is never
reached. ``option_pairs`` finds, statically, the pairs of a callable's optional
parameters whose uses meet like that; a method's tests of ``self.x`` count for
the constructor parameter ``x`` is stored from. ``with_option_pairs`` records
them on the callables (``CallableInfo.together``), and the planner gives each
pair its first candidates together.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator, Mapping

from tddforge.builtin.discover import CallableInfo, ModuleInfo

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_Func = ast.FunctionDef | ast.AsyncFunctionDef
MAX_PAIRS = 6  # per callable


def option_pairs(source: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """Callable key (a function's qualname, ``Class.__init__`` for a constructor) → the
    pairs of its optional parameters that act together; empty when ``source`` does not
    parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, list[tuple[str, str]]] = {}
    for key, func, names in _callables(tree):
        for pair in _meeting(func, names):
            pairs = found.setdefault(key, [])
            if pair not in pairs and len(pairs) < MAX_PAIRS:
                pairs.append(pair)
    return {key: tuple(pairs) for key, pairs in found.items()}


def _callables(tree: ast.Module) -> Iterator[tuple[str, _Func, dict[str, str]]]:
    """Each function with the names that stand for its options (a name → the option):
    its own optional parameters; in a class, ``self.x`` for the constructor's ``x``."""
    for node in tree.body:
        if isinstance(node, _FUNCS):
            yield node.name, node, {p: p for p in _optional(node)}
        elif isinstance(node, ast.ClassDef):
            init = next(
                (n for n in node.body if isinstance(n, _FUNCS) and n.name == "__init__"), None
            )
            stored = _stored(init) if init is not None else {}
            for method in (n for n in node.body if isinstance(n, _FUNCS)):
                own = {p: p for p in _optional(method)}
                key = f"{node.name}.{method.name}"
                yield key, method, own
                if stored and method is not init:  # self.depth in a method: the constructor's
                    yield f"{node.name}.__init__", method, stored


def _optional(func: _Func) -> list[str]:
    """The parameters with a default (positional ones from the right, keyword-only ones)."""
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    with_default = positional[len(positional) - len(args.defaults) :] if args.defaults else []
    keyword = [a for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
    return [a.arg for a in [*with_default, *keyword]]


def _stored(init: _Func) -> dict[str, str]:
    """``self.<attr>`` → the optional parameter the constructor stores there."""
    options = set(_optional(init))
    me = init.args.args[0].arg if init.args.args else "self"
    found = {}
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == me
                    and node.value.id in options
                ):
                    found[f"{me}.{target.attr}"] = node.value.id
    return found


def _meeting(func: _Func, names: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """Pairs of options used together: tested in one condition, or one tested (or a
    callback called) inside the branch of a test of the other."""
    if len(set(names.values())) < 2:
        return
    for node in ast.walk(func):
        if not isinstance(node, (ast.If, ast.While, ast.IfExp)):
            continue
        tested = _options_in(node.test, names)
        yield from _pairs(tested)
        body = node.body if isinstance(node.body, list) else [node.body]
        inside = {o for stmt in body for o in _used_in_tests_or_calls(stmt, names)}
        for outer in tested:
            yield from (_ordered(outer, other) for other in inside if other != outer)


def _options_in(node: ast.AST, names: Mapping[str, str]) -> list[str]:
    """The options an expression mentions, in order, once each."""
    found = [names[n] for n in map(_spelled, ast.walk(node)) if n is not None and n in names]
    return list(dict.fromkeys(found))


def _used_in_tests_or_calls(stmt: ast.AST, names: Mapping[str, str]) -> set[str]:
    """Options tested (in a nested condition) or called (a callback) within ``stmt``."""
    found: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            found.update(_options_in(node.test, names))
        elif isinstance(node, ast.Call):
            name = _spelled(node.func)
            if name is not None and name in names:
                found.add(names[name])
    return found


def _spelled(node: ast.AST) -> str | None:
    """``depth`` or ``self.depth`` as written; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def _pairs(options: list[str]) -> Iterator[tuple[str, str]]:
    for one, other in itertools.combinations(options, 2):
        yield _ordered(one, other)


def _ordered(one: str, other: str) -> tuple[str, str]:
    return (one, other) if one < other else (other, one)


def with_option_pairs(
    info: ModuleInfo, pairs: Mapping[str, tuple[tuple[str, str], ...]]
) -> ModuleInfo:
    """``info`` with each callable's pairs of options that act together recorded."""

    def fill(func: CallableInfo, key: str) -> CallableInfo:
        names = {
            p.name for p in func.parameters if p.kind in ("positional_or_keyword", "keyword_only")
        }
        found = tuple(pair for pair in pairs.get(key, ()) if set(pair) <= names)
        return func.model_copy(update={"together": found}) if found else func

    return info.with_each(fill)
