"""Module data another file reads while it is imported: rebind cannot switch such a mutant on.

Rebind (``target.rebind``) runs a data mutant's module again in the live
namespace and rebinds the names other modules imported. A value another file
computed from that data while it was imported (a test module's table of cases
``CASES = [(D_DEFAULT, ...)]``, a default argument ``def f(fmt=D_DEFAULT)``)
keeps the unmutated value, where a fresh interpreter would see the mutant:
such mutants are imported fresh. Pure functions over source text.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tddforge.mutation.import_calls import calls_in
from tddforge.mutation.layout import python_files
from tddforge.mutation.parsed import parsed

_SIMPLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def import_time_reads(source: str) -> set[str]:
    """The names (and attribute names) a module's import-time code reads: its top-level
    statements and class bodies, and the decorators, defaults and annotations of its
    functions, not their bodies."""
    try:
        tree = parsed(source)
    except SyntaxError:
        return set()
    found: set[str] = set()
    for statement in tree.body:
        _visit(statement, found)
    return found


def statement_reads(statement: ast.stmt) -> set[str]:
    """What one top-level statement reads while its module is imported (as
    ``import_time_reads`` of its source, without printing and parsing it again)."""
    found: set[str] = set()
    _visit(statement, found)
    return found


def _visit(node: ast.AST, found: set[str]) -> None:
    if isinstance(node, (*_FUNCTIONS, ast.Lambda)):
        for part in _evaluated_at_definition(node):
            _visit(part, found)
        return
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        found.add(node.id)
    elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        found.add(node.attr)
    for child in ast.iter_child_nodes(node):
        _visit(child, found)


def _evaluated_at_definition(node: ast.AST) -> list[ast.AST]:
    args = node.args  # type: ignore[attr-defined]
    parts: list[ast.AST] = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    if isinstance(node, _FUNCTIONS):
        parts += node.decorator_list
        parts += [a.annotation for a in _all_args(args) if a.annotation is not None]
        parts += [node.returns] if node.returns is not None else []
    return parts


def _all_args(args: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *extra]


def data_names(source: str) -> dict[int, set[str]]:
    """Lines of the module's simple top-level statements (assignments and calls), and of the
    module functions such a statement calls, each mapped to the module data it binds or
    changes: the names simple top-level statements assign that it mentions."""
    tree = parsed(source)
    statements = [s for s in tree.body if isinstance(s, _SIMPLE)]
    data = {
        n.id
        for s in statements
        for n in ast.walk(s)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    functions = {f.name: f for f in tree.body if isinstance(f, _FUNCTIONS)}
    found: dict[int, set[str]] = {}
    for statement in statements:
        touched = _names(statement) & data
        call = getattr(statement, "value", None)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
            called = functions.get(call.func.id)
            if called is not None:
                touched |= _names(called) & data
                _spread(found, called, touched)
        _spread(found, statement, touched)
    return found


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _spread(found: dict[int, set[str]], node: ast.AST, names: set[str]) -> None:
    end = getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]
    for line in range(node.lineno, end + 1):  # type: ignore[attr-defined]
        found.setdefault(line, set()).update(names)


def shared_lines(source: str, read_elsewhere: set[str]) -> set[int]:
    """The lines of ``source``'s data statements whose data another file reads at import."""
    return {line for line, names in data_names(source).items() if names & read_elsewhere}


def project_reads(project: Path) -> dict[Path, set[str]]:
    """Each of the project's Python files (resolved), with what its import-time code reads."""
    return project_import_code(project)[0]


def project_import_code(
    project: Path,
) -> tuple[dict[Path, set[str]], dict[Path, list[tuple[int, str, str]]]]:
    """One reading of the project's Python files (resolved): what each file's import-time
    code reads (``project_reads``), and the bare calls it makes, for the files that make
    any (``import_calls.bare_calls``)."""
    reads: dict[Path, set[str]] = {}
    calls: dict[Path, list[tuple[int, str, str]]] = {}
    for path in python_files(project):
        resolved = path.resolve()
        reads[resolved] = set()
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
            tree = parsed(text)
        except (OSError, SyntaxError):
            continue
        for statement in tree.body:
            _visit(statement, reads[resolved])
        if found := calls_in(tree, text):
            calls[resolved] = found
    return reads, calls


def read_by_others(reads: dict[Path, set[str]], module: Path) -> set[str]:
    """What every file but ``module`` reads at import."""
    return set().union(*(names for path, names in reads.items() if path != module))
