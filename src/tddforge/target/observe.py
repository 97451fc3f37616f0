"""The tests that can see a mutant of import-time code (in the worker; pure).

A mutant in code that runs while its module is imported (module data, a class
body, a default, a decorator) changes what the module binds. The host works
out which names the change can reach (``tddforge.mutation.observers``) and
which test files mention one of them or look names up dynamically. A test can
then see the mutant only if it imports the mutated module while it runs,
runs code inside the definition of one of those names (a function whose
default changed, a class whose attribute did), runs a line of any target
that mentions one of those names, runs a line that looks names up dynamically
(``getattr`` by a computed name, ``vars``, ``__dict__``) in the mutated module or in
one that imports it (``connected``), or comes from such a test file (or from a file
the host did not read, such as a module's doctests). Every
other test runs no code that could tell the difference, so a survivor need
not run it. A mutant the host could not bound (a call into another module at
import time) keeps every test.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from typing import TYPE_CHECKING

from .protocol import MutantRecord

if TYPE_CHECKING:  # the reference run imports this module and needs neither
    from .baseline import Measured

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Looking names up by a computed string, or a module's namespace as a whole.
REFLECTION = re.compile(
    r"\b(?:vars|dir|getattr|hasattr|globals|import_module|__import__|getmembers|getmodule)\s*\("
    r"|__dict__|__all__|\bsys\.modules\b|\bimport\s+\*"
)


# ``getattr(obj, "name")``: one fixed attribute, which ``words`` already sees as mentioned
FIXED_LOOKUP = re.compile(r"""\b(?:getattr|hasattr)\s*\(\s*[\w.]+\s*,\s*(['"])[A-Za-z_]\w*\1""")


def words(text: str) -> set[str]:
    """Every identifier-like word of ``text`` (code, strings and comments alike)."""
    return set(WORD.findall(text))


def code_words(source: str) -> set[str]:
    """Every identifier-like word of a file's code and strings, not of its comments (a
    comment cannot read a name); all of ``words`` when the file does not tokenize."""
    import io
    import tokenize

    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return words(source)
    return {w for t in tokens if t.type != tokenize.COMMENT for w in WORD.findall(t.string)}


def reflective(text: str) -> bool:
    """Whether ``text`` looks names up dynamically or reads a namespace whole
    (``getattr`` of a fixed name only mentions that name)."""
    return REFLECTION.search(FIXED_LOOKUP.sub("", text)) is not None


@functools.lru_cache(maxsize=64)
def _parsed(source: str) -> ast.Module | None:
    """``source``'s tree, parsed once for ``definitions`` and ``import_words`` (never
    change it); None when it does not parse."""
    try:
        return ast.parse(source)
    except SyntaxError:
        return None


def import_words(source: str, tree: ast.AST | None = None) -> set[str] | None:
    """The names a file's imports mention (modules, their parts, what is taken from them),
    wherever they are (a function's lazy import too); None when it imports by a computed
    name or does not parse: it may import anything. ``tree``: ``source`` parsed already."""
    tree = tree or _parsed(source)
    if tree is None:
        return None
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(p for a in node.names for p in a.name.split("."))
        elif isinstance(node, ast.ImportFrom):
            found.update((node.module or "").split("."))
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.Call) and _by_name(node.func) in DYNAMIC_IMPORTS:
            return None
    found.discard("")
    return found


DYNAMIC_IMPORTS = frozenset({"import_module", "__import__", "run_module", "run_path"})


def _by_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


def import_name(path: str) -> str:
    """The name a module is imported by, its last part: a file's stem, a package's name
    for its ``__init__.py``."""
    folder, name = os.path.split(path)
    stem = name[:-3] if name.endswith(".py") else name
    return os.path.basename(folder) if stem == "__init__" else stem


def connected(
    start: str, imports: dict[str, set[str] | None], names: dict[str, str]
) -> tuple[set[str], set[str]]:
    """The files that can hold ``start``'s names: ``start`` and every file importing one of
    them, over and over (``imports``: file -> ``import_words``; ``names``: file ->
    ``import_name``); and the import names of them all."""
    reached, words_ = {start}, {names[start]}
    grew = True
    while grew:
        grew = False
        for file, mentioned in imports.items():
            if file not in reached and (mentioned is None or mentioned & words_):
                reached.add(file)
                words_.add(names[file])
                grew = True
    return reached, words_


def definitions(source: str) -> dict[str, range]:
    """The lines of each top-level function and class of ``source``, by name (a class's
    methods under its own name too, and under theirs)."""
    tree = _parsed(source)
    if tree is None:
        return {}
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    found: dict[str, range] = {}
    for node in tree.body:
        if isinstance(node, kinds):
            found[node.name] = range(node.lineno, (node.end_lineno or node.lineno) + 1)
        if isinstance(node, ast.ClassDef):
            for member in node.body:
                if isinstance(member, kinds):
                    span = range(member.lineno, (member.end_lineno or member.lineno) + 1)
                    found.setdefault(member.name, span)
    return found


class Observers:
    """Per fresh mutant, the passing tests that can see it (fastest first), or None: all."""

    def __init__(self, sources: dict[str, str], measured: Measured, scanned: list[str]):
        self.measured = measured
        self.scanned = set(scanned)  # the test files the host read (project-relative)
        self.lines: dict[str, set[tuple[str, int]]] = {}  # word -> (target, line) mentioning it
        # per target, the tests running a line of it that looks names up dynamically
        self.dynamic: dict[str, set[str]] = {}
        self.imports = {target: import_words(source) for target, source in sources.items()}
        self.names = {target: import_name(target) for target in sources}
        self.reached: dict[str, set[str]] = {}  # target -> the targets connected to it
        # name -> (target, lines) of a top-level function or class of that name
        self.defined: dict[str, list[tuple[str, range]]] = {}
        for target, source in sources.items():
            for name, span in definitions(source).items():
                self.defined.setdefault(name, []).append((target, span))
            for number, text in enumerate(source.splitlines(), start=1):
                for word in words(text):
                    self.lines.setdefault(word, set()).add((target, number))
                if reflective(text):
                    found = measured.cover.get((target, number), ())
                    self.dynamic.setdefault(target, set()).update(found)

    def of(self, m: MutantRecord) -> list[str] | None:
        """The tests that can see ``m``, fastest first; None when every test can."""
        observe = m.get("observe")
        if observe is None:
            return None
        measured = self.measured
        mutated = measured.target(m)
        seeing = set(measured.importers.get(mutated, ()))
        for other in self._connected(mutated):
            seeing |= self.dynamic.get(other, set())
        for name in observe["names"]:
            for line in self.lines.get(name, ()):
                seeing.update(measured.cover.get(line, ()))
            for target, span in self.defined.get(name, ()):
                seeing.update(measured.tests_running(target, span))
        files = set(observe["files"])
        for nodeid in measured.by_speed:
            path = nodeid.split("::", 1)[0]
            if path in files or path not in self.scanned:
                seeing.add(nodeid)
        return [n for n in measured.by_speed if n in seeing]

    def _connected(self, target: str) -> set[str]:
        if target not in self.reached:
            if target in self.imports:
                self.reached[target] = connected(target, self.imports, self.names)[0]
            else:  # not one the host sent: every target may reach it
                self.reached[target] = set(self.imports)
        return self.reached[target]
