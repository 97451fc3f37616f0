"""What each sandbox backend guarantees, claimed and measured.

The claims are a table; ``measure`` checks each one by running a small
command under the backend and looking, from outside, at what it could do.
``tddforge sandbox-info`` prints both, and the tests assert that the two agree
on every backend the machine can run, so a claim that stops holding fails.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tddforge.errors import SandboxError
from tddforge.sandbox.backend import (
    BACKENDS,
    ENV_VAR,
    backend_problem,
    backend_works,
    choose_backend,
    drop_uid,
    requested_backend,
)
from tddforge.sandbox.sandbox import Limits, Sandbox

#: Guarantee name → what it means, in the words ``sandbox-info`` prints.
GUARANTEES: dict[str, str] = {
    "no_network": "no network: not even a listener on the host's 127.0.0.1 is reachable",
    "read_only_root": "nothing outside the work dir can be written",
    "private_pids": "the host's processes are invisible and cannot be signalled",
    "process_limit": "a fork bomb stops at the process limit",
    "no_orphans": "no process outlives the run, not even one that called setsid",
    "cleanup": "nothing is left in the project or in a HOME or TMPDIR of ours",
}

_FULL = frozenset(GUARANTEES)
_CLAIMS: dict[str, frozenset[str]] = {
    "bwrap": _FULL,
    "namespaces": _FULL,
    "unshare": _FULL - {"read_only_root"},
    "none": frozenset({"process_limit", "cleanup"}),
}


def claimed(backend: str, uid: int | None) -> frozenset[str]:
    """The guarantees ``backend`` gives for commands run as ``uid`` (None: our own uid).

    The kernel never applies the process limit to uid 0, so root with no uid to
    drop to (no ``setpriv``) has none.
    """
    claims = _CLAIMS[backend]
    return claims - {"process_limit"} if os.geteuid() == 0 and uid is None else claims


def notice(backends: frozenset[str]) -> str | None:
    """One line for a run that used a backend weaker than full confinement, else None."""
    weak = sorted((b for b in backends if _CLAIMS[b] != _FULL), key=BACKENDS.index)
    if not weak:
        return None
    backend = weak[-1]
    missing = ", ".join(sorted(_FULL - claimed(backend, drop_uid())))
    return (
        f"note: generated code ran under the weaker sandbox backend {backend!r} (missing: "
        f"{missing}); `tddforge sandbox-info` explains"
    )


@dataclass(frozen=True)
class Measured:
    """One backend's guarantees, as measured here (None: the backend cannot run here)."""

    backend: str
    holds: dict[str, bool] | None

    @property
    def available(self) -> bool:
        """Whether the backend can run a command on this machine."""
        return self.holds is not None


_LIMITS = Limits(cpu_seconds=30, memory_mb=1024, file_size_mb=8, max_processes=16, wall_seconds=30)
_FORKS = 64  # well above the probe's process limit of 16


def measure(backend: str) -> Measured:
    """Run one probe per guarantee under ``backend``; which of them hold."""
    if not backend_works(backend, drop_uid()):
        return Measured(backend, None)
    with tempfile.TemporaryDirectory(prefix="tddforge-guarantees-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        holds = {name: probe(Sandbox(work, _LIMITS, backend=backend)) for name, probe in _PROBES}
    return Measured(backend, holds)


def _python(box: Sandbox, code: str, timeout: float = 20.0) -> str:
    return box.run([sys.executable, "-I", "-c", code], timeout=timeout).stdout


def _no_network(box: Sandbox) -> bool:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        code = (
            "import socket\ntry:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=3).close()\n"
            "    print('CONNECTED')\nexcept OSError:\n    print('BLOCKED')\n"
        )
        return _python(box, code).strip() == "BLOCKED"


@contextlib.contextmanager
def _outside_dir() -> Iterator[Path]:
    """A directory outside the work dir and outside /tmp, so a private /tmp does not count."""
    base = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
    path = Path(tempfile.mkdtemp(prefix="tddforge-outside-", dir=base))
    try:
        yield path
    finally:
        for entry in path.iterdir():
            entry.unlink()
        path.rmdir()


def _read_only_root(box: Sandbox) -> bool:
    with _outside_dir() as outside:
        sibling = box.work_dir.parent / f"escaped-{uuid.uuid4().hex}"
        code = (
            "import pathlib\n"
            f"for target in [{str(outside / 'escaped')!r}, {str(sibling)!r}]:\n"
            "    try:\n        pathlib.Path(target).write_text('x')\n"
            "    except OSError:\n        pass\n"
        )
        _python(box, code)
        escaped = (outside / "escaped").exists() or sibling.exists()
        sibling.unlink(missing_ok=True)
        return not escaped


def _private_pids(box: Sandbox) -> bool:
    code = (
        "import errno, os\ntry:\n"
        f"    os.kill({os.getpid()}, 0)\n    print('VISIBLE')\n"
        "except OSError as exc:\n"
        "    print('PRIVATE' if exc.errno == errno.ESRCH else 'VISIBLE')\n"
    )
    return _python(box, code).strip() == "PRIVATE"


def _process_limit(box: Sandbox) -> bool:
    code = (
        "import os, time\nmade = 0\ntry:\n"
        f"    for _ in range({_FORKS}):\n"
        "        if os.fork() == 0:\n            time.sleep(2)\n            os._exit(0)\n"
        "        made += 1\nexcept OSError:\n    pass\nprint(made)\n"
    )
    made = _python(box, code).strip()
    return made.isdigit() and int(made) < _FORKS


def _no_orphans(box: Sandbox) -> bool:
    token = f"tddforge-orphan-{uuid.uuid4().hex}"
    code = (
        "import subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)', "
        f"{token!r}], start_new_session=True)\n"
    )
    _python(box, code)
    survivors = _wait_for_pids(token, lambda pids: not pids, seconds=3.0)
    for pid in survivors:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return not survivors


def _cleanup(box: Sandbox) -> bool:
    (box.work_dir / "probe_module.py").write_text("VALUE = 1\n")
    code = (
        "import os, tempfile\nimport probe_module\n"
        "open(os.path.join(os.environ['HOME'], 'home-file'), 'w').close()\n"
        "tempfile.mkstemp()\nprint(os.environ['HOME'], tempfile.gettempdir())\n"
    )
    box.run([sys.executable, "-c", code], extra_env={"PYTHONPATH": str(box.work_dir)})
    home = box.private_home
    box.close()
    left = sorted(p.name for p in box.work_dir.iterdir())
    (box.work_dir / "probe_module.py").unlink()
    return left == ["probe_module.py"] and (home is None or not home.exists())


def _wait_for_pids(token: str, done: Callable[[list[int]], bool], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while True:
        pids = pids_with(token)
        if done(pids) or time.monotonic() >= deadline:
            return pids
        time.sleep(0.05)


def pids_with(token: str) -> list[int]:
    """The host's processes whose command line holds ``token``."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as handle:
                if token.encode() in handle.read():
                    found.append(int(entry.name))
        except OSError as exc:
            if exc.errno not in (errno.ENOENT, errno.ESRCH, errno.EACCES):
                raise
    return found


_PROBES: tuple[tuple[str, Callable[[Sandbox], bool]], ...] = (
    ("no_network", _no_network),
    ("read_only_root", _read_only_root),
    ("private_pids", _private_pids),
    ("process_limit", _process_limit),
    ("no_orphans", _no_orphans),
    ("cleanup", _cleanup),
)


def overhead_ms(backend: str, runs: int = 5) -> float | None:
    """Median wall time of ``true`` under ``backend`` minus a bare run of it, in ms."""
    if not backend_works(backend, drop_uid()):
        return None
    with tempfile.TemporaryDirectory(prefix="tddforge-overhead-") as tmp:
        box = Sandbox(Path(tmp), _LIMITS, backend=backend)
        bare = median_ms(lambda: subprocess.run(["true"], check=False), runs)
        confined = median_ms(lambda: box.run(["true"]), runs)
    return round(confined - bare, 1)


def median_ms(action: Callable[[], object], runs: int) -> float:
    """Median wall time of ``action`` in milliseconds, after one warm-up run."""
    action()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def survey() -> dict[str, Any]:
    """Every backend measured, the one in use and why: what ``sandbox-info`` prints."""
    uid = drop_uid()
    try:
        backend = choose_backend()
        why = (
            f"named by {ENV_VAR}"
            if requested_backend() is not None
            else "the strongest that works here"
        )
    except SandboxError as exc:
        backend, why = "none", f"{exc}; commands would stop with this error"
    rows: list[dict[str, Any]] = []
    for name in BACKENDS:
        measured = measure(name)
        holds = measured.holds
        claims = claimed(name, uid)
        wrong = [g for g in GUARANTEES if holds is not None and holds[g] != (g in claims)]
        rows.append(
            {
                "backend": name,
                "problem": backend_problem(name, uid),
                "claimed": sorted(claims),
                "holds": holds,
                "mismatches": wrong,
                "overhead_ms": overhead_ms(name),
            }
        )
    runs_as = (
        f"uid {uid}, dropped from root by setpriv" if uid is not None else f"uid {os.geteuid()}"
    )
    return {
        "backend": backend,
        "why": why,
        "runs_as": runs_as,
        "backends": rows,
        "mismatches": sum(len(row["mismatches"]) for row in rows),
    }
