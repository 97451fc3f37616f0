"""Calls another file makes into a module while it is imported: rebind runs them again.

A package's ``__init__`` often finishes one of its modules' setup with a bare
call: ``functoolz._sigs.create_signature_registry()`` fills a registry from the
module's tables, a ``register_defaults()`` fills a plugin table. Running the
module's source again (``target.rebind``) empties that registry, and a fresh
import would have filled it again from the mutated tables; so the worker
runs these statements again after a rebind, and counts them when it checks
whether the module's data drifted. Pure functions over source text: which
call really lands in the module is decided in the worker, by what the called
name is there.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tddforge.mutation.parsed import parsed
from tddforge.target.protocol import Replay


def bare_calls(source: str) -> list[tuple[int, str, str]]:
    """The module's top-level statements that are a call and nothing else, in source order:
    (line, the statement's text, the called name: ``f`` of ``f(...)`` or ``a.b.f(...)``)."""
    try:
        tree = parsed(source)
    except SyntaxError:
        return []
    return calls_in(tree, source)


def calls_in(tree: ast.Module, source: str) -> list[tuple[int, str, str]]:
    """``bare_calls`` of the module ``source`` parsed as ``tree``."""
    found = []
    for statement in tree.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        text = ast.get_source_segment(source, statement)
        if name and text:
            found.append((statement.lineno, text, name))
    return found


def functions_of(source: str) -> set[str]:
    """The names of the module's top-level functions."""
    try:
        tree = parsed(source)
    except SyntaxError:
        return set()
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    return {node.name for node in tree.body if isinstance(node, kinds)}


def calls_into(
    calls: dict[Path, list[tuple[int, str, str]]], module: Path, source: str
) -> list[Replay]:
    """The bare calls of every file but ``module`` that name one of its top-level
    functions: those the worker may have to run again after rebinding it."""
    names = functions_of(source)
    return [
        Replay(file=str(path), line=line, source=text, name=name)
        for path, found in calls.items()
        if path != module
        for line, text, name in found
        if name in names
    ]
