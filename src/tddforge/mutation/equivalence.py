"""Survivors that are likely equivalent: changes a test can seldom or never tell apart (pure).

A rule looks at one surviving mutant in its module and, when the change is of a
kind that rarely alters behaviour, says why. Such a survivor is still a survivor
(the scores count it); reports mark it, and the cover loop leaves it out of what it
asks the model to kill. The rules:

* ``split``/``rsplit``'s ``maxsplit`` raised by one (``s.split("+", 1)`` →
  ``s.split("+", 2)``): the result differs only on a string holding more separators
  than the original limit, which the code often cannot receive;
* an assignment to a name that ``__all__`` exports but the module reads only in
  annotations (names not exported are never mutated: see ``generate``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from tddforge.mutation.generate import typing_only_names
from tddforge.mutation.mutant import Mutant

Rule = Callable[[Mutant, ast.Module], "str | None"]


def likely_equivalent(mutants: list[Mutant], source: str) -> dict[str, str]:
    """Mutant id → why it is likely equivalent, for those of ``mutants`` a rule matches."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found = {}
    for mutant in mutants:
        for rule in RULES:
            reason = rule(mutant, tree)
            if reason:
                found[mutant.id] = reason
                break
    return found


def _at(node: ast.AST, mutant: Mutant) -> bool:
    """Does ``node`` start where the mutant does? (Columns: ASCII lines assumed; a
    mismatch only misses a mark.)"""
    return (getattr(node, "lineno", None), getattr(node, "col_offset", None)) == (
        mutant.line,
        mutant.col,
    )


def _split_limit(call: ast.Call) -> ast.expr | None:
    if call.args[1:2]:
        return call.args[1]
    return next((k.value for k in call.keywords if k.arg == "maxsplit"), None)


def maxsplit_raised(mutant: Mutant, tree: ast.Module) -> str | None:
    """``s.split(sep, n)`` → ``s.split(sep, n + 1)``, for n ≥ 1."""
    if mutant.operator != "number":
        return None
    for call in _calls(tree, ("split", "rsplit")):
        limit = _split_limit(call)
        if limit is None or not _at(limit, mutant) or not isinstance(limit, ast.Constant):
            continue
        n = limit.value
        if isinstance(n, int) and n >= 1 and mutant.replacement == str(n + 1):
            sep = ast.unparse(call.args[0]) if call.args else "whitespace"
            method = call.func.attr  # type: ignore[attr-defined]
            return (
                f"{method}'s maxsplit raised from {n} to {n + 1}: the result differs only on"
                f" a string holding {n + 1} or more {sep}; equivalent if none reaches this line"
            )
    return None


def _calls(tree: ast.Module, methods: tuple[str, ...]) -> Iterator[ast.Call]:
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in methods
        ):
            yield node


def exported_type_alias(mutant: Mutant, tree: ast.Module) -> str | None:
    """An assignment to a name ``__all__`` exports that the module reads only in annotations."""
    names = typing_only_names(tree, exported_too=True)
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        inside = node.value.lineno <= mutant.line <= (node.value.end_lineno or 0)
        named = [t.id for t in targets if isinstance(t, ast.Name)]
        if inside and named and len(named) == len(targets) and set(named) <= names:
            return (
                f"{', '.join(named)} is read only in type annotations here (other modules may"
                " read it: __all__ exports it)"
            )
    return None


RULES: tuple[Rule, ...] = (maxsplit_raised, exported_type_alias)
