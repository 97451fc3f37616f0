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
from collections.abc import Callable
from functools import cached_property

from tddforge.mutation.generate import typing_only_names
from tddforge.mutation.mutant import Mutant
from tddforge.mutation.parsed import parsed


class Facts:
    """What the rules read of one module, each found once however many survivors ask
    (a module can have hundreds)."""

    def __init__(self, tree: ast.Module):
        self.tree = tree

    @cached_property
    def split_calls(self) -> list[ast.Call]:
        """Every ``x.split(...)`` and ``x.rsplit(...)``."""
        return [
            node
            for node in ast.walk(self.tree)
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("split", "rsplit")
        ]

    @cached_property
    def alias_assignments(self) -> list[tuple[int, int, list[str]]]:
        """(first, last line of the value, names) of each assignment whose targets are all
        names the module reads only in annotations (``__all__`` may export them)."""
        names = typing_only_names(self.tree, exported_too=True)
        found = []
        for node in ast.walk(self.tree):
            if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            named = [t.id for t in targets if isinstance(t, ast.Name)]
            if named and len(named) == len(targets) and set(named) <= names:
                found.append((node.value.lineno, node.value.end_lineno or 0, named))
        return found


Rule = Callable[[Mutant, Facts], "str | None"]


def likely_equivalent(mutants: list[Mutant], source: str) -> dict[str, str]:
    """Mutant id → why it is likely equivalent, for those of ``mutants`` a rule matches."""
    try:
        facts = Facts(parsed(source))
    except SyntaxError:
        return {}
    found = {}
    for mutant in mutants:
        for rule in RULES:
            reason = rule(mutant, facts)
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


def maxsplit_raised(mutant: Mutant, facts: Facts) -> str | None:
    """``s.split(sep, n)`` → ``s.split(sep, n + 1)``, for n ≥ 1."""
    if mutant.operator != "number":
        return None
    for call in facts.split_calls:
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


def exported_type_alias(mutant: Mutant, facts: Facts) -> str | None:
    """An assignment to a name ``__all__`` exports that the module reads only in annotations."""
    for first, last, named in facts.alias_assignments:
        if first <= mutant.line <= last:
            return (
                f"{', '.join(named)} is read only in type annotations here (other modules may"
                " read it: __all__ exports it)"
            )
    return None


RULES: tuple[Rule, ...] = (maxsplit_raised, exported_type_alias)
