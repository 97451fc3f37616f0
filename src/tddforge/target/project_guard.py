"""The project's own files, kept from the mutants: a mutant's tests may not remove or
rewrite a project path that the unmutated tests leave alone.

A mutant can turn a test's call into one that removes the project. fsspec's
``LocalFileSystem().rm(".", recursive=True)`` raises ``ValueError`` ("Cannot
delete current working directory"); a test asserts it, and the mutant that drops
the check runs ``shutil.rmtree`` on the project's directory, where the tests run.
The sandbox must let the tests write there (a log, a lock file, an output beside
the test), so it cannot tell that removal from a test's own writing. The baseline
can: what the unmutated tests write is what the tests are meant to do.

``install`` adds an audit hook (PEP 578) that watches the calls that write,
remove, rename or change files, and keeps to the paths inside the project (but the
``workdir.IGNORED`` entries). While the baseline runs, it *records* each path they
touch; ``take`` hands them over per test, so that a reused baseline record keeps
its test's writes. ``enforce`` then switches the process (and every child forked
after) to refusing: a call that would remove or rewrite a project path that exists,
that no baseline test touched, that is not inside one that a test touched, and that
this process did not create raises ``PermissionError``. The test fails and the
mutant is killed: its tests did to the project what the unmutated ones do not.
What a mutant's child made in the project it removes as it ends (``clean``).

What the hook cannot see: a subprocess (``rm -rf``) and C code that writes without
Python's calls. The sandbox still keeps those inside the work directory.

Runs under the TARGET's interpreter, stdlib only; keep it compatible with Python 3.8+.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from typing import Any, Callable, Iterable, Optional, Tuple

from .workdir import IGNORED, remove_path

OFF, RECORD, ENFORCE = "off", "record", "enforce"

REFUSED = "tddforge: the unmutated tests leave this project path alone; a mutant may not change it"

_WRITING = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

Signature = Tuple[bool, int, int, int, int]  # (a directory, inode, mtime, size, mode)

# what a call does to a path: makes it anew (when it did not exist), changes what is there,
# or either, as the path is found (``open`` with ``O_CREAT``, a rename's target)
CREATE, CHANGE, WRITE = "create", "change", "write"


class _State:
    def __init__(self) -> None:
        self.mode = OFF
        self.root = ""
        # project-relative path -> (its absolute path, what it was before its first call)
        self.touched: dict[str, tuple[str, Signature | None]] = {}
        self.allowed: set[str] = set()  # what the baseline touched
        self.created: set[str] = set()  # what this process made, enforcing
        self.refused = 0


_STATE = _State()
_INSTALLED = [False]


def install(root: str) -> None:
    """Watch the paths inside ``root`` from now on, recording (once per process)."""
    _STATE.root = os.path.realpath(root)
    _STATE.mode = RECORD
    _STATE.touched = {}
    if not _INSTALLED[0]:
        sys.addaudithook(_hook)
        _INSTALLED[0] = True


def take() -> list[str]:
    """The project paths written, removed or made since the last call, sorted.

    A call asked to change a path is counted only when the path did change: a failed
    ``os.rmdir(".")`` or a ``shutil.move(".", ".")`` asked about the project's root and
    changed nothing, and counting it would allow everything under the root.
    """
    found, _STATE.touched = _STATE.touched, {}
    return sorted(rel for rel, (full, before) in found.items() if _differs(full, before))


def enforce(allowed: Iterable[str]) -> None:
    """Refuse, from now on, to remove or rewrite a project path outside ``allowed``."""
    if _STATE.mode == OFF:
        return
    _STATE.allowed = set(allowed)
    _STATE.created = set()
    _STATE.mode = ENFORCE


def clean() -> None:
    """Remove what this process made in the project, enforcing (a mutant's child, as it
    ends): a mutant that turned a path into ``"XX"`` or ``None`` leaves no such file behind.
    What the unmutated tests leave is theirs, as when they run without us."""
    if _STATE.mode != ENFORCE:
        return
    for rel in sorted(_STATE.created, key=lambda r: r.count(os.sep), reverse=True):
        remove_path(os.path.join(_STATE.root, rel))


def refused() -> int:
    """How many calls this process was refused."""
    return _STATE.refused


def _hook(event: str, args: tuple[Any, ...]) -> None:
    handler = _HANDLERS.get(event)
    if handler is None or _STATE.mode == OFF:
        return
    for path, dir_fd, kind in handler(args):
        _check(path, dir_fd, kind)


def _check(path: Any, dir_fd: int | None, kind: str) -> None:
    full = _absolute(path, dir_fd)
    if full is None:
        return
    rel = _inside(full)
    if rel is None:
        return
    if kind == WRITE:  # makes the path when it is not there, else changes it
        kind = CHANGE if os.path.lexists(full) else CREATE
    if kind == CREATE:
        # ``os.makedirs(".", exist_ok=True)`` asks to make what is there: it makes nothing,
        # and allowing it would allow everything under it
        if os.path.lexists(full):
            return
        if _STATE.mode == ENFORCE:
            _STATE.created.add(rel)
            return
    if _STATE.mode == RECORD:
        if rel not in _STATE.touched:  # as it was before the test's first call on it
            _STATE.touched[rel] = (full, _signature(full))
        return
    if _allowed(rel) or not os.path.lexists(full):
        return
    _STATE.refused += 1
    raise PermissionError(errno.EACCES, REFUSED, full)


def _signature(full: str) -> Signature | None:
    """What tells whether ``full`` changed: a directory by its inode (its entries change
    its time), anything else by inode, time, size and mode; None when it does not exist."""
    try:
        st = os.lstat(full)
    except OSError:
        return None
    if stat.S_ISDIR(st.st_mode):
        return (True, st.st_ino, 0, 0, 0)
    return (False, st.st_ino, st.st_mtime_ns, st.st_size, st.st_mode)


def _differs(full: str, before: Signature | None) -> bool:
    """Whether the path is not what it was (or was made: it did not exist before)."""
    return before is None or _signature(full) != before


def _allowed(rel: str) -> bool:
    """Whether ``rel`` or a directory holding it was touched by the baseline or made here."""
    while True:
        if rel in _STATE.allowed or rel in _STATE.created:
            return True
        parent = os.path.dirname(rel)
        if parent == rel or not parent:
            return "." in _STATE.allowed
        rel = parent


def _absolute(path: Any, dir_fd: int | None) -> str | None:
    """``path`` as an absolute one, its directory's links resolved; None for a descriptor."""
    if path is None or isinstance(path, int):
        return None
    try:
        name = os.fsdecode(path)
    except TypeError:
        return None
    if os.path.isabs(name):
        base = ""
    elif dir_fd is not None:
        try:
            base = os.readlink(f"/proc/self/fd/{dir_fd}")
        except OSError:
            return None
    else:
        try:
            base = os.getcwd()
        except OSError:
            return None
    full = os.path.normpath(os.path.join(base, name))
    return os.path.join(os.path.realpath(os.path.dirname(full)), os.path.basename(full))


def _inside(full: str) -> str | None:
    """``full`` relative to the project (``.`` for its root), or None when outside it or in
    an entry that others write (tddforge's run directory, bytecode caches)."""
    root = _STATE.root
    if full == root:
        return "."
    if not full.startswith(root + os.sep):
        return None
    rel = full[len(root) + 1 :]
    if rel.split(os.sep, 1)[0] in IGNORED:
        return None
    return rel


Touch = Tuple[Any, Optional[int], str]


def _dir_fd(args: tuple[Any, ...], index: int) -> int | None:
    value = args[index] if len(args) > index else None
    return value if isinstance(value, int) and value >= 0 else None


def _open(args: tuple[Any, ...]) -> list[Touch]:
    flags = args[2] if len(args) > 2 and isinstance(args[2], int) else 0
    if not flags & _WRITING:
        return []
    return [(args[0], None, WRITE if flags & os.O_CREAT else CHANGE)]


def _renamed(args: tuple[Any, ...]) -> list[Touch]:
    return [(args[0], _dir_fd(args, 2), CHANGE), (args[1], _dir_fd(args, 3), WRITE)]


def _changed(args: tuple[Any, ...]) -> list[Touch]:
    return [(args[0], None, CHANGE)]


def _changed_at(index: int) -> Callable[[tuple[Any, ...]], list[Touch]]:
    return lambda args: [(args[0], _dir_fd(args, index), CHANGE)]


def _made(index: int, fd_index: int) -> Callable[[tuple[Any, ...]], list[Touch]]:
    return lambda args: [(args[index], _dir_fd(args, fd_index), CREATE)]


_HANDLERS: dict[str, Callable[[tuple[Any, ...]], list[Touch]]] = {
    "open": _open,
    "os.remove": _changed_at(1),
    "os.rmdir": _changed_at(1),
    "shutil.rmtree": _changed_at(1),
    "os.rename": _renamed,
    "os.truncate": _changed,
    "os.chmod": _changed_at(2),
    "os.chown": _changed_at(3),
    "os.mkdir": _made(0, 2),
    "os.symlink": _made(1, 2),
    "os.link": _made(1, 3),
}
