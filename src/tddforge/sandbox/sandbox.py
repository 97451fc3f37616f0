"""Run one command confined: limits, cleared environment, wall timeout, group kill.

The confinement itself (namespaces, read-only file system, the uid the
command runs as) is built by :mod:`tddforge.sandbox.backend`; this module
owns the process: it starts the command in its own session, feeds its
input, keeps the tail of its output (so a test printing forever cannot
exhaust memory), and kills the whole process group at the wall timeout.

The child's environment is built from an allow-list (PATH, HOME, locale,
``PYTHONDONTWRITEBYTECODE``, ``PYTHONHASHSEED`` plus what the caller names)
and handed to ``Popen``; every backend passes exactly that on, so it has the
effect of bwrap's ``--clearenv``: API keys in our environment never reach
the child, and names that look like credentials are refused outright.

Nothing of ours goes into the work dir. What a run needs besides the
project (our pytest plugin, result files, coverage data) lives in a
``scratch()`` directory outside it, which the backend binds writable for
runs started while it is open, and which is removed when it closes. HOME
(and TMPDIR) are the private ``/tmp`` of the confining backends, and a
directory of the sandbox's own, removed with it, on the others.
"""

from __future__ import annotations

import contextlib
import os
import select
import selectors
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from tddforge.errors import SandboxError
from tddforge.sandbox.backend import (
    DEFAULT_UID,
    PRIVATE_TMP,
    Confinement,
    RLimits,
    choose_backend,
    confined_argv,
    drop_uid,
)

if TYPE_CHECKING:
    from tddforge.config import SandboxConfig

OUTPUT_CAP = 1 << 20  # bytes kept per stream: the last MiB
_DRAIN_AFTER_EXIT = 1.0  # seconds to read pipes still held open by an orphan
_SECRET_MARKERS = ("API_KEY", "TOKEN", "SECRET", "PASSWORD")
_USED: set[str] = set()  # the backends this process's sandboxes ran with

#: The variables a child may have set whatever it was started with (``_child_env``'s,
#: and the working directory's ``PWD``, which the confining backends set): the rest of
#: its environment is what the caller names (``Sandbox(env=...)``, ``extra_env``).
BASE_ENV = frozenset(
    {"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PWD"}
)


def used_backends() -> frozenset[str]:
    """The backends the sandboxes of this process were built with (for the one notice)."""
    return frozenset(_USED)


@dataclass(frozen=True)
class Limits:
    """Resource limits for one sandboxed command."""

    cpu_seconds: int = 600
    memory_mb: int = 4096
    file_size_mb: int = 256
    max_processes: int = 256
    wall_seconds: float = 600.0

    @classmethod
    def from_config(cls, cfg: SandboxConfig, wall_seconds: float) -> Limits:
        """Limits from the ``[tool.tddforge.sandbox]`` settings plus a wall timeout."""
        return cls(
            cpu_seconds=cfg.cpu_seconds,
            memory_mb=cfg.memory_mb,
            file_size_mb=cfg.file_size_mb,
            max_processes=cfg.max_processes,
            wall_seconds=wall_seconds,
        )

    def rlimits(self) -> RLimits:
        """The kernel limits, in bytes where the kernel wants bytes."""
        mib = 1 << 20
        return RLimits(
            self.cpu_seconds, self.memory_mb * mib, self.file_size_mb * mib, self.max_processes
        )


@dataclass(frozen=True)
class SandboxResult:
    """What one sandboxed command did."""

    argv: tuple[str, ...]
    returncode: int | None  # None when it was killed at the wall timeout
    stdout: str
    stderr: str
    timed_out: bool
    duration: float
    backend: str


class _Tail:
    """The last ``cap`` bytes of a stream."""

    def __init__(self, cap: int = OUTPUT_CAP) -> None:
        self.cap = cap
        self.data = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        """Append ``chunk``, forgetting the oldest bytes past twice the cap."""
        self.data += chunk
        if len(self.data) > 2 * self.cap:
            cut = len(self.data) - self.cap
            self.dropped += cut
            del self.data[:cut]

    def text(self) -> str:
        """The kept bytes decoded, with a note when some were dropped."""
        excess = max(0, len(self.data) - self.cap)
        body = bytes(self.data[excess:]).decode("utf-8", errors="replace")
        dropped = self.dropped + excess
        return f"[tddforge: {dropped} earlier bytes dropped]\n{body}" if dropped else body


class Sandbox:
    """Runs commands confined to ``work_dir`` under ``limits``."""

    def __init__(
        self,
        work_dir: Path,
        limits: Limits,
        *,
        readonly_paths: Sequence[Path] = (),
        env: Mapping[str, str] | None = None,
        backend: str | None = None,
        uid: int | None = DEFAULT_UID,
    ) -> None:
        if not Path(work_dir).is_dir():
            raise SandboxError(f"work dir {work_dir} is not a directory")
        self.work_dir = Path(work_dir).resolve()
        self.limits = limits
        self.readonly_paths = tuple(Path(p).resolve() for p in readonly_paths)
        self.env = _checked_env(env or {})
        self.uid = drop_uid(uid)
        self.backend = choose_backend(backend, uid)
        _USED.add(self.backend)
        self._scratch: set[Path] = set()
        self._home: Path | None = None
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def scratch(self) -> Iterator[Path]:
        """A fresh directory outside the work dir, writable by the runs started while it is open.

        It is removed when the block ends, whatever the run left in it.
        """
        path = Path(tempfile.mkdtemp(prefix="tddforge-run-")).resolve()
        with self._lock:
            self._scratch.add(path)
        try:
            yield path
        finally:
            with self._lock:
                self._scratch.discard(path)
            shutil.rmtree(path, ignore_errors=True)

    @property
    def private_home(self) -> Path | None:
        """The host directory serving as HOME and TMPDIR, on the backends without a private /tmp."""
        return self._home

    def close(self) -> None:
        """Remove the sandbox's own HOME, when it has one (only the weaker backends do)."""
        with self._lock:
            home, self._home = self._home, None
        if home is not None:
            shutil.rmtree(home, ignore_errors=True)

    def run(
        self,
        argv: Sequence[str],
        *,
        cwd: Path | None = None,
        timeout: float | None = None,
        extra_env: Mapping[str, str] | None = None,
        input: str | None = None,
        readonly_paths: Sequence[Path] = (),
        protected: Sequence[Path] = (),
    ) -> SandboxResult:
        """Run ``argv`` confined and return its captured result.

        ``readonly_paths`` are made visible (read-only) for this run only: with
        bwrap, ``/tmp`` is private, so a directory there must be named. The
        program's own home (its venv, and the installation its symlink points
        to) is always made visible. ``protected``: paths inside the work dir this
        run may only read (on the backends that keep the root read-only, ``bwrap``
        and ``namespaces``; the others cannot).
        """
        full, env, workdir = self._prepare(argv, cwd, extra_env, readonly_paths, protected)
        wall = self.limits.wall_seconds if timeout is None else timeout
        return self._execute(tuple(argv), full, env, workdir, wall, input)

    def start(
        self,
        argv: Sequence[str],
        *,
        cwd: Path | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> subprocess.Popen[bytes]:
        """Start a long-lived confined process with stdin/stdout pipes (stderr discarded).

        There is no wall timeout: the caller owns the process and ends it with
        ``stop``. Used by the mutation engine's warm worker. Start it from a thread
        that outlives it: bwrap's ``--die-with-parent`` kills the sandbox when the
        *thread* that started it ends (a pool thread's process dies with the pool).
        """
        full, env, workdir = self._prepare(argv, cwd, extra_env, ())
        try:
            return subprocess.Popen(
                full,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
                cwd=workdir,
                start_new_session=True,
            )
        except OSError as exc:
            raise SandboxError(f"cannot start {argv[0]}: {exc}") from exc

    @staticmethod
    def stop(proc: subprocess.Popen[bytes]) -> None:
        """Kill a process from ``start`` with its whole process group, and reap it."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):  # unsent input to a dead process
                    stream.close()
        proc.wait()

    def _prepare(
        self,
        argv: Sequence[str],
        cwd: Path | None,
        extra_env: Mapping[str, str] | None,
        readonly_paths: Sequence[Path],
        protected: Sequence[Path] = (),
    ) -> tuple[list[str], dict[str, str], Path]:
        """The confined command line, its environment and working directory."""
        if not argv:
            raise SandboxError("empty command")
        env = self._child_env(extra_env or {})
        workdir = Path(cwd).resolve() if cwd is not None else self.work_dir
        if not workdir.is_dir():
            raise SandboxError(f"cwd {workdir} is not a directory")
        program = _check_executable(argv[0], env["PATH"], workdir)
        named = (*self.readonly_paths, *(Path(p).resolve() for p in readonly_paths))
        visible = tuple(dict.fromkeys((*named, *program_homes(program, self.work_dir))))
        with self._lock:
            writable = tuple(sorted(self._scratch))
        inside = tuple(p.resolve() for p in map(Path, protected) if _within(p, self.work_dir))
        box = Confinement(self.work_dir, workdir, visible, self.uid, writable, inside)
        return confined_argv(self.backend, list(argv), box, self.limits.rlimits()), env, workdir

    def _execute(
        self,
        argv: tuple[str, ...],
        full: list[str],
        env: dict[str, str],
        cwd: Path,
        wall: float,
        input_text: str | None,
    ) -> SandboxResult:
        start = time.monotonic()
        stdin = subprocess.PIPE if input_text is not None else subprocess.DEVNULL
        try:
            proc = subprocess.Popen(
                full,
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                cwd=cwd,
                start_new_session=True,
            )
        except OSError as exc:
            raise SandboxError(f"cannot start {argv[0]}: {exc}") from exc
        data = input_text.encode() if input_text is not None else None
        out, err, timed_out = _pump(proc, data, start + wall)
        returncode = None if timed_out else proc.returncode
        duration = time.monotonic() - start
        return SandboxResult(argv, returncode, out, err, timed_out, duration, self.backend)

    def _child_env(self, extra: Mapping[str, str]) -> dict[str, str]:
        """The allow-listed environment (``BASE_ENV``); nothing else of ours reaches the child."""
        home = self._home_dir()
        env: dict[str, str] = {
            "PATH": os.environ.get("PATH") or os.defpath,
            "HOME": home,
            "TMPDIR": home,
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",
        }
        return {**env, **self.env, **_checked_env(extra)}

    def _home_dir(self) -> str:
        """``/tmp`` where it is private to the run; else the sandbox's own directory."""
        if self.backend in PRIVATE_TMP:
            return "/tmp"  # a fresh tmpfs per run
        with self._lock:
            if self._home is None:
                self._home = Path(tempfile.mkdtemp(prefix="tddforge-home-"))
                weakref.finalize(self, shutil.rmtree, self._home, ignore_errors=True)
            return str(self._home)


def _checked_env(env: Mapping[str, str]) -> dict[str, str]:
    """Refuse variables that look like credentials: they must never reach the child."""
    for name in env:
        if any(marker in name.upper() for marker in _SECRET_MARKERS):
            raise SandboxError(f"refusing to pass {name} into the sandbox")
    return dict(env)


def _check_executable(program: str, path: str, cwd: Path) -> Path:
    """The program's path; fail early, with our error, when it does not exist."""
    if "/" in program:
        candidate = cwd / program
        found = str(candidate) if os.access(candidate, os.X_OK) and candidate.is_file() else None
    else:
        found = shutil.which(program, path=path)
    if found is None:
        raise SandboxError(f"no such executable: {program}")
    return Path(found)


def program_homes(program: Path, work_dir: Path) -> tuple[Path, ...]:
    """Where a program lives (``<prefix>/bin/prog`` → prefix), for it and every symlink hop.

    A venv's python is a symlink into the base installation (sometimes through
    another venv): every prefix on the way is needed for it to start. Homes
    inside the work dir are visible anyway.
    """
    homes = [exe.parent.parent for exe in (*_symlink_hops(program.absolute()), program.resolve())]
    outside = (h for h in homes if h != work_dir and work_dir not in h.parents and h != Path("/"))
    return tuple(dict.fromkeys(outside))


def _symlink_hops(path: Path, limit: int = 16) -> list[Path]:
    """``path`` and every link it passes through (a venv of a venv under /tmp has two)."""
    hops = [path]
    while path.is_symlink() and len(hops) <= limit:
        target = Path(os.readlink(path))
        path = target if target.is_absolute() else path.parent / target
        hops.append(path)
    return hops


def _pump(
    proc: subprocess.Popen[bytes], data: bytes | None, deadline: float
) -> tuple[str, str, bool]:
    """Feed stdin, keep the tail of stdout/stderr, kill the group at ``deadline``."""
    assert proc.stdout is not None and proc.stderr is not None
    tails = {proc.stdout.fileno(): _Tail(), proc.stderr.fileno(): _Tail()}
    with selectors.DefaultSelector() as sel:
        for pipe in (proc.stdout, proc.stderr):
            sel.register(pipe, selectors.EVENT_READ)
        if data is not None and proc.stdin is not None:
            sel.register(proc.stdin, selectors.EVENT_WRITE)
        timed_out = _select_loop(proc, sel, tails, data or b"", deadline)
    timed_out = timed_out or _wait(proc, deadline)
    _kill_group(proc)
    proc.wait()
    for leftover in (proc.stdin, proc.stdout, proc.stderr):
        if leftover is not None:
            leftover.close()
    out, err = (tail.text() for tail in tails.values())
    return out, err, timed_out


def _select_loop(
    proc: subprocess.Popen[bytes],
    sel: selectors.BaseSelector,
    tails: dict[int, _Tail],
    data: bytes,
    deadline: float,
) -> bool:
    """Move bytes until the pipes close; True when the wall deadline passed first."""
    offset, stdin = 0, proc.stdin
    while sel.get_map():
        now = time.monotonic()
        if now >= deadline:
            return proc.poll() is None
        if proc.poll() is not None:
            deadline = min(deadline, now + _DRAIN_AFTER_EXIT)
        for key, _ in sel.select(timeout=min(deadline - now, 0.25)):
            fd = key.fd
            if key.events & selectors.EVENT_WRITE:
                assert stdin is not None
                offset = _feed(sel, stdin, data, offset)
                continue
            chunk = os.read(fd, 65536)
            if chunk:
                tails[fd].add(chunk)
            else:
                sel.unregister(key.fileobj)
    return False


def _feed(sel: selectors.BaseSelector, stream: IO[bytes], data: bytes, offset: int) -> int:
    """Write the next piece of stdin; close it when done or when the child stopped reading."""
    try:
        offset += os.write(stream.fileno(), data[offset : offset + select.PIPE_BUF])
    except BrokenPipeError:
        offset = len(data)
    if offset >= len(data):
        sel.unregister(stream)
        stream.close()
    return offset


def _wait(proc: subprocess.Popen[bytes], deadline: float) -> bool:
    """Wait for a command that closed its pipes; True when the deadline passed first."""
    try:
        proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return True
    return False


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the command's whole process group (it leads its own session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _within(path: Path, work_dir: Path) -> bool:
    """Whether ``path`` is inside ``work_dir`` (and not the work dir itself)."""
    resolved = Path(path).resolve()
    return resolved != work_dir and resolved.is_relative_to(work_dir)
