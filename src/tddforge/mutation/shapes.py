"""A module's import shape: what runs when it is imported, as a hash (pure, over ``ast``).

Everything but the bodies of functions and methods runs at import (or decides
what does): imports, data, class bodies, signatures, defaults and decorators.
A body counts too when the function ran while the module was imported (the
module calls its own helper). Two texts with the same shape differ only in
function bodies that run when a test calls them, so only the tests that ran
the module can tell them apart. Formatting and comments do not count.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator

from tddforge.mutation.parsed import parsed

Function = ast.FunctionDef | ast.AsyncFunctionDef


def import_shape(source: str, keep: set[str]) -> str:
    """The hash of what runs at import: function bodies left out, except those named in
    ``keep`` (``name`` or ``Class.name``); a text that does not parse has its own hash."""
    try:
        tree = ast.parse(source)  # its own tree: the bodies are cut out below
    except SyntaxError:
        return "unparsable:" + hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
    for name, function in _functions(tree.body, ""):
        if name not in keep:  # its docstring stays: doctests and __doc__ read it
            function.body = (
                [*function.body[:1], ast.Pass()] if _documented(function) else [ast.Pass()]
            )
    return hashlib.sha256(ast.dump(tree).encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _documented(function: Function) -> bool:
    first = function.body[0]
    return isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)


def import_run(source: str, lines: set[int]) -> list[str]:
    """The functions (``name`` or ``Class.name``) whose bodies hold any of ``lines``."""
    try:
        tree = parsed(source)
    except SyntaxError:
        return []
    found = []
    for name, function in _functions(tree.body, ""):
        body = range(function.body[0].lineno, (function.end_lineno or 0) + 1)
        if lines.intersection(body):
            found.append(name)
    return sorted(found)


def _functions(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, Function]]:
    """Functions not inside other functions (methods under their classes' names)."""
    for node in body:
        if isinstance(node, Function):
            yield prefix + node.name, node
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node.body, f"{prefix}{node.name}.")
        else:
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(node, name, None)
                if isinstance(inner, list):
                    yield from _functions([n for n in inner if isinstance(n, ast.stmt)], prefix)
            for handler in getattr(node, "handlers", []):
                yield from _functions(handler.body, prefix)
