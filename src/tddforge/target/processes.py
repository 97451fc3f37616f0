"""Process control: fork + pipe, CPU and wall-clock limits, a pool of children with verdicts.

Every child here reports on a pipe and ends with ``os._exit``: it never
returns into the caller's code (pytest's session end, the parent's loop).

Code under test forks too, and a child of its own can come back into ours: a
test's ``pty.fork()`` child that raises before it execs (ptyprocess's ``spawn``
with a ``cwd`` the child cannot enter) unwinds out of the test, and that copy
of the whole process goes on with the session, writing on our pipes (or
failing on them, after closing every descriptor it inherited). Each process
knows the pid it had when tddforge forked it; a copy with another is a
*stray* and ends as soon as it reaches our code (``end_if_stray``).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import time
from typing import Any, Callable, Dict, Generic, Mapping, NoReturn, Tuple, TypeVar

from .project_guard import clean
from .protocol import ChildVerdict

# the signals that end a child which ran out of CPU time
OUT_OF_CPU = (signal.SIGPROF, signal.SIGXCPU, signal.SIGKILL)

#: the exit status of a stray (EX_SOFTWARE): a copy that code under test forked and that
#: came back into tddforge's code or pytest's instead of exec'ing or exiting
STRAY_STATUS = 70
#: the exit status of a ``Pool`` child whose test killed the mutant and closed the pipe the
#: verdict goes on (a pty child's ``closerange``, run by the parent when a mutant flips
#: ``if pid == 0``): the verdict travels in the status
KILLED_UNSENT = 71
_OWNER = os.getpid()  # this process, or the child ``fork`` made: whose work counts


def fork() -> int:
    """``os.fork`` for a child of tddforge's own, which is then the process whose work
    counts (``stray``): 0 in the child, its pid in the parent."""
    global _OWNER
    pid = os.fork()
    if pid == 0:
        _OWNER = os.getpid()
    return pid


def fork_child(body: Callable[[], int]) -> int:
    """Fork a child of tddforge's own (``fork``) that runs ``body`` and ends with the status
    it returns, 1 when it raises: it never returns into the caller's code. Its pid, here."""
    pid = fork()
    if pid == 0:
        code = 1
        try:
            code = body()
        finally:
            os._exit(code)
    return pid


def stray() -> bool:
    """Whether this process is a copy that code under test forked, not tddforge."""
    return os.getpid() != _OWNER


def end_if_stray() -> None:
    """End this process at once, writing nothing, when it is a stray."""
    if stray():
        os._exit(STRAY_STATUS)


def quiet(stderr_to: str | None = None) -> None:
    """Send a child's output to /dev/null (stderr optionally to a file): verdicts travel by pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    if stderr_to is None:
        os.dup2(devnull, 2)
    else:
        errors = os.open(stderr_to, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(errors, 2)
        os.close(errors)
    os.close(devnull)


def limit_cpu(seconds: float, backstop: float | None = None) -> None:
    """End this process once it has used ``seconds`` more CPU time.

    ``ITIMER_PROF`` measures the process's CPU time exactly and raises SIGPROF
    (which ends the process unless it is handled); ``RLIMIT_CPU`` (whole seconds
    from the process's start, raised by the kernel even while C code runs) is a
    backstop a second or more later, set once, at ``backstop`` seconds from now
    when given (a hard limit can only be lowered).
    """
    cpu_timer(seconds)
    try:
        import resource

        used = time.process_time()
        limit = max(1, int(used + (backstop or seconds) + 1.999))
        resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1))
    except (ImportError, ValueError, OSError):
        pass


class _TestClock:
    """A tests' child's CPU schedule (``limit_tests``), in CPU seconds of the child."""

    def __init__(self) -> None:
        self.end = 0.0  # when its whole budget is spent
        self.deadlines: Mapping[str, float] = {}  # test -> seconds from the first test's start
        self.first: float | None = None  # when its first test started


_CLOCK = _TestClock()
# Before each test, a ``Pool`` child writes this byte, the test's node id and a newline on
# its pipe: a child that ran out of time (and so wrote no verdict) is known by its last one.
STARTS = b"\x1f"


def limit_tests(seconds: float, deadlines: Mapping[str, float] | None = None) -> None:
    """``limit_cpu`` for a ``Pool`` child that runs tests (``run_items``).

    ``deadlines`` gives, per test, the CPU seconds the child may have used by that
    test's end, counted from its first test's start: what comes before (switching
    the mutant on, importing, collecting) has its own share of ``seconds``, which
    the tests do not inherit. Each test re-arms the timer (``starting_test``), so an
    endless loop in an early test ends at its own deadline instead of at the whole
    run's, and never later than ``seconds`` from now.
    """
    _CLOCK.end = time.process_time() + seconds
    _CLOCK.deadlines = deadlines or {}
    _CLOCK.first = None
    limit_cpu(seconds)


def starting_test(nodeid: str) -> None:
    """In a tests' child: ``nodeid`` runs now, within its deadline (``limit_tests``); a
    ``Pool`` child says so on its pipe, for a timeout to name the test it ran out in."""
    if _VERDICT_FD is not None:
        os.write(_VERDICT_FD, STARTS + nodeid.encode("utf-8", "replace") + b"\n")
    deadline = _CLOCK.deadlines.get(nodeid)
    if deadline is None:
        return
    now = time.process_time()
    if _CLOCK.first is None:
        _CLOCK.first = now
    cpu_timer(min(_CLOCK.end, _CLOCK.first + deadline) - now)


def last_started(written: bytes) -> tuple[str | None, bytes]:
    """What a ``Pool`` child wrote, split: the test it started last (None: none), and its
    verdict's JSON (empty when it wrote none). The JSON holds no newline."""
    if not written.startswith(STARTS):
        return None, written
    starts, _, verdict = written.rpartition(b"\n")
    last = starts.rsplit(b"\n", 1)[-1]
    return last[len(STARTS) :].decode("utf-8", "replace"), verdict


def cpu_timer(seconds: float) -> None:
    """SIGPROF once this process has used ``seconds`` more CPU time (exactly)."""
    with contextlib.suppress(AttributeError, ValueError, OSError):
        signal.setitimer(signal.ITIMER_PROF, max(seconds, 0.001))


def wall_limit(cpu_seconds: float) -> float:
    """The wall-clock limit of a child whose CPU is limited to ``cpu_seconds``.

    The CPU limit decides what is slow: it does not depend on how busy the
    machine is, and the reference run (``--verify``) judges by CPU time too. The
    wall limit only catches a child that waits without computing (a sleep, a
    blocked read), with room for a machine whose cores are shared. It never drops
    below 4 s: a low CPU floor (a suite of fast tests) ends an endless loop sooner,
    not a wait.
    """
    return 3 * max(cpu_seconds, 1.0) + 1.0


def send(fd: int, data: Mapping[str, object]) -> None:
    """Write ``data`` as JSON on a pipe, all of it."""
    payload = json.dumps(data).encode()
    view = memoryview(payload)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def read_all(fd: int, wall: float | None = None, pid: int = 0) -> bytes:
    """Everything written on a pipe until its last writer closed it; closes it here.

    With ``wall``, a writer that takes longer than ``wall`` seconds gets ``pid``
    killed and ``b""`` returned.
    """
    deadline = None if wall is None else time.monotonic() + wall
    chunks: list[bytes] = []
    try:
        while True:
            if deadline is not None and not _readable(fd, deadline):
                os.kill(pid, signal.SIGKILL)
                return b""
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


def _readable(fd: int, deadline: float) -> bool:
    left = deadline - time.monotonic()
    return bool(select.select([fd], [], [], max(left, 0))[0])


def drain(fd: int, pid: int) -> bytes:
    """Everything a child wrote on its pipe, once it has exited (and been reaped)."""
    data = read_all(fd)
    os.waitpid(pid, 0)
    return data


def in_fork(
    work: Callable[[], bytes], failed: Callable[[BaseException], bytes], wall: float | None
) -> tuple[bytes, int]:
    """Run ``work`` in a forked child and read what it returns (``failed(exc)`` when it
    raises), killing the child after ``wall`` seconds (None: no limit): the bytes (empty
    when it died or was killed) and its wait status."""
    read_end, write_end = os.pipe()

    def child() -> int:
        os.close(read_end)
        try:
            data = work()
        except BaseException as exc:
            end_if_stray()
            data = failed(exc)
        end_if_stray()
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(data)
        return 0

    pid = fork_child(child)
    os.close(write_end)
    data = read_all(read_end, wall, pid)
    _, status = os.waitpid(pid, 0)
    return data, status


def reap(pid: int, timeout: float) -> bool:
    """Reap ``pid``; False when it had to be killed after ``timeout`` seconds (0: no limit)."""
    deadline = time.monotonic() + timeout
    while timeout > 0:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return True
        if time.monotonic() >= deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return False
        time.sleep(0.005)
    os.waitpid(pid, 0)
    return True


_VERDICT_FD: int | None = None  # in a child forked by ``Pool``: where its verdict goes


def in_pool_child() -> bool:
    """Whether this process is a ``Pool`` child (which must end with ``deliver``)."""
    return _VERDICT_FD is not None


def deliver(result: ChildVerdict) -> NoReturn:
    """End a ``Pool`` child with its verdict, at once: nothing after it can change the verdict,
    and pytest's session end (summaries, its garbage collections) costs more than a test."""
    end_if_stray()
    code = 0
    try:
        if _VERDICT_FD is not None:
            send(_VERDICT_FD, result)
    except BaseException:
        code = KILLED_UNSENT if result.get("verdict") == "killed" else 1
    with contextlib.suppress(BaseException):
        clean()  # what the mutant's tests made in the project
    os._exit(code)


K = TypeVar("K")
Done = Callable[[K, ChildVerdict], None]
# fd -> (pid, deadline, key, what it wrote so far, when it was forked)
_Running = Dict[int, Tuple[int, float, Any, bytearray, float]]


def _unsent(status: int, running: str | None) -> ChildVerdict:
    """The verdict of a ``Pool`` child that wrote none, from how it ended."""
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == KILLED_UNSENT:
        return {"verdict": "killed", "killer": running or "", "detail": "verdict pipe closed"}
    killed_by = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    verdict = "timeout" if killed_by in OUT_OF_CPU else "error"
    return {"verdict": verdict, "detail": f"child ended with status {status}"}


class Slots:
    """Worker slots shared by the processes forked after it: a pipe holding one byte per
    free slot. Pools in different processes (the collector, the fresh host) then run at
    most ``count`` children between them, and a slot one frees goes to whichever asks."""

    def __init__(self, count: int):
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)
        os.write(self.write_fd, b"." * max(1, count))

    def take(self) -> bool:
        """Take a free slot, if there is one."""
        try:
            return bool(os.read(self.read_fd, 1))
        except BlockingIOError:
            return False

    def give(self) -> None:
        """Free a slot."""
        os.write(self.write_fd, b".")


# A pool with no child of its own running waits this long for a shared slot at most: a
# slot is never lost to a crashed sibling for good.
_SLOT_PATIENCE = 30.0

# A child that used less than this share of a core over the last ``_IDLE_WINDOW`` seconds
# waits without computing (a socket nobody answers, a sleep): its slot goes to the next
# child while it waits out its wall limit (boltons' socket tests: 92 mutants of 8 s each,
# their cores idle). At most ``_WAITING_PER_SLOT`` times ``size`` children wait so at once
# (socketutils alone: 118 s with 2 waiting beside 2 workers, 55 s with 16). A waiting
# child that computes again (``_BUSY_SHARE`` of a core) takes a slot back: the children
# that compute stay as many as the cores given, and none is starved past its wall limit.
_IDLE_SHARE = 0.05
_BUSY_SHARE = 0.5
_WAITING_PER_SLOT = 8
_IDLE_WINDOW = 0.25
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_WATCHED = os.path.exists("/proc/self/stat")  # else no child is ever taken for idle


def cpu_seconds(pid: int) -> float | None:
    """The CPU time a running process has used so far (``/proc``; None elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rpartition(b")")[2].split()
    except OSError:
        return None
    try:
        return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime
    except (IndexError, ValueError):
        return None


class Pool(Generic[K]):
    """Forks children (at most ``size`` at once, or as many as ``slots`` allow); each reports
    one JSON object on a pipe."""

    def __init__(self, size: int, slots: Slots | None = None):
        self.size = max(1, size)
        self.waiting = _WAITING_PER_SLOT * self.size  # children waiting without computing, at most
        self.slots = slots
        self.running: _Running = {}
        #: children waiting without computing, whose slots went to others (``_IDLE_SHARE``)
        self.idle: set[int] = set()
        #: children that computed again after waiting, with no shared slot free to take back
        self.unpaid: set[int] = set()
        self._samples: dict[int, tuple[float, float]] = {}  # fd -> (when, CPU so far)

    def submit(
        self, key: K, timeout: float, body: Callable[[], ChildVerdict], on_done: Done[K]
    ) -> None:
        """Fork a child that reports ``body()``."""
        if self.spawn(key, timeout, on_done):
            try:
                result = body()
            except BaseException as exc:
                result = {"verdict": "error", "detail": f"{type(exc).__name__}: {exc}"[:500]}
            deliver(result)

    def spawn(self, key: K, timeout: float, on_done: Done[K]) -> bool:
        """Fork a child; True in the child, which must end with ``deliver``."""
        global _VERDICT_FD
        self._wait_for_room(on_done)
        read_fd, write_fd = os.pipe()
        pid = fork()
        if pid == 0:
            os.close(read_fd)
            for fd in self.running:  # the siblings' pipes are the parent's business
                os.close(fd)
            self.running = {}
            self.idle, self.unpaid, self._samples = set(), set(), {}
            _VERDICT_FD = write_fd
            return True
        os.close(write_fd)
        now = time.monotonic()
        self.running[read_fd] = (pid, now + timeout, key, bytearray(), now)
        return False

    def _wait_for_room(self, on_done: Done[K]) -> None:
        while len(self.running) - len(self.idle) >= self.size:
            self._reap_one(on_done)
        if self.slots is None:
            return
        alone_since = time.monotonic()
        while not self.slots.take():
            if self.running:
                self._reap_one(on_done, self.slots.read_fd)
                alone_since = time.monotonic()
            elif time.monotonic() - alone_since > _SLOT_PATIENCE:
                self.slots.give()  # a sibling lost one: make it good
            else:
                select.select([self.slots.read_fd], [], [], 1.0)

    def reap(self, on_done: Done[K]) -> None:
        """Wait for one child to report or time out (none running: return at once)."""
        if self.running:
            self._reap_one(on_done)

    def drain(self, on_done: Done[K]) -> None:
        """Wait for every child still running."""
        while self.running:
            self._reap_one(on_done)

    def _reap_one(self, on_done: Done[K], also: int | None = None) -> None:
        """Wait for a child to report or time out (or for ``also`` to become readable)."""
        now = time.monotonic()
        soonest = min(entry[1] for entry in self.running.values())
        if _WATCHED:
            soonest = min(soonest, now + _IDLE_WINDOW)  # look at what the children do then
        watched = list(self.running) + ([] if also is None else [also])
        ready, _, _ = select.select(watched, [], [], max(0.0, soonest - now))
        for fd in ready:
            if fd == also:
                continue
            chunk = os.read(fd, 65536)
            if chunk:
                self.running[fd][3].extend(chunk)
                continue
            self._finish(fd, on_done, timed_out=False)
        now = time.monotonic()
        for fd, entry in list(self.running.items()):
            if now >= entry[1]:
                self._finish(fd, on_done, timed_out=True)
        if _WATCHED:
            self._watch(time.monotonic())

    def _watch(self, now: float) -> None:
        """Lend the slot of each child that computed next to nothing over the last
        ``_IDLE_WINDOW`` to the next child, up to ``waiting`` such children at once, and
        take a slot back for a waiting child that computes again. Only when children start
        changes: what a child is judged by (its CPU time, its wall limit) does not."""
        for fd, entry in self.running.items():
            if now - entry[4] < _IDLE_WINDOW:
                continue
            used = cpu_seconds(entry[0])
            if used is None:
                continue  # it has just ended
            before = self._samples.setdefault(fd, (now, used))
            if now - before[0] < _IDLE_WINDOW:
                continue  # its first reading, or too recent a one
            self._samples[fd] = (now, used)
            share = (used - before[1]) / (now - before[0])
            if fd in self.idle:
                if share >= _BUSY_SHARE:
                    self._back(fd)
            elif share < _IDLE_SHARE and len(self.idle) < self.waiting:
                self._lend(fd)

    def _lend(self, fd: int) -> None:
        self.idle.add(fd)
        if fd in self.unpaid:
            self.unpaid.discard(fd)  # the slot it computed on again was never taken
        elif self.slots is not None:
            self.slots.give()

    def _back(self, fd: int) -> None:
        self.idle.discard(fd)
        if self.slots is not None and not self.slots.take():
            self.unpaid.add(fd)  # none free: its own end gives none back

    def _finish(self, fd: int, on_done: Done[K], timed_out: bool) -> None:
        pid, _, key, buf, forked = self.running.pop(fd)
        self._samples.pop(fd, None)
        if fd in self.idle or fd in self.unpaid:
            self.idle.discard(fd)  # its slot went to another child already
            self.unpaid.discard(fd)
        elif self.slots is not None:
            self.slots.give()
        wall = time.monotonic() - forked
        if timed_out:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        os.close(fd)
        _, status, usage = os.wait4(pid, 0)
        cpu = usage.ru_utime + usage.ru_stime
        running, written = last_started(bytes(buf))
        if timed_out:
            result: ChildVerdict = {"verdict": "timeout"}
        else:
            try:
                result = json.loads(written)
            except ValueError:
                result = _unsent(status, running)
        if result.get("verdict") == "timeout" and running is not None:
            result["killer"] = running  # the test it ran out of time in
        result["wall"] = wall
        result["cpu"] = cpu
        on_done(key, result)
