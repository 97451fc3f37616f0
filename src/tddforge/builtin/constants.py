"""Constants mined from a module's source: the literals its code compares, looks up and matches.

Inputs built from these reach branches random values rarely do (``if word
in IRREGULAR``, ``if code == "E42"``). Pure: source text in, constants out,
grouped by the callable they appear in (``"area"``, ``"Box.grow"``; code in a
nested function or lambda counts for the callable around it; module and class
level code for ``"<module>"`` and ``"Box"``), in source order, without
repeats. Docstrings are not constants, but their doctest examples' literals
are. A regex pattern is followed by a string it matches (kind ``"regex_match"``):
the input that gets past the check.
"""

from __future__ import annotations

import ast
import doctest
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from tddforge.builtin.regex_example import example_for

MODULE_SCOPE = "<module>"
MAX_STRING = 200  # longer literals are text, not interesting inputs
_REGEX_FUNCS = {
    "compile",
    "match",
    "search",
    "fullmatch",
    "findall",
    "finditer",
    "sub",
    "subn",
    "split",
}
_LOOKUP_METHODS = {
    "get",
    "pop",
    "setdefault",
    "startswith",
    "endswith",
    "split",
    "count",
    "index",
    "find",
    "replace",
    "strip",
    "removeprefix",
    "removesuffix",
}

Scalar = int | float | str | bytes | bool | None
Kind = Literal[
    "compare",
    "dict_key",
    "regex",
    "regex_match",
    "format",
    "default",
    "doctest",
    "argument",
    "string",
    "number",
    "text",  # a multi-line text composed in the shape the code parses (builtin.texts)
    "pattern",  # a regex a parameter is compiled as (builtin.forwarded.pattern_inputs)
]
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_Found = tuple[str, tuple[int, int], "ast.AST | None", Scalar]
_Mark = Callable[[Sequence["ast.expr | None"], Kind], None]


@dataclass(frozen=True)
class Constant:
    """One literal value and the role it plays where it was found."""

    value: Scalar
    kind: Kind


Function = ast.FunctionDef | ast.AsyncFunctionDef


def scoped_functions(tree: ast.Module) -> Iterator[tuple[str, Function]]:
    """Each top-level function and method, in module order, with its scope's name: the
    qualname (``Class.method`` for a method), as the probe names callables."""
    for node in tree.body:
        if isinstance(node, Function):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, Function):
                    yield f"{node.name}.{member.name}", member


def scope_bodies(tree: ast.Module) -> Iterator[tuple[str, list[ast.AST]]]:
    """What each scope's code is, by its name as ``mine_constants`` gives it: the module's
    own statements (``MODULE_SCOPE``), then each top-level function and method whole."""
    yield MODULE_SCOPE, [n for n in tree.body if not isinstance(n, (Function, ast.ClassDef))]
    for name, node in scoped_functions(tree):
        yield name, [node]


def mine_constants(source: str) -> dict[str, tuple[Constant, ...]]:
    """The literals of ``source``, by scope, in source order, each (kind, value) once."""
    tree = ast.parse(source)
    roles = _roles(tree)
    found: dict[str, list[tuple[tuple[int, int], Constant]]] = {}
    seen: set[tuple[str, str, str, str]] = set()
    for scope, position, node, value in _walk(tree, MODULE_SCOPE, in_function=False):
        kind = "doctest" if node is None else roles.get(id(node), _generic_kind(value))
        for constant in with_example(Constant(value, kind)):
            key = (scope, constant.kind, type(constant.value).__name__, repr(constant.value))
            if key not in seen:
                seen.add(key)
                found.setdefault(scope, []).append((position, constant))
    # sorted is stable: a docstring's doctest literals keep their order at its position
    return {
        scope: tuple(c for _, c in sorted(items, key=lambda i: i[0]))
        for scope, items in found.items()
    }


#: Composed texts put before a scope's own constants (the rest go after them).
TEXTS_FIRST = 4


def with_texts(
    mined: dict[str, tuple[Constant, ...]], texts: Mapping[str, Sequence[str | bytes]]
) -> dict[str, tuple[Constant, ...]]:
    """``mined`` with each scope's composed texts (kind ``"text"``; ``bytes`` for binary
    headers): a few first, so the module's many short strings do not crowd them out, the
    others last."""
    merged = dict(mined)
    for scope, found in texts.items():
        composed = [Constant(text, "text") for text in found]
        own = merged.get(scope, ())
        merged[scope] = (*composed[:TEXTS_FIRST], *own, *composed[TEXTS_FIRST:])
    return merged


def constants_for(mined: dict[str, tuple[Constant, ...]], qualname: str) -> tuple[Constant, ...]:
    """What a callable may use: its own constants (a class's constructor: its ``__init__``'s
    and ``__new__``'s), its class's, the module's, then every doctest's in the module (an
    example written for one function is often a valid input to its neighbours)."""
    scopes = [qualname, f"{qualname}.__init__", f"{qualname}.__new__"]
    if "." in qualname:
        scopes.append(qualname.rsplit(".", 1)[0])
    scopes.append(MODULE_SCOPE)
    own = [c for scope in dict.fromkeys(scopes) for c in mined.get(scope, ())]
    examples = [c for found in mined.values() for c in found if c.kind == "doctest"]
    seen: set[tuple[type, Scalar, Kind]] = set()
    unique = []
    for constant in [*own, *examples]:
        key = (type(constant.value), constant.value, constant.kind)  # 1 and True stay apart
        if key not in seen:
            seen.add(key)
            unique.append(constant)
    return tuple(unique)


def with_example(constant: Constant) -> tuple[Constant, ...]:
    """A regex pattern, then a string it matches (an input for the code that checks one)."""
    if constant.kind == "regex" and isinstance(constant.value, str):
        example = example_for(constant.value)
        if example is not None:
            return constant, Constant(example, "regex_match")
    return (constant,)


def _position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _generic_kind(value: Scalar) -> Kind:
    return "string" if isinstance(value, (str, bytes)) else "number"


def _scalar(node: ast.AST) -> tuple[bool, Scalar]:
    """Whether ``node`` is a scalar literal (``-1`` included), and its value."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        ok, value = _scalar(node.operand)
        if ok and isinstance(value, (int, float)) and not isinstance(value, bool):
            return True, -value if isinstance(node.op, ast.USub) else value
        return False, None
    if isinstance(node, ast.Constant) and not isinstance(node.value, (complex, type(...))):
        value = node.value
        if isinstance(value, (str, bytes)) and len(value) > MAX_STRING:
            return False, None
        return True, value
    return False, None


def _walk(node: ast.AST, scope: str, *, in_function: bool) -> Iterator[_Found]:
    """Every scalar literal with its scope and position; docstrings skipped, doctests read.

    The node is None for a literal found in a doctest example.
    """
    docstring = _docstring_node(node)
    if docstring is not None:
        yield from _doctest_literals(docstring, scope)
    for child in ast.iter_child_nodes(node):
        if child is docstring:
            continue
        ok, value = _scalar(child)
        if ok:
            yield scope, _position(child), child, value
            continue
        child_scope, child_in_function = _child_scope(child, scope, in_function)
        yield from _walk(child, child_scope, in_function=child_in_function)


def _child_scope(child: ast.AST, scope: str, in_function: bool) -> tuple[str, bool]:
    if in_function or not isinstance(child, (*_FUNCS, ast.ClassDef)):
        return scope, in_function
    name = child.name if scope == MODULE_SCOPE else f"{scope}.{child.name}"
    return name, isinstance(child, _FUNCS)


def _docstring_node(node: ast.AST) -> ast.Expr | None:
    """The statement holding ``node``'s docstring, if it has one."""
    if not isinstance(node, (ast.Module, ast.ClassDef, *_FUNCS)) or not node.body:
        return None
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return first if isinstance(first.value.value, str) else None
    return None


def _doctest_literals(doc: ast.Expr, scope: str) -> Iterator[_Found]:
    try:
        examples = doctest.DocTestParser().get_examples(str(getattr(doc.value, "value", "")))
    except ValueError:
        return
    for example in examples:
        try:
            parsed = ast.parse(example.source)
        except SyntaxError:
            continue
        for _node, value in _scalars_in(parsed):
            yield scope, _position(doc), None, value


def _scalars_in(node: ast.AST) -> Iterator[tuple[ast.AST, Scalar]]:
    """The scalar literals under ``node`` (``-1`` as one literal, not ``1``)."""
    for child in ast.iter_child_nodes(node):
        ok, value = _scalar(child)
        if ok:
            yield child, value
        else:
            yield from _scalars_in(child)


def _roles(tree: ast.Module) -> dict[int, Kind]:
    """The role of literals in telling positions, by node id (the rest are generic)."""
    roles: dict[int, Kind] = {}

    def mark(nodes: Sequence[ast.expr | None], kind: Kind) -> None:
        for node in nodes:
            if node is not None and _scalar(node)[0]:
                roles.setdefault(id(node), kind)

    for node in ast.walk(tree):
        _mark_node(node, mark)
    return roles


def _mark_node(node: ast.AST, mark: _Mark) -> None:
    if isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
        mark(operands, "compare")
        for operand in operands:  # x in ("a", "b")
            if isinstance(operand, (ast.Tuple, ast.List, ast.Set)):
                mark(operand.elts, "compare")
    elif isinstance(node, ast.Dict):
        mark(node.keys, "dict_key")
    elif isinstance(node, ast.Subscript):
        mark([node.slice], "dict_key")
    elif isinstance(node, ast.JoinedStr):
        mark(node.values, "format")
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        if isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
            mark([node.left], "format")
    elif isinstance(node, (*_FUNCS, ast.Lambda)):
        mark([*node.args.defaults, *node.args.kw_defaults], "default")
    elif isinstance(node, ast.Call):
        _mark_call(node, mark)


def is_re_function(func: ast.expr) -> bool:
    """Whether a call of ``func`` is one of ``re``'s that take the pattern first
    (``re.compile(p)``, ``re.sub(p, repl, s)``)."""
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "re"
        and func.attr in _REGEX_FUNCS
    )


def _mark_call(node: ast.Call, mark: _Mark) -> None:
    func = node.func
    if isinstance(func, ast.Attribute):
        if is_re_function(func) and node.args:
            mark([node.args[0]], "regex")
        elif func.attr == "format" and isinstance(func.value, ast.Constant):
            mark([func.value], "format")
        elif func.attr in _LOOKUP_METHODS:
            mark(
                list(node.args),
                "dict_key" if func.attr in {"get", "pop", "setdefault"} else "argument",
            )
    mark(list(node.args), "argument")
    mark([kw.value for kw in node.keywords], "argument")
