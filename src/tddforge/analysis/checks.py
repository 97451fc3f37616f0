"""What each test checks, read statically, through the helpers it calls in its own file.

A test often asserts through a helper of its file (``_assert_ordering(a, b)``, or
``self.check_round_trip(x)`` in a ``TestCase``). ``reached`` gives, per test, the
functions whose bodies run as part of it: the test itself and every helper it calls
by name, transitively (module-level functions; methods of its own class, of the
classes it derives from in the file, or of a class named explicitly). ``observables``
names the behaviours a test checks that coverage cannot see: the exception and
warning types it expects, and the module's public functions, classes and methods it
calls. Pure: source in, facts out.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

Function = ast.FunctionDef | ast.AsyncFunctionDef
EXPECTS = {
    "raises": "raises",
    "assertRaises": "raises",
    "assertRaisesRegex": "raises",
    "warns": "warns",
    "assertWarns": "warns",
    "assertWarnsRegex": "warns",
}


def test_functions(tree: ast.Module) -> Iterator[tuple[str, Function]]:
    """``(Class::name or name, node)`` for each test function, pytest and unittest style."""
    funcs = (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in tree.body:
        if isinstance(node, funcs) and node.name.startswith("test"):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, funcs) and item.name.startswith("test"):
                    yield f"{node.name}::{item.name}", item


@dataclass
class _Index:
    """The file's functions by name, and its classes' methods and bases."""

    functions: dict[str, Function] = field(default_factory=dict)
    methods: dict[str, dict[str, Function]] = field(default_factory=dict)
    bases: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, tree: ast.Module) -> _Index:
        index = cls()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                index.functions[node.name] = node
            elif isinstance(node, ast.ClassDef):
                index.methods[node.name] = {
                    item.name: item
                    for item in node.body
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                }
                index.bases[node.name] = [b.id for b in node.bases if isinstance(b, ast.Name)]
        return index

    def method(self, owner: str, name: str) -> tuple[str, Function] | None:
        """``owner``'s method ``name``, or the one of a base class defined in the file."""
        todo, seen = [owner], set()
        while todo:
            current = todo.pop(0)
            if current in seen or current not in self.methods:
                continue
            seen.add(current)
            if name in self.methods[current]:
                return current, self.methods[current][name]
            todo += self.bases.get(current, [])
        return None

    def callee(self, call: ast.Call, owner: str | None) -> tuple[str | None, Function] | None:
        """The function of this file that ``call`` runs, with its class; None for others."""
        func = call.func
        if isinstance(func, ast.Name) and func.id in self.functions:
            return None, self.functions[func.id]
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            holder = func.value.id
            if holder in ("self", "cls") and owner is not None:
                return self.method(owner, func.attr)
            if holder in self.methods:
                return self.method(holder, func.attr)
        return None


def reached(tree: ast.Module) -> dict[str, list[Function]]:
    """Per test key: the test and every helper of the file it calls, transitively."""
    index = _Index.of(tree)
    found: dict[str, list[Function]] = {}
    for key, node in test_functions(tree):
        owner = key.split("::")[0] if "::" in key else None
        found[key] = _reach(node, owner, index)
    return found


def _reach(start: Function, owner: str | None, index: _Index) -> list[Function]:
    todo: list[tuple[Function, str | None]] = [(start, owner)]
    seen: dict[int, Function] = {}
    while todo:
        node, cls = todo.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
            callee = index.callee(call, cls)
            if callee is not None:
                todo.append((callee[1], callee[0]))
    return list(seen.values())


def public_api(module_source: str) -> frozenset[str]:
    """The module's public top-level functions and classes, and its classes' public methods."""
    try:
        tree = ast.parse(module_source)
    except SyntaxError:
        return frozenset()
    names: set[str] = set()
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for node in tree.body:
        if isinstance(node, kinds) and not node.name.startswith("_"):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            names |= {
                item.name
                for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                and not item.name.startswith("_")
            }
    return frozenset(names)


def observables(test_source: str, module_source: str) -> dict[str, frozenset[str]]:
    """Per test key, what it checks that coverage does not show: ``raises X``, ``warns X``
    (the types it expects) and ``calls f`` (the module's public names it calls)."""
    try:
        tree = ast.parse(test_source)
    except SyntaxError:
        return {}
    api = public_api(module_source)
    return {
        key: frozenset(tag for func in funcs for tag in _tags(func, api))
        for key, funcs in reached(tree).items()
    }


def _tags(func: Function, api: frozenset[str]) -> Iterator[str]:
    for call in (n for n in ast.walk(func) if isinstance(n, ast.Call)):
        name = called_name(call)
        if name in EXPECTS and call.args:
            first = call.args[0]
            kinds = first.elts if isinstance(first, ast.Tuple) else [first]
            for kind in kinds:
                yield f"{EXPECTS[name]} {ast.unparse(kind).rsplit('.', 1)[-1]}"
        elif name in api:
            yield f"calls {name}"


def called_name(call: ast.Call) -> str | None:
    """The name a call is made through: ``f`` for ``f(...)`` and ``x.f(...)``."""
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    if isinstance(call.func, ast.Name):
        return call.func.id
    return None
