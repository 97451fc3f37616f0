"""Code compiled once and inherited by every child forked after: the project's modules and
the test files whose asserts pytest rewrote."""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import os
import sys
import types
from pathlib import Path
from typing import Any

from .protocol import Sources


class CodeCache:
    """Code compiled once in this process and inherited by every child forked after.

    Bytecode caches are off in the sandbox (``PYTHONDONTWRITEBYTECODE``), so
    without this the collector and every fresh child would compile the
    project's modules, and pytest would rewrite the test files' asserts, once
    more each. An entry serves only a file whose bytes are exactly the ones
    compiled (and, for a test file, the same pytest config), so an edited file
    is compiled anew, never served stale.
    """

    def __init__(self) -> None:
        self.modules: dict[str, tuple[bytes, types.CodeType]] = {}
        self.tests: dict[str, tuple[bytes, Any, Any]] = {}
        self._compile: Any = None
        self._rewrite: Any = None

    def install(self) -> None:
        """Route plain source imports and pytest's assert rewriting through the cache."""
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
        try:
            from _pytest.assertion import rewrite
        except ImportError:
            return
        if callable(getattr(rewrite, "_rewrite_test", None)):
            self._rewrite = rewrite._rewrite_test

            def rewrite_test(fn: Path, config: Any) -> Any:
                # pytest's answer differs by version: (stat or source hash, code)
                hit = cache.tests.get(str(fn))
                if hit is not None and hit[1] is config and fn.read_bytes() == hit[0]:
                    return hit[2]
                return cache._rewrite(fn, config)

            rewrite._rewrite_test = rewrite_test

    def add_sources(self, sources: Sources, config: Any) -> None:
        """Install, then compile ``sources`` (``imported_sources``); test files only with a
        pytest ``config`` to rewrite their asserts for."""
        self.install()
        for path in sources.get("modules", []):
            self.add_module(path)
        if config is not None:
            for path in sources.get("tests", []):
                self.add_test(path, config)

    def add_module(self, path: str) -> None:
        """Compile a module's file, unless its bytes are the ones compiled already."""
        with contextlib.suppress(OSError, SyntaxError, ValueError):
            data = Path(path).read_bytes()
            if self.modules.get(path, (None,))[0] != data:
                self.modules[path] = (data, compile(data, path, "exec", dont_inherit=True))

    def add_test(self, path: str, config: Any) -> None:
        """Rewrite a test file's asserts for ``config``, unless done for these bytes already."""
        if self._rewrite is None:
            return
        with contextlib.suppress(Exception):  # pytest's own import then reports any problem
            data = Path(path).read_bytes()
            known = self.tests.get(path)
            if known is not None and known[0] == data and known[1] is config:
                return
            answer = self._rewrite(Path(path), config)
            if Path(path).read_bytes() == data:
                self.tests[path] = (data, config, answer)


CODE_CACHE = CodeCache()


def imported_sources() -> Sources:
    """Project files imported so far without a bytecode cache: plain modules and test files
    whose asserts pytest rewrote."""
    root = os.path.realpath(os.getcwd()) + os.sep
    modules, tests = [], []
    for module in list(sys.modules.values()):
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None)
        if not isinstance(origin, str) or not origin.endswith(".py"):
            continue
        if not os.path.realpath(origin).startswith(root):
            continue
        loader = getattr(spec, "loader", None)
        if type(loader).__name__ == "AssertionRewritingHook":
            tests.append(origin)
        elif type(loader) is importlib.machinery.SourceFileLoader:
            with contextlib.suppress(NotImplementedError, ValueError):
                if not os.path.exists(importlib.util.cache_from_source(origin)):
                    modules.append(origin)
    return Sources(modules=modules, tests=tests)
