"""Which target modules a test imports: by an ``import`` statement anywhere, by
``importlib.import_module``, or by a first import that reaches the finders.

A module the collection never imported can be seen only by the tests that
import it (or run its code, which the line tracer sees). The baseline notes
each test's imports, so a mutant of such a module need not run the others.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.abc
import importlib.util
import sys
from types import ModuleType
from typing import Any, Callable

from .tracing import Targets


class ImportWatch(importlib.abc.MetaPathFinder):
    """While active (``with``), notes the targets imported; finds nothing itself."""

    def __init__(self, targets: Targets):
        self.targets = targets
        self.found: set[str] = set()
        self.first: set[str] = set()  # names a first import asked the finders for
        self._import: Callable[..., Any] | None = None
        self._import_module: Callable[..., Any] | None = None

    def __enter__(self) -> ImportWatch:
        original = self._import = builtins.__import__
        plain = self._import_module = importlib.import_module
        watch = self

        def watched_import(
            name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
        ) -> Any:
            module = original(name, globals, locals, fromlist, level)
            watch.saw(_absolute(name, globals, level), module, fromlist)
            return module

        def watched_import_module(name: str, package: str | None = None) -> Any:
            module = plain(name, package)
            watch.note(module)
            return module

        builtins.__import__ = watched_import
        importlib.import_module = watched_import_module
        sys.meta_path.insert(0, self)
        return self

    def __exit__(self, *exc: object) -> None:
        builtins.__import__ = self._import  # type: ignore[assignment]
        importlib.import_module = self._import_module  # type: ignore[assignment]
        if self in sys.meta_path:
            sys.meta_path.remove(self)

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        """A first import, however it was asked for: noted by name; find nothing."""
        self.first.add(name)
        return None

    def saw(self, name: str | None, module: Any, fromlist: Any) -> None:
        """Note the module an import statement named, and the submodules it took."""
        if name is not None:
            self.note(sys.modules.get(name))
        for item in fromlist or ():
            self.note(getattr(module, str(item), None))

    def note(self, module: Any) -> None:
        """Note ``module`` if it is a target."""
        if isinstance(module, ModuleType):
            target = self.targets(getattr(module, "__file__", None) or "")
            if target is not None:
                self.found.add(target)

    def imported(self) -> list[str]:
        """The targets imported while active."""
        for name in self.first:
            self.note(sys.modules.get(name))
        return sorted(self.found)


def _absolute(name: str, globals: Any, level: int) -> str | None:
    if level == 0:
        return name
    package = (globals or {}).get("__package__") or ""
    try:
        return importlib.util.resolve_name("." * level + name, package)
    except (ImportError, ValueError):
        return None
