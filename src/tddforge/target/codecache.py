"""Code compiled once and inherited by every child forked after: the project's modules and
the test files whose asserts pytest rewrote."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

from .protocol import Sources
from .sourcecache import SourceCache, uncached


class CodeCache(SourceCache):
    """Code compiled once in this process and inherited by every child forked after: the
    project's modules (``SourceCache``) and the test files whose asserts pytest rewrote.

    Without it the collector and every fresh child would compile the project's
    modules, and pytest would rewrite the test files' asserts, once more each. A
    test file's entry serves only the same bytes with the same pytest config.
    """

    def __init__(self) -> None:
        super().__init__()
        self.tests: dict[str, tuple[bytes, Any, Any]] = {}
        self._rewrite: Any = None

    def install(self) -> None:
        """Route plain source imports and pytest's assert rewriting through the cache."""
        if self._compile is not None:
            return
        super().install()
        try:
            from _pytest.assertion import rewrite
        except ImportError:
            return
        cache = self
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
    """Project files imported so far without a bytecode cache: plain modules (``uncached``)
    and test files whose asserts pytest rewrote."""
    root = os.path.realpath(os.getcwd()) + os.sep
    modules, tests = [], []
    for module in list(sys.modules.values()):
        path = uncached(module, root)
        if path is not None:
            modules.append(path)
            continue
        spec = getattr(module, "__spec__", None)
        origin = getattr(spec, "origin", None)
        if type(getattr(spec, "loader", None)).__name__ != "AssertionRewritingHook":
            continue
        if isinstance(origin, str) and os.path.realpath(origin).startswith(root):
            tests.append(origin)
    return Sources(modules=modules, tests=tests)
