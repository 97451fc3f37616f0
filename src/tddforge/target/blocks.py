"""A graft mutant's function compiled alone: the same code object a whole-module compile gives.

Compiling the mutated module (or its whole enclosing class) for every mutant
costs more than running the test that kills it. ``Blocks`` compiles only the
function the mutant lies in (a top-level function, or a method, however deep
its classes nest), at its own lines and columns, under stand-in headers for
the statements around it (``class Name:`` for each enclosing class, so names
are mangled and ``super()`` gets its ``__class__`` cell as in the module;
``if 1:`` for any other block), with the module's ``__future__`` flags.
"""

from __future__ import annotations

import ast
import types
from typing import Tuple

from .protocol import MutantRecord
from .source import mutated_lines

Key = Tuple[str, int]  # (co_name, co_firstlineno) of a graft scope
Header = Tuple[int, str]  # (column, stand-in header) of an enclosing statement


def find_code(code: types.CodeType, name: str, firstlineno: int) -> types.CodeType | None:
    """The code object named ``name`` starting at ``firstlineno``, searched depth first."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name and const.co_firstlineno == firstlineno:
                return const
            found = find_code(const, name, firstlineno)
            if found is not None:
                return found
    return None


def replace_code(code: types.CodeType, key: Key, new: types.CodeType) -> types.CodeType | None:
    """``code`` with the code object at ``key`` (searched depth first) replaced by ``new``;
    None when there is none."""
    consts = list(code.co_consts)
    for index, const in enumerate(consts):
        if not isinstance(const, types.CodeType):
            continue
        if (const.co_name, const.co_firstlineno) == key:
            consts[index] = new
            return code.replace(co_consts=tuple(consts))
        inner = replace_code(const, key, new)
        if inner is not None:
            consts[index] = inner
            return code.replace(co_consts=tuple(consts))
    return None


class Blocks:
    """Compiles a graft mutant's function alone, not the whole module."""

    def __init__(self, source: str, offsets: list[int]):
        self.source = source
        self.offsets = offsets
        tree = ast.parse(source)
        self.flags = future_flags(tree)
        self.scopes: dict[Key, tuple[int, int, list[Header]]] = {}  # first, last line, headers
        self.statements: list[tuple[int, int]] = []  # each top-level statement's lines
        for node in tree.body:
            self.statements.append((first_line(node), node.end_lineno or node.lineno))
        self._index(tree.body, [])

    def _index(self, body: list[ast.stmt], headers: list[Header]) -> None:
        """Every function not inside another function, with its stand-in headers."""
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = first_line(node)
                if len(headers) < first and all(h[0] < node.col_offset for h in headers):
                    self.scopes[(node.name, first)] = (first, node.end_lineno or first, headers)
            elif isinstance(node, ast.ClassDef):
                self._index(node.body, [*headers, (node.col_offset, f"class {node.name}:")])
            else:
                for name in ("body", "orelse", "finalbody", "handlers"):
                    inner = getattr(node, name, None)
                    if isinstance(inner, list):
                        self._index(
                            [n for n in inner if isinstance(n, ast.stmt)] or _handler_bodies(inner),
                            [*headers, (node.col_offset, "if 1:")],
                        )

    def compile(self, m: MutantRecord, target: str) -> types.CodeType:
        """The code holding the mutated function (raises ValueError if the mutant does not
        match the source; LookupError if it is in no function or statement)."""
        scope = self.scopes.get((m["graft_name"], m["graft_firstlineno"]))
        if scope is None or not (scope[0] <= m["line"] and m["end_line"] <= scope[1]):
            return self._statement(m, target)
        first, last, headers = scope
        text = self._mutated_lines(m, first, last)
        stand_ins = "".join(" " * column + header + "\n" for column, header in headers)
        padding = "\n" * (first - 1 - len(headers))
        return self._compiled(padding + stand_ins + text, target)

    def _statement(self, m: MutantRecord, target: str) -> types.CodeType:
        """The mutant's whole top-level statement, compiled at its own lines."""
        for start, end in self.statements:
            if start <= m["line"] and m["end_line"] <= end:
                return self._compiled(
                    "\n" * (start - 1) + self._mutated_lines(m, start, end), target
                )
        raise LookupError(f"mutant {m['id']} is in no top-level statement")

    def _mutated_lines(self, m: MutantRecord, first: int, last: int) -> str:
        return mutated_lines(self.source, self.offsets, m, first, last)

    def _compiled(self, text: str, target: str) -> types.CodeType:
        code: types.CodeType = compile(text, target, "exec", flags=self.flags, dont_inherit=True)
        return code


def first_line(node: ast.stmt) -> int:
    """A statement's first line, its decorators' included."""
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decorators])


def future_flags(tree: ast.Module) -> int:
    """The compiler flags of a module's ``from __future__`` imports."""
    import __future__

    flags = 0
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
            for alias in statement.names:
                flags |= getattr(getattr(__future__, alias.name, None), "compiler_flag", 0)
    return flags


def _handler_bodies(handlers: list[object]) -> list[ast.stmt]:
    """The statements of ``except`` clauses (whose own nodes are not statements)."""
    found: list[ast.stmt] = []
    for handler in handlers:
        found += getattr(handler, "body", [])
    return found
