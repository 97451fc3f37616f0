"""Line tracing of the target files: which of their lines ran, and since when to trace."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
from typing import Any, Callable, Optional

from .class_cell import binds_class_cell

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


class Targets:
    """Which target a ``co_filename`` belongs to (real paths compared, cached), if any."""

    def __init__(self, targets: list[str]):
        self.names = list(targets)
        self.by_real = {os.path.realpath(t): t for t in targets}
        self.seen: dict[str, str | None] = {}

    def __call__(self, filename: str) -> str | None:
        try:
            return self.seen[filename]
        except KeyError:
            found = self.seen[filename] = self.by_real.get(os.path.realpath(filename))
            return found

    def imported(self) -> list[str]:
        """The targets a module of this process was loaded from."""
        found = {self(getattr(m, "__file__", None) or "") for m in list(sys.modules.values())}
        return [t for t in self.names if t in found]


def target_imported(target: str) -> bool:
    """Whether a module of this process was loaded from the target file."""
    is_target = SameFile(target)
    return any(is_target(getattr(m, "__file__", None) or "") for m in list(sys.modules.values()))


class LineTracer:
    """Records the targets' executed lines, cheaply: other files get no local tracer.

    The global trace function runs on every call anywhere (collection makes
    hundreds of thousands), so it is one plain closure with a dict lookup;
    only frames of a target get a line tracer. Lines that run while a target's
    module code runs (its import, or a reload, and whatever that calls) are also
    kept apart, in ``import_lines``: a mutant there acts before a test could
    switch it on in live functions.
    """

    def __init__(self, targets: Targets):
        self.lines: dict[str, set[int]] = {t: set() for t in targets.names}
        self.import_lines: dict[str, set[int]] = {t: set() for t in targets.names}
        importing = [0]  # how many target module frames are running
        known = targets.seen
        local_for = {t: self._local(t, importing) for t in targets.names}
        lines, import_lines = self.lines, self.import_lines

        def trace(frame: Any, event: str, arg: Any) -> Any:
            code = frame.f_code
            try:
                hit = known[code.co_filename]
            except KeyError:
                hit = targets(code.co_filename)
            if hit is None:
                return None
            if code.co_name == "<module>":
                importing[0] += 1
            if binds_class_cell(code):
                # traced line by line, its ``__class__`` would be lost (see the function):
                # its lines are taken as run, as a class body runs straight through
                import dis  # only here: a start-up costs each sandboxed run

                body = {line for _, line in dis.findlinestarts(code) if line is not None}
                lines[hit].update(body)
                if importing[0]:
                    import_lines[hit].update(body)
                return None
            lines[hit].add(frame.f_lineno)
            if importing[0]:
                import_lines[hit].add(frame.f_lineno)
            return local_for[hit]

        self.trace = trace

    def _local(self, target: str, importing: list[int]) -> TraceFunction:
        add = self.lines[target].add
        add_import = self.import_lines[target].add

        def local(frame: Any, event: str, arg: Any) -> Any:
            if event == "line":
                add(frame.f_lineno)
                if importing[0]:
                    add_import(frame.f_lineno)
            elif event == "return" and frame.f_code.co_name == "<module>":
                importing[0] -= 1
            return local

        return local

    def found(self) -> dict[str, list[int]]:
        """The lines run, per target that ran any."""
        return {t: sorted(lines) for t, lines in self.lines.items() if lines}


def _module_name(target: str) -> str:
    base = os.path.basename(target)
    return os.path.basename(os.path.dirname(target)) if base == "__init__.py" else base[:-3]


class TraceFromImport(importlib.abc.MetaPathFinder):
    """Starts the collection's line tracing when the first target's import begins.

    Tracing all of the collection (pytest's own machinery, other modules)
    costs more than the collection itself; before the import nothing of a
    target can run. It only watches: the import itself proceeds unchanged.
    """

    def __init__(self, targets: Targets, trace: TraceFunction):
        self.targets = targets
        self.trace = trace
        self.fired = False
        self.last_names = {_module_name(os.path.realpath(t)) for t in targets.names}

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        """Start tracing if ``name`` is a target's module; find nothing either way."""
        if self.fired or name.rpartition(".")[2] not in self.last_names:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.origin and self.targets(spec.origin) is not None:
            self.fired = True
            sys.settrace(self.trace)
        return None

    def missed(self) -> list[str]:
        """The targets imported without this finder seeing any target's import."""
        return [] if self.fired else self.targets.imported()


def untraced_rewriting() -> None:
    """Run pytest's rewriting of test files' asserts without the line tracer.

    It runs no project code, only ``ast`` over each test file, but it is most of
    the calls a collection makes (about 2 million of 2.2 million on toolz's
    suite, with bytecode caches off as in the sandbox), and a global trace
    function is called on each: untraced, the traced collection costs about a
    third as much.
    """
    try:
        from _pytest.assertion import rewrite
    except ImportError:
        return
    original = getattr(rewrite, "_rewrite_test", None)
    if not callable(original) or getattr(original, "untraced", False):
        return

    def rewrite_test(*args: Any, **kwargs: Any) -> Any:
        trace = sys.gettrace()
        sys.settrace(None)
        try:
            return original(*args, **kwargs)
        finally:
            sys.settrace(trace)

    rewrite_test.untraced = True  # type: ignore[attr-defined]
    rewrite._rewrite_test = rewrite_test


def line_count(path: str) -> int:
    """A file's number of lines."""
    with open(path, encoding="utf-8") as handle:
        return sum(1 for _ in handle)
