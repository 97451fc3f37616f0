"""Line tracing of the target file: which of its lines ran, and since when to trace."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
from typing import Any, Callable, Optional

TraceFunction = Callable[[Any, str, Any], Optional[Callable[..., Any]]]


class SameFile:
    """``co_filename`` may be relative or pass through a symlink: compare real paths, cached."""

    def __init__(self, target: str):
        self.target = os.path.realpath(target)
        self._seen: dict[str, bool] = {}

    def __call__(self, filename: str) -> bool:
        known = self._seen.get(filename)
        if known is None:
            known = self._seen[filename] = os.path.realpath(filename) == self.target
        return known


def target_imported(target: str) -> bool:
    """Whether a module of this process was loaded from the target file."""
    is_target = SameFile(target)
    return any(is_target(getattr(m, "__file__", None) or "") for m in list(sys.modules.values()))


class LineTracer:
    """Records the target file's executed lines, cheaply: other files get no local tracer.

    The global trace function runs on every call anywhere (collection makes
    hundreds of thousands), so it is one plain closure with a dict lookup;
    only frames of the target get the line tracer.
    """

    def __init__(self, is_target: SameFile):
        self.lines: set[int] = set()
        lines = self.lines
        add = lines.add
        known = is_target._seen
        check = is_target

        def local(frame: Any, event: str, arg: Any) -> Any:
            if event == "line":
                add(frame.f_lineno)
            return local

        def trace(frame: Any, event: str, arg: Any) -> Any:
            filename = frame.f_code.co_filename
            hit = known.get(filename)
            if hit is None:
                hit = check(filename)
            if not hit:
                return None
            add(frame.f_lineno)
            return local

        self.trace = trace


class TraceFromImport(importlib.abc.MetaPathFinder):
    """Starts the collection's line tracing when the target's import begins.

    Tracing all of the collection (pytest's own machinery, other modules)
    costs more than the collection itself; before the import nothing of the
    target can run. It only watches: the import itself proceeds unchanged.
    """

    def __init__(self, target: str, trace: TraceFunction):
        self.target = os.path.realpath(target)
        self.trace = trace
        self.fired = False
        base = os.path.basename(self.target)
        parent = os.path.basename(os.path.dirname(self.target))
        self.last_name = parent if base == "__init__.py" else base[:-3]

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        """Start tracing if ``name`` is the target's module; find nothing either way."""
        if self.fired or name.rpartition(".")[2] != self.last_name:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.origin and os.path.realpath(spec.origin) == self.target:
            self.fired = True
            sys.settrace(self.trace)
        return None

    def missed(self) -> bool:
        """Whether the target was imported without this finder seeing it."""
        return not self.fired and target_imported(self.target)

    def line_count(self) -> int:
        """The target file's number of lines."""
        with open(self.target, encoding="utf-8") as handle:
            return sum(1 for _ in handle)
