"""How far a mutant of import-time code can reach: the names it can change (pure, over text).

A mutant in a module's top-level statement, a class body, a default or a
decorator changes what that statement binds. From there the change spreads
to whatever else is computed from those names while modules are imported:
in the mutated module, any top-level statement mentioning them (a function
counts by its whole body, since calling it reads them); in every other file
of the project, its import-time code (``from m import NAME``, ``Y = f(NAME)``,
a class body, a default). The names so reached, and the test files that
mention one of them or look names up dynamically, go to the worker
(``target.observe``), which adds the tests that ran a line mentioning one.

Where the spread cannot be bounded by names, the mutant keeps every test:
a bare call at import time into code outside the mutated module (it may
register the data anywhere), or a conftest mentioning one of the names. A
call that binds its result (``Y = register(NAME)``) is taken to change
``Y`` only; a registry filled that way is the case this analysis misses,
and ``tddforge mutate --verify`` (every test against every mutant) shows it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from tddforge.mutation.import_reads import statement_reads
from tddforge.mutation.parsed import parsed
from tddforge.target.observe import (
    code_words,
    connected,
    import_name,
    import_words,
    reflective,
    words,
)
from tddforge.target.protocol import Observe

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Unit:
    """One top-level statement: its lines, the names it binds and those it reads.

    ``callee``: for a bare call statement, the name of what it calls (the last
    part of ``a.b.f``), else empty.
    """

    first: int
    last: int
    binds: frozenset[str]
    reads: frozenset[str]
    callee: str = ""
    receiver: str = ""  # for a bare call ``x.f(...)``: ``x`` (the last part of ``a.x``)
    function: str = ""  # a def's name
    assigns: bool = False  # an assignment: what it binds is the module's data


@dataclass
class ProjectText:
    """What the analysis needs of the project's other files, read once per run."""

    units: dict[str, list[Unit]] = field(default_factory=dict)  # file -> import-time units
    tests: dict[str, set[str]] = field(default_factory=dict)  # test file -> its words
    dynamic_tests: set[str] = field(default_factory=set)  # test files looking names up
    others: dict[str, set[str]] = field(default_factory=dict)  # other file -> words (+ dynamic)
    conftests: dict[str, set[str]] = field(default_factory=dict)  # conftest -> its words
    # every file -> the names its imports mention (None: it may import anything)
    imports: dict[str, set[str] | None] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # every file -> its import name


def module_units(source: str) -> list[Unit]:
    """The mutated module's top-level statements; a function or class reads its whole body."""
    tree = parsed(source)
    return [_unit(statement, _all_names(statement)) for statement in tree.body]


def import_time_units(source: str) -> list[Unit]:
    """Another file's top-level statements, each with what it reads while imported."""
    try:
        tree = parsed(source)
    except SyntaxError:
        return []
    return [_unit(s, statement_reads(s) | _imported(s)) for s in tree.body]


def _unit(statement: ast.stmt, reads: set[str]) -> Unit:
    callee = receiver = ""
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        func = statement.value.func
        callee = _last_name(func) or "?"
        receiver = _receiver(func.value) if isinstance(func, ast.Attribute) else ""
    return Unit(
        first=min(
            [statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", []))]
        ),
        last=statement.end_lineno or statement.lineno,
        binds=frozenset(_binds(statement)),
        reads=frozenset(reads),
        callee=callee,
        receiver=receiver,
        function=statement.name if isinstance(statement, _FUNCTIONS) else "",
        assigns=isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)),
    )


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _receiver(node: ast.expr) -> str:
    """Whose method a call runs: ``x`` of ``x.f``, ``a.x.f``, ``x[k].f``."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return _last_name(node)


def _imported(statement: ast.stmt) -> set[str]:
    """What ``from m import a, b`` reads of ``m``."""
    if isinstance(statement, ast.ImportFrom):
        return {a.name for a in statement.names}
    return set()


def _all_names(node: ast.AST) -> set[str]:
    found: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            found.add(child.id)
        elif isinstance(child, ast.Attribute):
            found.add(child.attr)
        elif isinstance(child, (*_FUNCTIONS, ast.ClassDef)) and child is not node:
            found.add(child.name)
    return found


def _binds(statement: ast.stmt) -> set[str]:
    """The names a top-level statement binds or changes: a def's or class's name (a class's
    own attributes and methods too), assignment targets (the attribute of ``x.attr = ...``
    and the container of ``x[k] = ...`` too), imports, and the names a bare call mentions."""
    if isinstance(statement, (*_FUNCTIONS,)):
        return {statement.name}
    if isinstance(statement, ast.ClassDef):
        inner = {n for s in statement.body for n in _binds(s)}
        return {statement.name} | inner
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in statement.names if a.name != "*"}
    if isinstance(statement, ast.Expr):
        call = statement.value
        if isinstance(call, ast.Call):
            return {n for a in [*call.args, *call.keywords] for n in _all_names(a)}
        return _all_names(statement)
    found: set[str] = set()
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.add(node.id)
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(
            node.ctx, (ast.Store, ast.Del)
        ):
            found |= _all_names(node.value)
            if isinstance(node, ast.Attribute):
                found.add(node.attr)
        elif isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return found


def reached_names(units: list[Unit], line: int, elsewhere: list[list[Unit]]) -> set[str] | None:
    """The names a change at ``line`` of the module with top-level ``units`` can reach, or
    None when it cannot be bounded by names (``elsewhere``: other files' import-time units)."""
    return Reach(units, elsewhere).names(line)


class Reach:
    """The spread of changes through one module's statements and the project's import-time
    code, indexed once by the names each statement reads.

    A bare call changes what it passes, and: for one of the module's own functions, the
    module's names that function mentions; for a method of the module's data
    (``RULES.append``), that data. A bare call of anything else that reads a reached name
    is unbounded.
    """

    def __init__(self, units: list[Unit], elsewhere: list[list[Unit]]):
        self.units = units
        bound = {n for u in units for n in u.binds}
        self.bodies = {u.function: u.reads & bound for u in units if u.function}
        self.data = {n for u in units if u.assigns for n in u.binds}
        self.readers: dict[str, list[Unit]] = {}
        for unit in [*units, *(u for file in elsewhere for u in file)]:
            for name in unit.reads:
                self.readers.setdefault(name, []).append(unit)

    def names(self, line: int) -> set[str] | None:
        """What a change at ``line`` can reach (None: unbounded)."""
        start = next((u for u in self.units if u.first <= line <= u.last), None)
        if start is None:
            return None
        names: set[str] = set()
        queue, done = [start], set()
        while queue:
            unit = queue.pop()
            if id(unit) in done:
                continue
            done.add(id(unit))
            changed = _changes(unit, self.bodies, self.data)
            if changed is None:
                return None  # a call into other code while importing: it may keep data anywhere
            new = changed - names
            names |= new
            for name in new:
                queue.extend(self.readers.get(name, ()))
        return names


def _changes(
    unit: Unit, bodies: dict[str, frozenset[str]], data: set[str]
) -> frozenset[str] | None:
    """What running ``unit`` changes (None: unbounded)."""
    if not unit.callee:
        return unit.binds
    if unit.callee in bodies:
        return unit.binds | bodies[unit.callee]
    if unit.receiver in data:
        return unit.binds | {unit.receiver}
    return None


def read_project(
    root: Path, files: list[Path], test_files: list[Path], targets: list[Path]
) -> ProjectText:
    """Read the project's Python files once: import-time units of every file, the words of
    test files, conftests and other (non-target) files."""

    text = ProjectText()
    tests = {p.resolve() for p in test_files}
    mutated = {p.resolve() for p in targets}
    for path in files:
        resolved = path.resolve()
        rel = resolved.relative_to(root).as_posix()
        try:
            source = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        text.units[rel] = import_time_units(source)
        text.imports[rel] = import_words(source, _tree(source))
        text.names[rel] = import_name(rel)
        if resolved in mutated:
            continue
        if resolved in tests:
            text.tests[rel] = code_words(source)
            if reflective(source):
                text.dynamic_tests.add(rel)
        elif path.name == "conftest.py":
            text.conftests[rel] = code_words(source)
        else:
            runtime = _runtime_code(source)
            found = words(runtime)
            if reflective(runtime):
                found.add("\0dynamic")
            text.others[rel] = found
    return text


def _tree(source: str) -> ast.Module | None:
    """``source`` parsed (the cached tree ``import_time_units`` read), or None."""
    try:
        return parsed(source)
    except SyntaxError:
        return None


def _runtime_code(source: str) -> str:
    """The text of a file's function bodies: what runs after it was imported (its import-time
    code is followed by ``reached_names``)."""
    try:
        tree = parsed(source)
    except SyntaxError:
        return source
    parts = [
        ast.unparse(body)
        for node in ast.walk(tree)
        if isinstance(node, (*_FUNCTIONS, ast.Lambda))
        for body in (node.body if isinstance(node.body, list) else [node.body])
    ]
    return "\n".join(parts)


def observe(
    source: str, rel: str, lines: list[int], text: ProjectText
) -> dict[int, Observe | None]:
    """For each of ``lines`` of the module ``rel`` (its ``source``), what can see a change
    there, or None (every test)."""
    units = module_units(source)
    reach = Reach(units, [found for f, found in text.units.items() if f != rel])
    text.imports.setdefault(rel, None)
    text.names.setdefault(rel, import_name(rel))
    reaching = connected(rel, text.imports, text.names)
    found: dict[int, Observe | None] = {}
    by_unit: dict[int, Observe | None] = {}
    for line in lines:
        start = next((u for u in units if u.first <= line <= u.last), None)
        key = start.first if start is not None else -line
        if key not in by_unit:
            by_unit[key] = _observe(reach.names(line), text, reaching)
        found[line] = by_unit[key]
    return found


def _observe(
    names: set[str] | None, text: ProjectText, reaching: tuple[set[str], set[str]]
) -> Observe | None:
    """What can see a change reaching ``names``: test files mentioning one of them, or the
    name of another file that does (or that looks names up dynamically and imports the
    mutated module, ``reaching``: those files and their import names), or looking names up
    dynamically themselves with an import of one of those files."""
    if names is None or any(names & w for w in text.conftests.values()):
        return None
    reached, reached_names = reaching
    via: set[str] = set()
    for rel, found in text.others.items():
        if names & found or ("\0dynamic" in found and rel in reached):
            via.add(text.names[rel])
    files = [
        rel
        for rel, found in text.tests.items()
        if (rel in text.dynamic_tests and reached_names & found) or (names | via) & found
    ]
    return Observe(names=sorted(names), files=sorted(files))
