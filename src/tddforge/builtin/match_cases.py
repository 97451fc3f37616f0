"""Calls that reach the cases of a ``match`` on a function's parameters.

graphemeu's ``get_break_possibility(a, b)`` is one ``match (a, b):`` over pairs of
enumeration members: ``case (GCB.CR, GCB.LF)``, ``case (GCB.L, GCB.L | GCB.V)``.
The search varies one argument at a time around a base call, so it reaches the
cases that name one member and never those that name a pair. The patterns name
the values: each case gives a call of the function, its values for the parameters
written as their source (a value pattern's expression, a literal, a list or dict
built from a sequence or mapping pattern), the first alternative where a case
offers several. A wildcard or a capture is given the value another case names at
that place, and a case that leaves a parameter with no value is left out. Pure:
source text in, calls out; only public functions of the module, whose every
required parameter the match names.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tddforge.builtin.discover import CallableInfo, ModuleInfo
from tddforge.builtin.explore import Call

#: Calls made per function (a long dispatch table's first cases).
MAX_CALLS = 24
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_POSITIONAL = ("positional_only", "positional_or_keyword")


def match_calls(source: str, info: ModuleInfo) -> list[Call]:
    """A call per case of each ``match`` over parameters of the module's public functions."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    functions = {f.qualname: f for f in info.functions if not f.is_async}
    calls: list[Call] = []
    for node in tree.body:
        func = functions.get(node.name) if isinstance(node, _FUNCS) else None
        if func is not None and isinstance(node, _FUNCS):
            found = [c for match in _matches(node) for c in _calls(func, match)]
            calls += list(dict.fromkeys(found))[:MAX_CALLS]
    return calls


def _matches(func: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.Match]:
    """The ``match`` statements of ``func``'s own body (not of functions nested in it)."""
    todo: list[ast.AST] = list(func.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.Match):
            yield node
        if not isinstance(node, (*_FUNCS, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


def _calls(func: CallableInfo, match: ast.Match) -> list[Call]:
    subject = match.subject
    names = subject.elts if isinstance(subject, ast.Tuple) else [subject]
    if not all(isinstance(n, ast.Name) for n in names):
        return []
    params = [n.id for n in names if isinstance(n, ast.Name)]
    known = {p.name for p in func.parameters}
    required = {p.name for p in func.parameters if not p.has_default and "var" not in p.kind}
    if not set(params) <= known or not required <= set(params):
        return []
    rows = []
    for case in match.cases:
        pattern = _first(case.pattern)
        parts: list[ast.pattern] = [pattern]
        if isinstance(subject, ast.Tuple):  # ``match (a, b)``: a sequence of as many
            if not isinstance(pattern, ast.MatchSequence) or len(pattern.patterns) != len(params):
                continue
            parts = list(pattern.patterns)
        rows.append([_value(part) for part in parts])
    fill = [next((row[i] for row in rows if row[i] is not None), None) for i in range(len(params))]
    calls = []
    for row in rows:
        values = [value if value is not None else fill[i] for i, value in enumerate(row)]
        if all(v is not None for v in values):
            given = dict(zip(params, [str(v) for v in values], strict=True))
            calls.append(_call(func, given))
    return calls


def _call(func: CallableInfo, given: dict[str, str]) -> Call:
    """``func`` called with ``given``: positionally when they are its first parameters
    (``route("GET", 404)``), else by keyword."""
    leading = [p.name for p in func.parameters[: len(given)]]
    positional = all(p.kind in _POSITIONAL for p in func.parameters[: len(given)])
    if positional and set(leading) == set(given):
        return Call(func.qualname, tuple(given[n] for n in leading), consume=func.is_generator)
    return Call(func.qualname, kwargs=tuple(given.items()), consume=func.is_generator)


def _first(pattern: ast.pattern) -> ast.pattern:
    """The first alternative of an or-pattern, through ``as`` names."""
    while True:
        if isinstance(pattern, ast.MatchOr) and pattern.patterns:
            pattern = pattern.patterns[0]
        elif isinstance(pattern, ast.MatchAs) and pattern.pattern is not None:
            pattern = pattern.pattern
        else:
            return pattern


def _value(pattern: ast.pattern) -> str | None:
    """The source of a value the pattern matches, or None (a wildcard, a capture, a class
    pattern, a star)."""
    pattern = _first(pattern)
    if isinstance(pattern, ast.MatchValue):
        return ast.unparse(pattern.value)
    if isinstance(pattern, ast.MatchSingleton):
        return repr(pattern.value)
    if isinstance(pattern, ast.MatchSequence):
        if any(isinstance(p, ast.MatchStar) for p in pattern.patterns):
            return None
        items = [_value(p) for p in pattern.patterns]
        return f"[{', '.join(i if i is not None else 'None' for i in items)}]"
    if isinstance(pattern, ast.MatchMapping) and pattern.rest is None:
        pairs = [
            f"{ast.unparse(key)}: {_value(value) or 'None'}"
            for key, value in zip(pattern.keys, pattern.patterns, strict=True)
        ]
        return "{" + ", ".join(pairs) + "}"
    return None
