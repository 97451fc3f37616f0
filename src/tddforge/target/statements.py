"""A module's top-level statements compiled one by one: a data mutant compiles only its own.

``rebind`` runs a mutated module again in its live namespace. Compiling the whole
mutated source was most of a rebound child's cost (7 of 13 ms of CPU on toolz's
787 lines of signature tables), though a mutant changes one statement. So the
collector compiles the module's statements once, in groups (statements sharing a
line, joined by ``;``, stay together), and a rebound child compiles only the
group holding its mutant, from the mutated source, and runs every group in order.

What differs from running the whole mutated source: the statements after a mutant
that changed the number of lines keep their line numbers (those of the file on
disk, which ``inspect.getsource`` reads). A bare string that is not the module's
first statement is not taken for its docstring.

Each group is compiled knowing which names the module imports, as the whole module
is: from Python 3.11 on, ``module.f(x)`` in a function compiles to other opcodes
when ``module`` is imported in the module, so a class compiled in a group alone
would not be the one the import made, and ``rebind`` would refuse to keep it.
"""

from __future__ import annotations

import ast
import types
from dataclasses import dataclass
from typing import Tuple

from .blocks import first_line, future_flags

Group = Tuple[int, int, types.CodeType]  # first line, last line, the group's code


@dataclass
class Statements:
    """A module's groups of top-level statements, compiled."""

    target: str
    lines: int  # the source's number of newlines
    flags: int  # its ``from __future__`` flags, which every group is compiled with
    groups: list[Group]
    imported: tuple[str, ...] = ()  # the names its imports bind (``imported_names``)

    @classmethod
    def of(cls, source: str, target: str) -> Statements:
        """``source`` parsed and compiled group by group (SyntaxError as ``compile``)."""
        tree = ast.parse(source, target)
        flags = future_flags(tree)
        imported = imported_names(tree)
        spans: list[tuple[int, int, list[ast.stmt]]] = []
        for statement in tree.body:
            first, last = first_line(statement), statement.end_lineno or statement.lineno
            if spans and first <= spans[-1][1]:
                spans[-1] = (spans[-1][0], max(last, spans[-1][1]), [*spans[-1][2], statement])
            else:
                spans.append((first, last, [statement]))
        groups = [
            (first, last, _compiled(body, target, flags, index == 0, imported))
            for index, (first, last, body) in enumerate(spans)
        ]
        lines = source.count("\n")
        return cls(target=target, lines=lines, flags=flags, groups=groups, imported=imported)

    def run(self, mutated: str, first: int, last: int, namespace: dict[str, object]) -> None:
        """Run the module with the group holding lines ``first``..``last`` (the mutant's)
        compiled from ``mutated``; LookupError when no one group holds them."""
        shift = mutated.count("\n") - self.lines
        found = [
            i for i, (start, end, _) in enumerate(self.groups) if start <= first <= last <= end
        ]
        if not found:
            raise LookupError(f"no top-level statement holds lines {first}-{last}")
        index = found[0]
        start, end, _ = self.groups[index]
        # lines as Python counts them: "\n" only (``splitlines`` also splits at a form feed)
        text = "\n".join(mutated.split("\n")[start - 1 : end + shift])
        body = ast.parse("\n" * (start - 1) + text, self.target).body
        code = _compiled(body, self.target, self.flags, index == 0, self.imported)
        for position, (_, _, group) in enumerate(self.groups):
            exec(code if position == index else group, namespace)


def imported_names(tree: ast.Module) -> tuple[str, ...]:
    """The names the module's own imports bind (``import a.b`` binds ``a``), anywhere at
    its top level, a ``try`` or ``if`` included, not inside a function or class."""
    found: set[str] = set()
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
        todo.extend(ast.iter_child_nodes(node))
    return tuple(sorted(found))


def _compiled(
    body: list[ast.stmt], target: str, flags: int, leading: bool, imported: tuple[str, ...] = ()
) -> types.CodeType:
    """A group's code. A bare string first in a group is the module's docstring only when
    the group is the module's first: elsewhere a ``pass`` before it keeps it a string.
    ``imported``: the module's imported names, bound in dead code after the group so that
    the compiler knows them as imports (it then compiles the group as the whole module)."""
    if not leading and _bare_string(body[0]):
        body = [ast.copy_location(ast.Pass(), body[0]), *body]
    if imported:
        dead = ast.If(
            test=ast.Constant(value=False),
            body=[ast.Import(names=[ast.alias(name=n, asname=None) for n in imported])],
            orelse=[],
        )
        for node in ast.walk(dead):
            ast.copy_location(node, body[-1])
        body = [*body, dead]
    module = ast.Module(body=body, type_ignores=[])
    return compile(module, target, "exec", flags=flags, dont_inherit=True)  # type: ignore[no-any-return]


def _bare_string(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )
