"""The tests that can see a mutant of import-time code (in the worker; pure).

A mutant in code that runs while its module is imported (module data, a class
body, a default, a decorator) changes what the module binds. The host works
out which names the change can reach (``tddforge.mutation.observers``) and
which test files mention one of them or look names up dynamically. A test can
then see the mutant only if it runs a line of the mutated module, runs a line
of any target that mentions one of those names or looks names up
dynamically (``getattr``, ``vars``, ``__dict__``), or comes from such a test
file (or from a file the host did not read, such as a module's doctests).
Every other test runs no code that could tell the difference, so a survivor
need not run it. A mutant the host could not bound (a call into another
module at import time) keeps every test.
"""

from __future__ import annotations

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


def words(text: str) -> set[str]:
    """Every identifier-like word of ``text`` (code, strings and comments alike)."""
    return set(WORD.findall(text))


def reflective(text: str) -> bool:
    """Whether ``text`` looks names up dynamically or reads a namespace whole."""
    return REFLECTION.search(text) is not None


class Observers:
    """Per fresh mutant, the passing tests that can see it (fastest first), or None: all."""

    def __init__(self, sources: dict[str, str], measured: Measured, scanned: list[str]):
        self.measured = measured
        self.scanned = set(scanned)  # the test files the host read (project-relative)
        self.lines: dict[str, set[tuple[str, int]]] = {}  # word -> (target, line) mentioning it
        self.dynamic: set[str] = set()  # tests running a line that looks names up dynamically
        for target, source in sources.items():
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
        seeing = set(measured.tests_of(measured.target(m))) | self.dynamic
        for name in observe["names"]:
            for line in self.lines.get(name, ()):
                seeing.update(measured.cover.get(line, ()))
        files = set(observe["files"])
        for nodeid in measured.by_speed:
            path = nodeid.split("::", 1)[0]
            if path in files or path not in self.scanned:
                seeing.add(nodeid)
        return [n for n in measured.by_speed if n in seeing]
