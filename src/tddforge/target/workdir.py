"""Where a call writes: the entries it leaves in the directory it runs in.

Calls run in the project's directory, as its tests do, so that a relative path
reads what the tests would read. A call that writes there (a lock file, a log,
``open("out.txt", "w")``) would leave its files in the user's project, and the
next call (or the same call in the second run, side by side) would find them:
``SoftFileLock("a.lock").acquire()`` succeeds once and then waits forever.
``writes_noticed`` tells whether a call wrote in the working directory, and
removes the entries it made there. Such a call is then run again in
``own_directory``, a fresh empty directory, which is what its test does
(``monkeypatch.chdir(tmp_path)``).

A listing before and after cannot tell who wrote when two runs of the same calls
share the directory (the caller's two processes, side by side): one may create
and remove a file between the other's two listings. So the functions that write
files (``open`` for writing, ``os.open`` with a writing flag, ``os.mkdir``,
``os.remove``, ``os.rename`` and the like) are wrapped by ``install_writes``,
before the module is imported, and a call that asked one of them to write in the
working directory is noticed whatever the other process did. The listings only
find what to remove, what a C library wrote included.

Runs under the TARGET's interpreter, stdlib only; keep it compatible with Python 3.8+.
"""

from __future__ import annotations

import builtins
import functools
import io
import os
import pathlib
import shutil
import tempfile
from contextlib import contextmanager
from typing import Any, Callable, ContextManager, Iterator

from .environ_reads import always, noticing

#: entries that others write while calls run: tddforge's run directory, bytecode caches
IGNORED = frozenset({".tddforge", "__pycache__", ".pytest_cache"})


def entries(directory: str = ".") -> dict[str, tuple[int, int]]:
    """Each entry of ``directory`` (but the ``IGNORED``): its inode and modification time."""
    found: dict[str, tuple[int, int]] = {}
    try:
        with os.scandir(directory) as listing:
            for entry in listing:
                if entry.name in IGNORED:
                    continue
                try:
                    stat = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                found[entry.name] = (stat.st_ino, stat.st_mtime_ns)
    except OSError:
        pass
    return found


#: the project's own entries, before any call ran: never removed (``set_baseline``)
_baseline: list[frozenset[str] | None] = [None]


def set_baseline(names: Any) -> None:
    """The entries of the working directory that are the project's (as the caller listed
    them before it started the runs): only others are ever removed."""
    _baseline[0] = frozenset(names)


def remove_new(before: dict[str, tuple[int, int]], directory: str = ".") -> None:
    """Remove the entries of ``directory`` that the block made: not the project's
    (``set_baseline``), and new or rewritten since ``before`` (the other run, side by
    side, may have made one first; a file someone made earlier is left alone)."""
    project = before.keys() if _baseline[0] is None else _baseline[0]
    for name, stamp in entries(directory).items():
        if name in project or before.get(name) == stamp:
            continue
        remove_path(os.path.join(directory, name))


def remove_path(path: str) -> None:
    """Remove ``path``, a directory with all it holds; nothing when it cannot."""
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.remove(path)
    except OSError:
        pass


_wrote = [False]  # a wrapped function wrote in the working directory
_wrote_outside = [False]  # a wrapped function wrote a file of the machine's (``outside``)
_WRITING_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
#: the functions that write at their first argument (a path), whatever they are given
_PATH_WRITERS = ("mkdir", "makedirs", "remove", "unlink", "rmdir", "rename", "replace", "mkfifo")


def here(path: Any) -> bool:
    """Whether ``path`` (a str, bytes or path-like; not a file descriptor) is in the
    working directory or below it."""
    try:
        text = os.fsdecode(os.fspath(path))
    except TypeError:
        return False
    if not os.path.isabs(text):
        return True
    cwd = os.getcwd()
    return os.path.commonpath([cwd, os.path.abspath(text)]) == cwd


def outside(path: Any) -> bool:
    """Whether ``path`` is a file of the machine's: not in the working directory or below
    it, nor in the temporary directory, nor ``os.devnull``. python-hosts' ``Hosts().write()``
    writes ``/etc/hosts``; the sandbox refuses, the module raises its own error, and a test
    asserting that error overwrites the file when its suite runs as root."""
    try:
        text = os.fsdecode(os.fspath(path))
    except TypeError:
        return False
    full = os.path.abspath(text)
    if full == os.devnull:
        return False
    roots = [os.getcwd(), *_temporary]
    return not any(os.path.commonpath([root, full]) == root for root in roots)


# the temporary directory, found before the writers are wrapped: finding it writes a file
_temporary: list[str] = []


def _opens_to_write(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    mode = kwargs.get("mode", args[1] if len(args) > 1 else "r")
    return isinstance(mode, str) and any(c in mode for c in "wax+")


def _flags_write(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    flags = kwargs.get("flags", args[1] if len(args) > 1 else 0)
    return isinstance(flags, int) and bool(flags & _WRITING_FLAGS)


def install_writes() -> None:
    """Wrap the functions that write files, so that a call writing in the working
    directory is noticed (``pathlib`` and ``shutil`` go through them)."""
    _temporary[:] = [os.path.abspath(tempfile.gettempdir())]
    wrapped: dict[Any, Any] = {builtins.open: _noticing_writes(builtins.open, _opens_to_write)}
    builtins.open = io.open = wrapped[builtins.open]
    for name in ("open", *_PATH_WRITERS):
        original = getattr(os, name, None)
        if original is not None:
            wrapped[original] = _noticing_writes(
                original, _flags_write if name == "open" else always
            )
            setattr(os, name, wrapped[original])
    _wrap_accessor(wrapped)  # the same wrappers where pathlib keeps the originals
    io.FileIO = _noticing_file_io()  # type: ignore[misc,assignment]


def _noticing_file_io() -> type:
    """``io.FileIO``, noticing a file it opens to write here: PyPDF2's merger does
    ``from io import FileIO as file`` and ``file(name, "wb")``, never ``open``. A
    subclass, so that what it makes is still a ``FileIO``; it poses as ``io.FileIO``."""

    class FileIO(io.FileIO):
        def __init__(self, file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> None:
            if _opens_to_write((file, mode), {}):
                _notice(file)
            super().__init__(file, mode, *args, **kwargs)

    FileIO.__module__ = "io"
    FileIO.__qualname__ = "FileIO"
    return FileIO


def _wrap_accessor(wrapped: dict[Any, Any]) -> None:
    """Before Python 3.11, ``pathlib`` calls the functions its accessor class took when
    it was imported (``_NormalAccessor.open = io.open``): those are wrapped there too."""
    accessor = getattr(pathlib, "_NormalAccessor", None)
    for name, value in list(vars(accessor).items()) if accessor is not None else []:
        if not name.startswith("__") and value in wrapped:
            setattr(accessor, name, staticmethod(wrapped[value]))


def _noticing_writes(
    original: Any, writes: Callable[[tuple[Any, ...], dict[str, Any]], bool]
) -> Any:
    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if writes(args, kwargs):
            _notice(kwargs.get("file", kwargs.get("path", args[0] if args else None)))
        return original(*args, **kwargs)

    return wrapper


def _notice(path: Any) -> None:
    """A wrapped function was asked to write at ``path``: where that is, noticed."""
    _wrote[0] = _wrote[0] or here(path)
    _wrote_outside[0] = _wrote_outside[0] or outside(path)


def writes_outside() -> ContextManager[list[bool]]:
    """``[True]`` once the block is over if it asked a wrapped function to write a file of
    the machine's (``outside``): a test must not, whatever the machine answered."""
    return noticing(_wrote_outside)


@contextmanager
def writes_noticed() -> Iterator[list[bool]]:
    """``[True]`` once the block is over if it wrote in the working directory; what it
    created there is removed. Only the wrapped functions tell (a listing alone would take
    the other run's files for the call's own); the listings find what a C library wrote
    too, to remove it."""
    directory = os.getcwd()
    before = entries(directory)
    try:
        with noticing(_wrote) as found:
            yield found
    finally:
        remove_new(before, directory)  # after: its own removals are not the call's writes


@contextmanager
def own_directory() -> Iterator[list[bool]]:
    """Run the block in a fresh empty directory, removed after (``[False]``: nothing of
    the project's was written)."""
    here = os.getcwd()
    path = tempfile.mkdtemp(prefix="call-")
    os.chdir(path)
    try:
        yield [False]
    finally:
        os.chdir(here)
        shutil.rmtree(path, ignore_errors=True)
