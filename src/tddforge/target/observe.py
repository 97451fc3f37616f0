"""The tests that can see a mutant of import-time code (in the worker; pure).

A mutant in code that runs while its module is imported (module data, a class
body, a default, a decorator) changes what the module binds. The host works
out which names the change can reach (``tddforge.mutation.observers``) and
which test files mention one of them or look names up dynamically. A test can
then see the mutant only if it imports the mutated module while it runs,
runs code inside the definition of one of those names (a function whose
default changed, a class whose attribute did), runs a line of any target
that mentions one of those names or looks names up dynamically (``getattr``
by a computed name, ``vars``, ``__dict__``), or comes from such a test file
(or from a file the host did not read, such as a module's doctests). Every
other test runs no code that could tell the difference, so a survivor need
not run it. A mutant the host could not bound (a call into another module at
import time) keeps every test.
"""

from __future__ import annotations

import ast
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


def definitions(source: str) -> dict[str, range]:
    """The lines of each top-level function and class of ``source``, by name (a class's
    methods under its own name too, and under theirs)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
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
        self.dynamic: set[str] = set()  # tests running a line that looks names up dynamically
        # name -> (target, lines) of a top-level function or class of that name
        self.defined: dict[str, list[tuple[str, range]]] = {}
        for target, source in sources.items():
            for name, span in definitions(source).items():
                self.defined.setdefault(name, []).append((target, span))
            for number, text in enumerate(source.splitlines(), start=1):
                for word in words(text):
                    self.lines.setdefault(word, set()).add((target, number))
                if reflective(text):
                    self.dynamic.update(measured.cover.get((target, number), ()))

    def of(self, m: MutantRecord) -> list[str] | None:
        """The tests that can see ``m``, fastest first; None when every test can."""
        observe = m.get("observe")
        if observe is None:
            return None
        measured = self.measured
        seeing = set(measured.importers.get(measured.target(m), ())) | self.dynamic
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
