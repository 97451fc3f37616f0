"""The data files a project's tests read their inputs from, followed statically.

People keep test inputs in files beside the tests: ``json.load(open("testdata.json"))``
in a ``setUp``, then a loop over its rows. :class:`DataFiles` gives ``bindings`` the
values of the calls that name and read such a file, so that the rows become inputs as a
table written in the test would:

- a path: ``open("data.json")``, ``os.path.join(os.path.dirname(__file__), "data.json")``,
  ``Path(__file__).parent / "data.json"`` (``bindings.FilePath``), found beside the test
  file or at the project's root;
- ``open(path)`` (``io.open``, ``codecs.open``): ``bindings.OpenFile``;
- ``json.load(f)``, ``json.loads(text)``, ``f.read()``, ``path.read_text()``,
  ``path.read_bytes()``: the file's JSON value, text or bytes.

Nothing is imported or run; a file outside the project, larger than ``MAX_BYTES``, or
not JSON where JSON is asked for, gives no value.
"""

from __future__ import annotations

import ast
import json
import posixpath
from pathlib import Path
from typing import Any

from tddforge.builtin.bindings import MISSING, CallValue, Env, FilePath, OpenFile, evaluate

MAX_BYTES = 1 << 20  # a data file read at most
_OPENERS = frozenset({"open", "io.open", "codecs.open"})
_PATHS = frozenset({"Path", "pathlib.Path", "os.path.abspath", "os.path.realpath"})


class DataFiles:
    """Reads the data files the tests of a project name (see the module's docstring)."""

    def __init__(self, project: Path):
        self.project = project.resolve()
        # read once each: a test's loop or a parametrized test evaluates its ``open`` and
        # ``json.load`` once per row
        self._bytes: dict[Path, bytes | None] = {}
        self._json: dict[Path, Any] = {}

    def start(self, test_file: str) -> dict[str, Any]:
        """What a test file's module scope starts with: its ``__file__``."""
        return {"__file__": FilePath((self.project / test_file).as_posix())}

    def call(self, test_file: str, inner: CallValue) -> CallValue:
        """``inner`` with the calls that name and read data files known first, for the
        test file ``test_file`` (relative to the project)."""
        here = (self.project / test_file).parent

        def value(node: ast.Call, env: Env) -> Any:
            found = self._value(node, env, here, value)
            return inner(node, env) if found is MISSING else found

        return value

    def _value(self, node: ast.Call, env: Env, here: Path, call: CallValue) -> Any:
        if not node.args:
            return _method(node, env, call, self, here)
        func = ast.unparse(node.func)
        args = [evaluate(a, env, call) for a in node.args]
        if any(a is MISSING for a in args):
            return MISSING
        first = args[0]
        if func in _OPENERS:
            mode = args[1] if len(args) > 1 else _keyword(node, "mode", env, call, "r")
            found = self.find(first, here)
            if found is None or not isinstance(mode, str):
                return MISSING
            return OpenFile(found.as_posix(), binary="b" in mode)
        if func in _PATHS and isinstance(first, (str, FilePath)) and len(args) == 1:
            return first if isinstance(first, FilePath) else FilePath(first)
        if func == "os.path.dirname" and isinstance(first, FilePath):
            return FilePath(posixpath.dirname(first.path))
        if func == "os.path.join" and all(isinstance(a, str) for a in args[1:]):
            if isinstance(first, FilePath):
                return FilePath(posixpath.join(first.path, *args[1:]))
            return posixpath.join(*args) if isinstance(first, str) else MISSING
        if func == "json.load" and isinstance(first, OpenFile):
            path = Path(first.path)
            if path not in self._json:
                self._json[path] = _json(self.read(path))
            return self._json[path]
        if func == "json.loads" and isinstance(first, (str, bytes)):
            return _json(first)
        return MISSING

    def find(self, path: object, here: Path) -> Path | None:
        """The project's file ``path`` names: as it is when absolute, else beside the test
        file, else at the project's root; None when there is none."""
        if isinstance(path, FilePath):
            path = path.path
        if not isinstance(path, str) or not path:
            return None
        bases = [Path("/")] if Path(path).is_absolute() else [here, self.project]
        for base in bases:
            found = (base / path).resolve()
            if found.is_relative_to(self.project) and found.is_file():
                return found
        return None

    def read(self, path: Path) -> bytes | None:
        """The file's bytes; None past ``MAX_BYTES`` or when it cannot be read."""
        if path not in self._bytes:
            self._bytes[path] = _read(path)
        return self._bytes[path]


def _read(path: Path) -> bytes | None:
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        return path.read_bytes()
    except OSError:
        return None


def _method(node: ast.Call, env: Env, call: CallValue, files: DataFiles, here: Path) -> Any:
    """``f.read()``, ``path.read_text()``, ``path.read_bytes()``: the file's content."""
    if node.args or node.keywords or not isinstance(node.func, ast.Attribute):
        return MISSING
    base = evaluate(node.func.value, env, call)
    name = node.func.attr
    if isinstance(base, OpenFile) and name == "read":
        return _content(files.read(Path(base.path)), base.binary)
    if isinstance(base, FilePath) and name in ("resolve", "absolute"):
        return base
    if isinstance(base, FilePath) and name in ("read_text", "read_bytes"):
        found = files.find(base, here)
        return _content(None if found is None else files.read(found), name == "read_bytes")
    return MISSING


def _keyword(node: ast.Call, name: str, env: Env, call: CallValue, default: Any) -> Any:
    for keyword in node.keywords:
        if keyword.arg == name:
            return evaluate(keyword.value, env, call)
    return default


def _content(data: bytes | None, binary: bool) -> Any:
    """A file's bytes as a test reads them: as they are, or as UTF-8 text."""
    if data is None:
        return MISSING
    if binary:
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return MISSING


def _json(data: str | bytes | None) -> Any:
    if data is None:
        return MISSING
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return MISSING
