"""Walk a module and collect every mutant the operator table proposes."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from tddforge.mutation.mutant import Mutant, mutant_id
from tddforge.mutation.operators import OPERATORS, Edit, Source

Scope = tuple[str, int] | None  # (function name, co_firstlineno) of the enclosing top-level def


@dataclass
class _Walk:
    src: Source
    found: dict[tuple[tuple[int, int, int, int], str], Mutant]

    def visit(self, node: ast.AST, scope: Scope, in_default: bool = False) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._function(node, scope)
        elif isinstance(node, ast.Lambda):
            self._arguments(node.args, scope)
            self.visit(node.body, scope, in_default)
        elif isinstance(node, ast.ClassDef):
            self._all([*node.decorator_list, *node.bases, *node.keywords], scope)
            self.body(node.body, scope)
        elif isinstance(node, ast.AnnAssign):
            self._apply(node, scope, in_default)
            self._all([node.target, *([node.value] if node.value else [])], scope)
        elif isinstance(node, ast.If) and _never_under_test(node.test):
            self.body(node.orelse, scope)
        elif not isinstance(node, ast.JoinedStr):
            self._apply(node, scope, in_default)
            for child in ast.iter_child_nodes(node):
                self.visit(child, scope, in_default)

    def body(self, statements: list[ast.stmt], scope: Scope) -> None:
        start = 1 if statements and _is_docstring(statements[0]) else 0
        self._all(statements[start:], scope)

    def _all(self, nodes: Iterable[ast.AST], scope: Scope, in_default: bool = False) -> None:
        for node in nodes:
            self.visit(node, scope, in_default)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> None:
        self._all(node.decorator_list, scope)
        self._arguments(node.args, scope)
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        self.body(node.body, scope or (node.name, first))

    def _arguments(self, args: ast.arguments, scope: Scope) -> None:
        defaults = [d for d in (*args.defaults, *args.kw_defaults) if d is not None]
        self._all(defaults, scope, in_default=True)

    def _apply(self, node: ast.AST, scope: Scope, in_default: bool) -> None:
        for operator in OPERATORS.get(type(node), ()):
            for edit in operator(node, self.src):
                self._add(edit, scope, in_default)

    def _add(self, edit: Edit, scope: Scope, in_default: bool) -> None:
        if edit.span[0] in self.src.no_mutate or (edit.span, edit.replacement) in self.found:
            return
        name = "default_argument" if in_default else edit.operator
        graft = scope is not None and not in_default
        self.found[(edit.span, edit.replacement)] = Mutant(
            id=mutant_id(name, edit.span, edit.replacement),
            operator=name,
            line=edit.span[0],
            col=edit.span[1],
            end_line=edit.span[2],
            end_col=edit.span[3],
            original=self.src.text_of(edit.span),
            replacement=edit.replacement,
            strategy="graft" if graft else "fresh",
            graft_name=scope[0] if graft and scope else "",
            graft_firstlineno=scope[1] if graft and scope else 0,
        )


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _never_under_test(test: ast.expr) -> bool:
    """``if __name__ == "__main__":`` and ``if TYPE_CHECKING:`` never run under tests."""
    if isinstance(test, ast.Name | ast.Attribute):
        return (test.id if isinstance(test, ast.Name) else test.attr) == "TYPE_CHECKING"
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


def find_mutants(source: str) -> list[Mutant]:
    """Every mutant of ``source``, in source order; raises SyntaxError for invalid code."""
    tree = ast.parse(source)
    walk = _Walk(Source(source), {})
    walk.body(tree.body, None)
    return sorted(walk.found.values(), key=lambda m: (m.line, m.col, m.end_line, m.end_col, m.id))
