"""Modules compiled once and inherited by every child forked after. Stdlib only: the call
runner uses it where pytest may be missing (``codecache.py`` adds pytest's test files).

Keep it compatible with Python 3.8+.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import types
from pathlib import Path
from typing import Any, Callable, Collection, Iterable


class SourceCache:
    """The project's modules, compiled once in this process and inherited by every child
    forked after.

    Bytecode caches are off in the sandbox (``PYTHONDONTWRITEBYTECODE``), so
    without this every child would compile the project's modules it imports once
    more. An entry serves only a file whose bytes are exactly the ones compiled, so
    an edited file is compiled anew, never served stale.
    """

    def __init__(self) -> None:
        self.modules: dict[str, tuple[bytes, types.CodeType]] = {}
        self._compile: Any = None

    def install(self) -> None:
        """Route plain source imports through the cache."""
        if self._compile is not None:
            return
        loader = importlib.machinery.SourceFileLoader
        self._compile = loader.source_to_code
        cache = self

        def source_to_code(self: Any, data: Any, path: Any, *, _optimize: int = -1) -> Any:
            hit = cache.modules.get(path) if isinstance(path, str) else None
            if hit is not None and _optimize == -1 and hit[0] == data:
                return hit[1]
            return cache._compile(self, data, path, _optimize=_optimize)

        loader.source_to_code = source_to_code  # type: ignore[method-assign]

    def add_modules(self, paths: Iterable[str]) -> None:
        """Compile each of ``paths`` (``add_module``)."""
        for path in paths:
            self.add_module(path)

    def add_module(self, path: str) -> None:
        """Compile a module's file, unless its bytes are the ones compiled already."""
        with contextlib.suppress(OSError, SyntaxError, ValueError):
            data = Path(path).read_bytes()
            if self.modules.get(path, (None,))[0] != data:
                self.modules[path] = (data, compile(data, path, "exec", dont_inherit=True))


def uncached(module: Any, root: str) -> str | None:
    """The file ``module`` was compiled from, when it is a plain source module under
    ``root`` (a real path ending in a separator) with no bytecode cache: one that each
    new process compiles again."""
    spec = getattr(module, "__spec__", None)
    origin = getattr(spec, "origin", None)
    if not isinstance(origin, str) or not origin.endswith(".py"):
        return None
    if type(getattr(spec, "loader", None)) is not importlib.machinery.SourceFileLoader:
        return None
    if not os.path.realpath(origin).startswith(root):
        return None
    with contextlib.suppress(NotImplementedError, ValueError):
        if not os.path.exists(importlib.util.cache_from_source(origin)):
            return origin
    return None


def compiled_since(before: Collection[str], root: str) -> list[str]:
    """The files under ``root`` that the modules imported since ``before`` (the names
    then in ``sys.modules``) were compiled from (``uncached``): what a process forked
    before they were imported compiles again. A forked child reports them, and its
    parent compiles each once (``add_modules``) for the children after it."""
    found = []
    for name, module in list(sys.modules.items()):
        path = None if name in before else uncached(module, root)
        if path is not None:
            found.append(path)
    return found


class Learning:
    """A runner whose forked children report the project's source files they imported
    (``reporting``), and which compiles each once for the children forked after
    (``learn``). A module the package imports on first use was compiled in every child
    that used it: mwparserfromhell's ``parse`` imports its 1600-line tokenizer, and
    capturing the calls 33 of its tests' ``parse`` calls make took 1.26 s, 0.67 s with
    the tokenizer compiled once."""

    def __init__(self) -> None:
        self.root: str | None = None  # the project's real path and a separator
        self.cache = SourceCache()

    def start(self, root: str) -> None:
        """Learn what children import from under ``root`` (the project's directory)."""
        self.root = os.path.join(os.path.realpath(root), "")
        self.cache.install()

    def reporting(self, work: Callable[[], dict[str, Any]]) -> Callable[[], bytes]:
        """``work`` for a forked child: its result as JSON, with ``imported``, the
        project's source files it imported that this process has not compiled."""

        def child() -> bytes:
            before = set(sys.modules)
            found = work()
            imported = compiled_since(before, self.root) if self.root is not None else []
            if imported:
                found["imported"] = imported
            return json.dumps(found).encode()

        return child

    def learn(self, found: dict[str, Any]) -> dict[str, Any]:
        """``found`` (a child's result) without its ``imported`` files, each compiled here
        for the children forked after."""
        self.cache.add_modules(found.pop("imported", ()))
        return found


#: the call runner's (``calls.py``, ``capture.py``)
LEARNING = Learning()
