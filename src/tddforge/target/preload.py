"""The standard library's modules the tests need, imported once where fresh children fork.

A fresh mutant's child imports the whole suite again, with the mutant: the
project's modules and the test files, and everything they import that its
parent had not. Standard library modules (``doctest``, ``pickle``, ``pdb``...)
are the same in every child, and none of them imports the project, so the
parent imports them once before it forks (9 ms of each toolz child). Third-party
modules are left alone: one could import the project (a plugin of it), which
would then be imported before the mutant is switched on.
"""

from __future__ import annotations

import importlib
import os
import sys
import sysconfig
from typing import Iterable

# modules with effects beyond their own namespace (a browser, a terminal, a window)
UNSAFE = frozenset(
    ["this", "antigravity", "idlelib", "tkinter", "turtle", "turtledemo", "readline"]
)


def stdlib_imported() -> list[str]:
    """The names of the standard library's modules imported now (but the ``UNSAFE``)."""
    tops = getattr(sys, "stdlib_module_names", None)
    roots = _stdlib_roots() if tops is None else set()
    found = []
    for name, module in list(sys.modules.items()):
        top = name.split(".", 1)[0]
        if module is None or top in UNSAFE or top.startswith("__"):
            continue
        if name in sys.builtin_module_names:
            continue
        stdlib = top in tops if tops is not None else _under(module, roots)
        if stdlib:
            found.append(name)
    return sorted(found)


def _stdlib_roots() -> set[str]:
    """Where the standard library lives (Python 3.9 and older, which do not name it)."""
    paths = sysconfig.get_paths()
    return {os.path.realpath(paths[key]) for key in ("stdlib", "platstdlib") if key in paths}


def _under(module: object, roots: set[str]) -> bool:
    path = getattr(module, "__file__", None)
    if not isinstance(path, str):
        return False
    real = os.path.realpath(path)
    if "site-packages" in real or "dist-packages" in real:
        return False
    return any(real.startswith(root + os.sep) for root in roots)


def preload(names: Iterable[str]) -> None:
    """Import those of ``names`` not imported yet; one that fails is left to the child."""
    for name in names:
        if name in sys.modules or name.split(".", 1)[0] in UNSAFE:
            continue
        try:
            importlib.import_module(name)
        except Exception:  # the child imports it, or not, as it would have
            continue
