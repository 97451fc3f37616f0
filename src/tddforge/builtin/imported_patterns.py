"""Regexes a module takes from a sibling module, as inputs for the code that matches them.

pypinyin's converter only converts text its ``RE_HANS.match(words)`` accepts, and
``RE_HANS`` is compiled in ``pypinyin/constants.py``. Mining the module's own
literals never sees that pattern, so no input ever held a Chinese character. This
reads the sibling modules the module imports names from, finds their top-level
``NAME = re.compile("...")`` (also under an ``if`` or ``try``, as a pattern chosen
by the interpreter's build is), and gives each scope that calls a regex method on
such a name (``RE_HANS.match``, ``constants.WORD.sub``) the pattern and a string it
matches (``regex_example``), as its own regexes are given. Pure: source text in,
constants by scope out; a sibling's source is asked for by name.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from tddforge.builtin.constants import Constant, scope_bodies, with_example
from tddforge.builtin.sized import sibling_imports
from tddforge.builtin.usage import REGEX_METHODS

_BLOCKS = (ast.If, ast.Try)


def imported_patterns(
    source: str, sibling: Callable[[str], str | None], package: str = ""
) -> dict[str, tuple[Constant, ...]]:
    """Per scope, each sibling's regex it calls a method of: the pattern (kind ``regex``)
    and an example it matches (``regex_match``), when one can be made."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    patterns = _imported(tree, sibling, package)
    if not patterns:
        return {}
    found: dict[str, tuple[Constant, ...]] = {}
    for scope, body in scope_bodies(tree):
        used = [patterns[name] for name in _regex_users(body) if name in patterns]
        constants = [c for p in dict.fromkeys(used) for c in with_example(Constant(p, "regex"))]
        if constants:
            found[scope] = tuple(constants)
    return found


def _imported(
    tree: ast.Module, sibling: Callable[[str], str | None], package: str
) -> dict[str, str]:
    """The patterns the module's imported names stand for: ``RE_HANS`` or ``constants.WORD``."""
    found: dict[str, str] = {}
    parsed: dict[str, dict[str, str]] = {}
    for local, module, name in sibling_imports(tree, package):
        if module not in parsed:
            parsed[module] = _compiled(sibling(module))
        compiled = parsed[module]
        if name is None:
            found.update({f"{local}.{k}": v for k, v in compiled.items()})
        elif name in compiled:
            found[local] = compiled[name]
    return found


def _compiled(source: str | None) -> dict[str, str]:
    """A module's top-level ``NAME = re.compile("...")``, the first of each name."""
    if source is None:
        return {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, str] = {}
    for node in _top_level(tree.body):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Name) and isinstance(value, ast.Call) and _is_compile(value):
            first = value.args[0] if value.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                found.setdefault(target.id, first.value)
    return found


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for node in body:
        yield node
        if isinstance(node, _BLOCKS):
            for block in (node.body, node.orelse, *_handler_bodies(node)):
                yield from _top_level(block)
            if isinstance(node, ast.Try):
                yield from _top_level(node.finalbody)


def _handler_bodies(node: ast.stmt) -> list[list[ast.stmt]]:
    return [h.body for h in node.handlers] if isinstance(node, ast.Try) else []


def _is_compile(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr == "compile" and isinstance(func.value, ast.Name) and func.value.id == "re"
    return isinstance(func, ast.Name) and func.id == "compile"


def _regex_users(body: list[ast.AST]) -> Iterator[str]:
    """The names (``RE_HANS``, ``constants.WORD``) whose regex methods ``body`` calls."""
    for statement in body:
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            if node.func.attr not in REGEX_METHODS:
                continue
            owner = node.func.value
            if isinstance(owner, ast.Name):
                yield owner.id
            elif isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name):
                yield f"{owner.value.id}.{owner.attr}"
