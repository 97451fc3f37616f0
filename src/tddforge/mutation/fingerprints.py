"""Test fingerprints: when is a test provably unchanged between two runs?

A test's fingerprint hashes its own source (a test function, or the whole
``Test*`` class for a method), everything else at the test file's top level
(imports, helpers, fixtures, parametrize data), and every ``conftest.py``
between the project root and the file. A ``from m import a, b`` counts as the
import of ``m`` plus, per test, the bindings of the names that test reads, so
importing one more name for a new test does not change the others. Importing
pytest itself runs nothing (the tests run under it), so ``import pytest``
counts only for the tests that read the name: adding or dropping it with the
tests that use ``pytest.raises`` leaves the others unchanged. The same holds for
``re``, ``decimal`` and ``datetime``, which pytest imports for itself before any
test file (a generated suite imports ``re`` only while some test calls
``re.escape``). Any edit to any of those changes the
fingerprint, so a cached verdict is reused only when nothing the test could
depend on inside the test code has changed.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeGuard

from tddforge.analysis.testsource import is_test_class
from tddforge.mutation.layout import python_files
from tddforge.mutation.parsed import parsed


def _sha(*parts: str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def conftest_paths(project: Path, folder: Path) -> list[Path]:
    """The conftest.py files pytest loads for tests in ``folder``: there and up to the project."""
    found = []
    while True:
        conftest = folder / "conftest.py"
        if conftest.is_file():
            found.append(conftest)
        if folder == project or project not in folder.parents:
            return found
        folder = folder.parent


def _conftests(project: Path, test_file: Path) -> str:
    paths = conftest_paths(project, test_file.parent)
    return _sha(*(p.read_text(encoding="utf-8", errors="replace") for p in paths))


def _is_test(node: ast.stmt) -> bool:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.name.startswith("test")
    return isinstance(node, ast.ClassDef) and is_test_class(node)


def file_fingerprints(project: Path, test_file: Path) -> dict[str, str]:
    """Fingerprints of the tests in ``test_file``, keyed the way the worker looks them up.

    - ``path::test_name``: a top-level test function;
    - ``path::Class::*``: every test method of a ``Test*`` class, inherited ones
      included; hashed with every ``Test*`` class of the file, since a class can
      inherit its tests from another one;
    - ``path::Class::method``: one test method, hashed with its class but not with its
      sibling tests (``_method_prints``), when no class of the file inherits another
      of the file's classes: a pruned unittest suite keeps its verdicts;
    - ``path``: what collecting the file runs (everything at top level except
      test function bodies: imports, helpers, decorators, defaults, class
      bodies), for verdicts decided at collection time. Adding a plain test
      function leaves it unchanged.
    """
    source = test_file.read_text(encoding="utf-8", errors="replace")
    rel = test_file.resolve().relative_to(project.resolve()).as_posix()
    conftests = _conftests(project.resolve(), test_file.resolve())
    try:
        tree = parsed(source)
    except SyntaxError:
        return {rel: _sha(conftests, source)}

    segment = Segments(source)
    others = [n for n in tree.body if not _is_test(n)]
    exact = _sha(conftests, *(segment(n) for n in others))
    # for a test, a ``from m import a, b`` counts by the names the test reads: adding a
    # name another test needs leaves it unchanged (its verdicts stay reusable)
    bindings = _from_imports(others)
    shared = _sha(conftests, *(k for n in others if (k := _import_key(n, segment))))
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and _is_test(n)]
    all_classes = _sha(shared, *(segment(c) for c in classes), *_bound(classes, bindings))
    found = {rel: _sha(exact, *(segment(c) for c in classes), *_import_time_parts(tree, segment))}
    local = {c.name for c in tree.body if isinstance(c, ast.ClassDef)}
    inherited = any(_name(base) in local for c in classes for base in c.bases)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and _is_test(node):
            found[f"{rel}::{node.name}::*"] = all_classes
            if not inherited:
                found.update(_method_prints(f"{rel}::{node.name}", node, shared, segment, bindings))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_test(node):
            found[f"{rel}::{node.name}"] = _sha(shared, segment(node), *_bound([node], bindings))
    return found


def _method_prints(
    prefix: str,
    cls: ast.ClassDef,
    shared: str,
    segment: Callable[[ast.AST], str],
    bindings: dict[str, str],
) -> dict[str, str]:
    """``path::Class::method`` for each test method of ``cls``: hashed with the class
    without its other test methods (its bases, decorators, attributes, ``setUp`` and
    helpers stay), so that dropping or adding a sibling test leaves it unchanged. Each
    test runs on an instance of its own; a sibling can reach it only through what the
    class holds, which is part of every method's hash."""
    methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    tests = [n for n in methods if n.name.startswith("test")]
    rest = [n for n in cls.body if n not in tests]
    header = _sha(
        *(segment(d) for d in cls.decorator_list),
        cls.name,
        *(segment(b) for b in [*cls.bases, *cls.keywords]),
        *(segment(n) for n in rest),
    )
    return {
        f"{prefix}::{test.name}": _sha(
            shared, header, segment(test), *_bound([*rest, test, *cls.bases], bindings)
        )
        for test in tests
    }


def _name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else ""


class Segments:
    """``ast.get_source_segment`` for many nodes of one source, splitting its lines once
    (the stdlib splits the whole source again for every node)."""

    def __init__(self, source: str):
        # the lines as the parser counts them: only \r\n, \r and \n end one
        self.lines: list[str] = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z", source)

    def __call__(self, node: ast.AST) -> str:
        first, last = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
        start, end = getattr(node, "col_offset", None), getattr(node, "end_col_offset", None)
        if first is None or last is None or start is None or end is None:
            return ""
        start_line: bytes = self.lines[first - 1].encode()
        if first == last:
            return start_line[int(start) : int(end)].decode()
        head = start_line[int(start) :].decode()
        tail = self.lines[last - 1].encode()[: int(end)].decode()
        return "".join([head, *self.lines[first : last - 1], tail])


# under pytest, importing these only binds a name: pytest imports them itself at start-up
# (``re`` everywhere, ``decimal`` for ``approx``, ``datetime`` for its timing and logging)
_ALREADY_IMPORTED = frozenset({"pytest", "re", "decimal", "datetime"})


def _from_imports(nodes: Iterable[ast.stmt]) -> dict[str, str]:
    """Name → the import that binds it (the last one wins, as at run time): every
    ``from ... import``, and ``import pytest`` (or another of ``_ALREADY_IMPORTED``)."""
    bound: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and not any(a.name == "*" for a in node.names):
            source = "." * node.level + (node.module or "")
            for alias in node.names:
                bound[alias.asname or alias.name] = f"from {source} import {alias.name}"
        elif _binds_only(node):
            for alias in node.names:
                bound[alias.asname or alias.name] = f"import {alias.name} as {alias.asname}"
    return bound


def _binds_only(node: ast.stmt) -> TypeGuard[ast.Import]:
    """``import pytest`` (or ``as`` another name; or another of ``_ALREADY_IMPORTED``):
    nothing runs but the binding."""
    return isinstance(node, ast.Import) and all(a.name in _ALREADY_IMPORTED for a in node.names)


def _import_key(node: ast.stmt, segment: Callable[[ast.AST], str]) -> str:
    """A ``from m import names`` as what it runs (importing ``m``), ``import pytest`` (or
    another of ``_ALREADY_IMPORTED``) as nothing (it runs nothing); anything else as written."""
    if isinstance(node, ast.ImportFrom) and not any(a.name == "*" for a in node.names):
        return f"from {'.' * node.level}{node.module or ''} import ..."
    if _binds_only(node):
        return ""
    return segment(node)


def _bound(nodes: Iterable[ast.AST], bindings: dict[str, str]) -> list[str]:
    """The imports that bind the names ``nodes`` read."""
    names = {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)}
    return sorted(bindings[name] for name in names if name in bindings)


def _import_time_parts(tree: ast.Module, segment: Callable[[ast.AST], str]) -> Iterator[str]:
    """The parts of test functions that run when their module is imported."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_test(node):
            defaults = [d for d in (*node.args.defaults, *node.args.kw_defaults) if d is not None]
            for part in (*node.decorator_list, *defaults):
                yield segment(part)


def fingerprints(project: Path, test_files: Iterable[Path]) -> dict[str, str]:
    """Fingerprints of every test in ``test_files``."""
    found: dict[str, str] = {}
    for path in test_files:
        found.update(file_fingerprints(project, path))
    return found


def unchanged(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Tests present in both runs with the same fingerprint."""
    return sorted(name for name, digest in after.items() if before.get(name) == digest)


def others(project: Path, modules: Iterable[Path], test_files: Iterable[Path]) -> str:
    """A hash of the project's other Python files: neither mutated modules, test files nor
    conftests (helpers, modules left out). Tests may run any of them, so any edit there
    changes every test."""
    known = {p.resolve() for p in [*modules, *test_files]}
    parts = []
    for path in python_files(project):
        if path.resolve() not in known and path.name != "conftest.py":
            parts += [path.relative_to(project).as_posix(), path.read_text("utf-8", "replace")]
    return _sha(*parts)
