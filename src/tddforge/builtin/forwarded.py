"""Literals a callee tests a parameter against, offered to the callers that pass it on.

``handle_nopinyin(chars, errors)`` gives ``errors`` unchanged to
``self._convert_nopinyin_chars(chars, errors=errors)``, which tests it against
``'default'``, ``'ignore'``, ``'exception'`` and ``'replace'``. Those strings are
constants of the callee's scope, so a search calling the caller never tried them,
and a private helper is not called by the search at all. This finds, per callable
of the module, the literals each parameter is tested against (``==``, ``!=``, ``in``
a tuple, list or set of literals), follows the calls that pass a parameter on
unchanged (to a function or class of the module, or a method on ``self`` or
``cls``), and gives each caller's scope the literals of what it passes on. Pure:
source text in, constants by scope (as ``constants.mine_constants`` names them) out.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from tddforge.builtin.constants import Constant, Kind, is_re_function
from tddforge.builtin.usage import module_callables, passed_on

#: Links of a chain of calls followed: ``convert`` → ``handle_nopinyin`` → its helper.
PASSES = 3
#: Literals kept per parameter (a long table of names compared is a lookup, not modes).
MAX_PER_PARAM = 8

_Literal = str | bytes | int | float
_Func = ast.FunctionDef | ast.AsyncFunctionDef


def forwarded_literals(source: str) -> dict[str, tuple[Constant, ...]]:
    """Per caller's scope, the literals its callees test the parameters it passes on against."""
    return _forwarded(source, _tested, "compare", MAX_PER_PARAM, own=False)


def pattern_inputs(source: str) -> dict[str, tuple[Constant, ...]]:
    """Per scope, regular expressions for each parameter it compiles as one, or passes on
    unchanged to a callee that does (sre_yield's ``AllStrings(regex)`` hands ``regex`` to
    a class that compiles ``"(?:%s)\\Z" % pattern`` and parses it): ``PATTERNS``, each a
    construct of the language."""
    return _forwarded(source, _compiled, "pattern", len(PATTERNS), own=True)


def _forwarded(
    source: str,
    seeds: Callable[[_Func], dict[str, list[_Literal]]],
    kind: Kind,
    per_param: int,
    *,
    own: bool,
) -> dict[str, tuple[Constant, ...]]:
    """Per scope, the literals ``seeds`` finds for the parameters its callees take, for
    what it passes them on unchanged; with ``own``, for its own parameters too."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found = list(module_callables(tree.body, ""))
    signatures = {name: (func, method) for name, func, method in found}
    known = {name: seeds(func) for name, func, _ in found}
    handed: dict[str, list[_Literal]] = {}
    if own:
        for name, params in known.items():
            for values in params.values():
                handed.setdefault(name, []).extend(values)
    for _ in range(PASSES):
        for qualname, func, method in found:
            for param, values in _passed_on(qualname, func, method, signatures, known).items():
                mine = known[qualname].setdefault(param, [])
                for value in values:
                    if value not in mine and len(mine) < per_param:
                        mine.append(value)
                        handed.setdefault(qualname, []).append(value)
    return {
        scope: tuple(Constant(v, kind) for v in _unique(values))
        for scope, values in handed.items()
        if values
    }


#: What a parameter compiled as a regular expression is given: anchors where they fit and
#: where they do not, a group read back, classes, repeats, branches, lookarounds.
PATTERNS = (
    "^a$",
    "(a)\\1",
    "a$b",
    "\\Ba",
    "[^a].",
    "a|bc",
    "a{2,3}?",
    "(?P<x>a)b",
    "\\d\\w",
    "(?=a)a",
    "[a-c]*",
)


def _compiled(func: _Func) -> dict[str, list[_Literal]]:
    """``PATTERNS`` for each parameter ``func`` hands ``re`` as the pattern, alone or inside
    one built around it (``"(?:%s)\\Z" % pattern``, an f-string, a concatenation)."""
    params = _params(func)
    compiled: dict[str, list[_Literal]] = {}
    for node in ast.walk(func):
        if not (isinstance(node, ast.Call) and node.args and is_re_function(node.func)):
            continue
        for name in _spliced(node.args[0]):
            if name in params:
                compiled[name] = list(PATTERNS)
    return compiled


def _spliced(node: ast.expr) -> Iterator[str]:
    """The names whose text makes up a pattern: the pattern itself, or a name spliced in by
    ``%``, ``+``, an f-string or ``.format``; not one read through (``self.pattern``)."""
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod | ast.Add):
        yield from _spliced(node.left)
        parts = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        for part in parts:
            yield from _spliced(part)
    elif isinstance(node, ast.JoinedStr):
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                yield from _spliced(value.value)
    elif isinstance(node, ast.Call) and _method(node.func) == "format":
        for arg in node.args:
            yield from _spliced(arg)


def _method(func: ast.expr) -> str:
    """The name a call of ``func`` calls as a method (``"{}".format``: ``format``), or ""."""
    return func.attr if isinstance(func, ast.Attribute) else ""


def _params(func: _Func) -> set[str]:
    return {a.arg for a in [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]}


def _tested(func: _Func) -> dict[str, list[_Literal]]:
    """Each parameter's literals in ``func``'s own comparisons (``p == 'a'``, ``p in (1, 2)``)."""
    params = _params(func)
    tested: dict[str, list[_Literal]] = {}
    for node in ast.walk(func):
        if not isinstance(node, ast.Compare):
            continue
        lefts = [node.left, *node.comparators[:-1]]
        for left, op, right in zip(lefts, node.ops, node.comparators, strict=True):
            pairs = [(left, right), (right, left)] if isinstance(op, ast.Eq | ast.NotEq) else []
            if isinstance(op, ast.In | ast.NotIn) and isinstance(
                right, ast.Tuple | ast.List | ast.Set
            ):
                pairs = [(left, element) for element in right.elts]
            for name, value in pairs:
                literal = _literal(value)
                if isinstance(name, ast.Name) and name.id in params and literal is not None:
                    values = tested.setdefault(name.id, [])
                    if literal not in values and len(values) < MAX_PER_PARAM:
                        values.append(literal)
    return tested


def _passed_on(
    qualname: str,
    func: _Func,
    method: bool,
    signatures: dict[str, tuple[_Func, bool]],
    known: dict[str, dict[str, list[_Literal]]],
) -> dict[str, list[_Literal]]:
    """The literals ``func``'s callees test what it passes on unchanged against, by its
    own parameter's name."""
    own = _params(func)
    passed: dict[str, list[_Literal]] = {}
    for callee, name, own_name in passed_on(qualname, func, method, signatures):
        if callee != qualname and own_name in own and name in known.get(callee, {}):
            passed.setdefault(own_name, []).extend(known[callee][name])
    return passed


def _literal(node: ast.expr) -> _Literal | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes | int | float):
        return None if isinstance(node.value, bool) else node.value
    return None


def _unique(values: list[_Literal]) -> list[_Literal]:
    seen: set[tuple[type, _Literal]] = set()
    kept = []
    for value in values:
        if (type(value), value) not in seen:
            seen.add((type(value), value))
            kept.append(value)
    return kept


def with_forwarded(
    mined: dict[str, tuple[Constant, ...]], forwarded: dict[str, tuple[Constant, ...]]
) -> dict[str, tuple[Constant, ...]]:
    """``mined`` with each scope's forwarded literals after its own constants."""
    merged = dict(mined)
    for scope, handed in forwarded.items():
        own = merged.get(scope, ())
        values = {(type(c.value), c.value) for c in own}
        merged[scope] = (*own, *(c for c in handed if (type(c.value), c.value) not in values))
    return merged
