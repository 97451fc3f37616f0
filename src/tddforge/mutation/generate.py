"""Walk a module and collect every mutant the operator table proposes.

Besides what ``operators`` skips, some statements are never mutated, since no test
can tell a change apart, or no test runs them: a bare string statement anywhere (a
docstring, or a string left in an enum's body) and an assignment to ``__doc__`` (a
docstring set late); an assignment to names the module uses only in annotations or
under ``if TYPE_CHECKING:`` (``LocalType = Tuple[int, str]``), unless ``__all__``
exports them; a statement coverage.py is told to leave out (``# pragma: no cover`` on
its first line: the whole statement, its body included, as coverage.py does; on an
``else:`` line, the ``else`` branch); and ``__all__`` itself when no module of the
project star-imports this one (``star_imported=False``): then only a star import
elsewhere, or a tool, reads it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from tddforge.mutation.gates import NOT_EVALUATED, Gates, Interpreter, imported_names, same_value
from tddforge.mutation.mutant import DefaultSlot, Mutant, mutant_id
from tddforge.mutation.operators import OPERATORS, Edit, Source
from tddforge.mutation.parsed import parsed

Scope = tuple[str, int] | None  # (function name, co_firstlineno) of the enclosing top-level def


@dataclass
class _Walk:
    src: Source
    found: dict[tuple[tuple[int, int, int, int], str], Mutant]
    typing_only: frozenset[str] = frozenset()
    gates: Gates | None = None
    gate: tuple[ast.expr, Any, bool] | None = None  # the gate being walked, its value, test?
    same_here: list[Mutant] = field(default_factory=list)
    site: _Site | None = None  # the default being walked, of a def run at import

    def visit(self, node: ast.AST, scope: Scope, in_default: bool = False) -> None:
        if _is_docstring(node) or _sets_doc(node) or self._types_only(node):
            return
        if isinstance(node, ast.stmt | ast.ExceptHandler) and self._not_covered(node):
            return
        if self._gate(node, scope, in_default):
            return
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
        elif isinstance(node, ast.If | ast.For | ast.While | ast.Try) and self._else_left_out(node):
            self._apply(node, scope, in_default)
            fields = [f for f in ast.iter_child_nodes(node) if f not in node.orelse]
            self._all(fields, scope, in_default)
        elif not isinstance(node, ast.JoinedStr):
            self._apply(node, scope, in_default)
            for child in ast.iter_child_nodes(node):
                self.visit(child, scope, in_default)

    def body(self, statements: list[ast.stmt], scope: Scope) -> None:
        self._all(statements, scope)

    def _gate(self, node: ast.AST, scope: Scope, in_default: bool) -> bool:
        """Walk ``node`` if it is an interpreter gate, or an ``if`` on one; did it?"""
        if self.gates is None or self.gate is not None:
            return False
        if isinstance(node, ast.expr) and self.gates.known(node):
            self._in_gate(node, scope, in_default, test=False)
            return True
        if isinstance(node, ast.If) and self.gates.known(node.test):
            self._gated_if(node, scope, in_default)
            return True
        return False

    def _in_gate(self, node: ast.expr, scope: Scope, in_default: bool, test: bool) -> None:
        """Walk a gate's expression, leaving out changes that keep its value here."""
        assert self.gates is not None
        self.gate = (node, self.gates.value(node), test)
        try:
            self._apply(node, scope, in_default)
            for child in ast.iter_child_nodes(node):
                self.visit(child, scope, in_default)
        finally:
            self.gate = None

    def _gated_if(self, node: ast.If, scope: Scope, in_default: bool) -> None:
        """An ``if`` on an interpreter gate: its test, and only the branch taken here."""
        assert self.gates is not None
        taken = bool(self.gates.value(node.test))
        self._apply(node, scope, in_default)  # ``not`` inserted: the other branch runs
        self._in_gate(node.test, scope, in_default, test=True)
        self.body(node.body if taken else node.orelse, scope)
        skipped = _Walk(self.src, {}, self.typing_only, self.gates)
        skipped.body(node.orelse if taken else node.body, scope)
        self.same_here += [*skipped.found.values(), *skipped.same_here]

    def _keeps_gate(self, edit: Edit) -> bool:
        """Does ``edit``, inside the gate being walked, leave its value (truth, for a test)?"""
        assert self.gate is not None and self.gates is not None
        node, before, test = self.gate
        start, end = self.src.span(node), edit.span
        if end[:2] < start[:2] or end[2:] > start[2:]:
            return False
        head = self.src.text_of((start[0], start[1], end[0], end[1]))
        tail = self.src.text_of((end[2], end[3], start[2], start[3]))
        try:
            changed = ast.parse(f"({head}{edit.replacement}{tail})", mode="eval").body
            after = self.gates.value(changed)
        except (SyntaxError, *NOT_EVALUATED):
            return False
        return bool(before) == bool(after) if test else same_value(before, after)

    def _not_covered(self, node: ast.stmt | ast.ExceptHandler) -> bool:
        """``# pragma: no cover`` on the statement's first line (or a decorator's)."""
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        return bool({first, node.lineno} & self.src.no_cover)

    def _else_left_out(self, node: ast.If | ast.For | ast.While | ast.Try) -> bool:
        """``else:  # pragma: no cover``: a line between the body and the else branch."""
        if not node.orelse or (isinstance(node.orelse[0], ast.If) and len(node.orelse) == 1):
            return False  # no else, or an elif (whose own line decides)
        last = node.handlers[-1] if isinstance(node, ast.Try) and node.handlers else node.body[-1]
        between = range((last.end_lineno or last.lineno) + 1, node.orelse[0].lineno)
        return bool(self.src.no_cover.intersection(between))

    def _types_only(self, node: ast.AST) -> bool:
        """An assignment whose every target is a name used only for typing."""
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            return False
        return all(isinstance(t, ast.Name) and t.id in self.typing_only for t in targets)

    def _all(self, nodes: Iterable[ast.AST], scope: Scope, in_default: bool = False) -> None:
        for node in nodes:
            self.visit(node, scope, in_default)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> None:
        self._all(node.decorator_list, scope)
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        self._arguments(node.args, scope, None if scope else (node, first))
        self.body(node.body, scope or (node.name, first))

    def _arguments(
        self,
        args: ast.arguments,
        scope: Scope,
        function: tuple[ast.FunctionDef | ast.AsyncFunctionDef, int] | None = None,
    ) -> None:
        """Each default; of a def run at import (``function``: it, and its first line), a
        default's mutants carry where it lives, so that the worker can set it."""
        slots: list[tuple[ast.expr, int | str]] = [(d, i) for i, d in enumerate(args.defaults)]
        slots += [
            (d, a.arg)
            for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
            if d is not None
        ]
        outer = self.site
        for node, slot in slots:
            self.site = None
            if function is not None:
                defined, first = function
                self.site = _Site(defined, first, slot, len(args.defaults), self.src.span(node))
            self.visit(node, scope, in_default=True)
        self.site = outer

    def _apply(self, node: ast.AST, scope: Scope, in_default: bool) -> None:
        for operator in OPERATORS.get(type(node), ()):
            for edit in operator(node, self.src):
                self._add(edit, scope, in_default)

    def _add(self, edit: Edit, scope: Scope, in_default: bool) -> None:
        if edit.span[0] in self.src.no_mutate or (edit.span, edit.replacement) in self.found:
            return
        name = "default_argument" if in_default else edit.operator
        graft = scope is not None and not in_default
        default = self.site.settable(self.src, edit) if in_default and self.site else None
        mutant = Mutant(
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
            reach=edit.reach,
            default=default,
        )
        if self.gate is not None and self._keeps_gate(edit):
            self.same_here.append(mutant)
        else:
            self.found[(edit.span, edit.replacement)] = mutant


@dataclass(frozen=True)
class _Site:
    """A default of a def run at import: the function (its name and first line, decorators
    included, as its code object knows them), its slot (an index into ``__defaults__``,
    or a keyword-only parameter's name), how many positional defaults it has, and the
    default's span."""

    function: ast.FunctionDef | ast.AsyncFunctionDef
    first: int
    slot: int | str
    count: int
    span: tuple[int, int, int, int]

    def settable(self, src: Source, edit: Edit) -> DefaultSlot | None:
        """Where the worker sets the mutated default, when its mutated text is a literal
        (evaluated the same whenever it is: no name to look up, nothing run); else None,
        and the mutant is imported fresh. The original's text goes too when it is a
        literal: the worker sets the default only where the live one is still that."""
        line, col, end_line, end_col = self.span
        before = src.text_of((line, col, *edit.span[:2]))
        after = src.text_of((*edit.span[2:], end_line, end_col))
        text = before + edit.replacement + after
        if not _literal(text.strip()):
            return None
        original = src.text_of(self.span).strip()
        body = self.function.body
        return DefaultSlot(
            name=self.function.name,
            first=self.first,
            slot=self.slot,
            count=self.count,
            value=text.strip(),
            body=(body[0].lineno, self.function.end_lineno or body[-1].lineno),
            original=original if _literal(original) else "",
        )


def _literal(text: str) -> bool:
    """Whether ``text`` is a Python literal (``ast.literal_eval`` takes it)."""
    try:
        ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _is_docstring(statement: ast.AST) -> bool:
    """A bare string statement: a docstring, or a string written where one could be."""
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _sets_doc(statement: ast.AST) -> bool:
    """``f.__doc__ = ...`` or ``__doc__ = ...``: a docstring set after the fact."""
    if not isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
        return False
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return all(
        (isinstance(t, ast.Name) and t.id == "__doc__")
        or (isinstance(t, ast.Attribute) and t.attr == "__doc__")
        for t in targets
    )


def _sets_all(statement: ast.AST) -> bool:
    """``__all__ = ...``, ``__all__ += ...``, ``__all__.extend(...)`` and the like."""
    if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return all(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        func = statement.value.func
        return (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "__all__"
        )
    return False


def _never_under_test(test: ast.expr) -> bool:
    """``if __name__ == "__main__":`` and ``if TYPE_CHECKING:`` never run under tests."""
    return _type_checking(test) or (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


def _type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``."""
    if isinstance(test, ast.Name | ast.Attribute):
        return (test.id if isinstance(test, ast.Name) else test.attr) == "TYPE_CHECKING"
    return False


def typing_only_names(tree: ast.Module, *, exported_too: bool = False) -> frozenset[str]:
    """Names read only in annotations or under ``if TYPE_CHECKING:``, and not in ``__all__``
    (unless ``exported_too``)."""
    typing: set[str] = set()
    runtime: set[str] = set()

    def walk(node: ast.AST, for_typing: bool) -> None:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            (typing if for_typing else runtime).add(node.id)
        for name, child in ast.iter_fields(node):
            typed = for_typing or name in ("annotation", "returns")
            if isinstance(node, ast.If) and name == "body" and _type_checking(node.test):
                typed = True
            for item in child if isinstance(child, list) else [child]:
                if isinstance(item, ast.AST):
                    walk(item, typed)

    walk(tree, False)
    exported = set() if exported_too else exported_names(tree)
    return frozenset(typing - runtime - exported)


def exported_names(tree: ast.Module) -> set[str]:
    """The strings of a module-level ``__all__`` list or tuple."""
    names: set[str] = set()
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            value = node.value
            if isinstance(value, (ast.List, ast.Tuple)):
                names |= {
                    e.value
                    for e in value.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                }
    return names


@dataclass
class Mutants:
    """A module's mutants, and those left out as the same on the interpreter."""

    made: list[Mutant]
    same_here: list[Mutant]


def find_mutants(source: str, star_imported: bool = True) -> list[Mutant]:
    """Every mutant of ``source``, in source order; raises SyntaxError for invalid code.

    ``star_imported``: whether a module star-imports this one (else ``__all__`` is left alone).
    """
    return mutants_of(source, star_imported).made


def mutants_of(
    source: str,
    star_imported: bool = True,
    interpreter: Interpreter | Callable[[], Interpreter | None] | None = None,
) -> Mutants:
    """As ``find_mutants``; with the ``interpreter``'s facts, its gates' mutants that
    cannot change anything there are left out (and listed apart). ``interpreter`` may be
    a function giving the facts: it is called only for a module that could read them."""
    tree = parsed(source)
    gates = None
    if interpreter is not None and imported_names(tree):
        facts = interpreter() if callable(interpreter) else interpreter
        gates = Gates(tree, facts) if facts is not None else None
    walk = _Walk(Source(source), {}, typing_only_names(tree), gates)
    body = tree.body if star_imported else [n for n in tree.body if not _sets_all(n)]
    walk.body(body, None)
    return Mutants(_ordered(walk.found.values()), _ordered(walk.same_here))


def _ordered(mutants: Iterable[Mutant]) -> list[Mutant]:
    return sorted(mutants, key=lambda m: (m.line, m.col, m.end_line, m.end_col, m.id))
