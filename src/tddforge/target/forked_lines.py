"""The target lines a test runs in the processes it forks, kept for the baseline.

A test that forks (a pty spawn, a ``multiprocessing`` worker, a plain
``os.fork``) runs target code in its child: the lines between the fork and
the child's exec or exit. The child inherits the baseline's tracer, and
records them, but in its own memory, which it throws away. Those lines are
still the test's: a mutant there changes what the child does, and the test
sees it (a wrong exit status, a missing reply). Left out, such a mutant is
scored *no coverage* while the test kills it (measured: ptyprocess's
``spawn``, whose child closes every descriptor, then execs).

So while a test runs traced (``following``), a child forked by code under
test writes the lines its tracer holds to a file of its own just before it
ends: at ``os._exit``, at an ``exec``, or at interpreter exit. The file is
opened by name at that moment, as the child may have closed every
descriptor it inherited, in a directory named for the test that the first
such child makes: a test that forks nothing costs one ``stat``. A child
killed by a signal writes nothing. The lines read back are added to the test's.

Keep it compatible with Python 3.8+.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import tempfile
from typing import Any, Callable, Iterator

_EXECS = ("execv", "execve")  # the others (execl, execvp, execlpe, ...) call these two
_following: dict[str, Any] | None = None  # the test's tracer lines and where to write
_registered = False
_TOKEN = os.urandom(4).hex()  # no other process's directory has this process's name
_tests = [0]  # tests followed in this process, for the name of each one's directory


def _write_lines() -> None:
    state = _following
    if state is None:
        return
    state_lines: dict[str, set[int]] = state["lines"]
    data = {t: sorted(lines) for t, lines in state_lines.items() if lines}
    path = os.path.join(state["dir"], f"fork-{os.getpid()}.json")
    with contextlib.suppress(BaseException):
        os.makedirs(state["dir"], mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, json.dumps(data).encode())
        finally:
            os.close(fd)


def _writing_first(call: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        _write_lines()
        return call(*args, **kwargs)

    return wrapped


def _in_forked_child() -> None:
    """In a child forked while a test is followed: write its lines before it ends."""
    if _following is None:
        return
    os._exit = _writing_first(os._exit)
    for name in _EXECS:
        if hasattr(os, name):
            setattr(os, name, _writing_first(getattr(os, name)))
    atexit.register(_write_lines)


@contextlib.contextmanager
def following(lines: dict[str, set[int]]) -> Iterator[None]:
    """While the block runs, lines that processes it forks run are added to ``lines``
    (target -> line numbers, the tracer's own sets) when the block ends."""
    global _following, _registered
    if not hasattr(os, "register_at_fork"):
        yield
        return
    if not _registered:
        os.register_at_fork(after_in_child=_in_forked_child)
        _registered = True
    _tests[0] += 1
    name = f"tddforge-forks-{os.getpid()}-{_TOKEN}-{_tests[0]}"
    where = os.path.join(tempfile.gettempdir(), name)
    _following = {"lines": lines, "dir": where}
    try:
        yield
    finally:
        _following = None
        if os.path.isdir(where):  # a child of the test's wrote its lines
            for target, found in _read(where).items():
                if target in lines:
                    lines[target].update(found)
            shutil.rmtree(where, ignore_errors=True)


def _read(where: str) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for entry in os.listdir(where):
        path = os.path.join(where, entry)
        with contextlib.suppress(OSError, ValueError), open(path, encoding="utf-8") as handle:
            for name, numbers in json.load(handle).items():
                found.setdefault(name, []).extend(int(n) for n in numbers)
    return found
