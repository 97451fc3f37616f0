"""Build the command line that confines one command, per backend.

Three backends, best first:

``bwrap``
    bubblewrap: read-only ``/``, fresh ``/dev``, ``/proc`` and ``/tmp``, the
    work dir bound writable, no network (own net namespace; its loopback is
    not the host's, so a listener on the host's 127.0.0.1 is unreachable),
    own pid namespace, ``--die-with-parent`` so killing bwrap kills every
    process inside, even one that called ``setsid``.
``unshare``
    util-linux ``unshare --net --pid --fork --kill-child``: no network and
    the same "pid 1 dies, everything dies" guarantee, but the file system
    is not confined. Loopback starts down in a new net namespace; it is
    brought up (``ip link set lo up``) when ``ip`` exists, only so that
    tests which serve on 127.0.0.1 work; isolation does not depend on it.
``none``
    a plain subprocess in its own session. Only limits, the uid drop below
    and the wall timeout apply; a grandchild that calls ``setsid`` escapes
    the group kill.

Every backend runs under ``prlimit`` (CPU, address space, file size,
processes, no core files); ``prlimit`` is an exec, not a ``preexec_fn``,
so starting a sandbox is safe from a multi-threaded parent.

Root and RLIMIT_NPROC: the kernel never applies RLIMIT_NPROC to a process
whose real uid is 0, even without capabilities and even inside a user
namespace mapping 0 to 0, so a fork bomb run as root is only stopped by the
wall timeout. When we are root and ``setpriv`` exists, the command is
therefore run as an unprivileged uid (65534 by default; give each parallel
slot its own) *inside* the namespaces bwrap/unshare set up as root. That
uid keeps exactly one capability, ``CAP_DAC_OVERRIDE`` (ambient, bounding
set reduced to it, ``no_new_privs``): without it it could not read the
interpreter under ``/root/.pyenv`` (``/root`` is mode 700) nor write a work
dir created by root with mode 700 (pytest's ``tmp_path``). Measured here:
with the drop a fork bomb stops at the limit in milliseconds; without it
it runs until the wall timeout. The uid still sees no more than root would
(bwrap mounts everything but the work dir and ``/tmp`` read-only), and it
cannot signal host processes, mount, or raise limits. Not root: the
limit applies to all of the user's processes, so it is set relative to
the count the user has when the command starts.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

BACKENDS = ("bwrap", "unshare", "none")
DEFAULT_UID = 65534
_PROBE_TIMEOUT = 10.0


@dataclass(frozen=True)
class Confinement:
    """Where the command may write and who it runs as."""

    work_dir: Path
    cwd: Path
    readonly_paths: tuple[Path, ...] = ()
    uid: int | None = None


@dataclass(frozen=True)
class RLimits:
    """Kernel resource limits, already in the units ``prlimit`` takes."""

    cpu_seconds: int
    memory_bytes: int
    file_size_bytes: int
    max_processes: int


def tool(name: str) -> str | None:
    """The absolute path of a system tool, or None when it is not installed."""
    return shutil.which(name, path=os.defpath + ":/usr/sbin:/sbin")


def drop_uid(requested: int | None = DEFAULT_UID) -> int | None:
    """The uid to drop to: only when we are root and ``setpriv`` exists."""
    if requested is None or os.geteuid() != 0 or tool("setpriv") is None:
        return None
    return requested


def count_processes(uid: int) -> int:
    """How many processes ``uid`` owns now (what RLIMIT_NPROC counts against)."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                count += entry.stat().st_uid == uid
            except OSError:  # the process exited while we looked
                continue
    return count


def prlimit_prefix(limits: RLimits, uid: int | None) -> list[str]:
    """``prlimit`` arguments applying ``limits`` to the command that follows."""
    owner = os.getuid() if uid is None else uid
    nproc = limits.max_processes + (count_processes(owner) if owner != 0 else 0)
    cpu = limits.cpu_seconds
    return [
        tool("prlimit") or "prlimit",
        f"--cpu={cpu}:{cpu + 5}",
        f"--as={limits.memory_bytes}",
        f"--fsize={limits.file_size_bytes}",
        f"--nproc={nproc}",
        "--core=0",
        "--",
    ]


def setpriv_prefix(uid: int) -> list[str]:
    """Become ``uid`` keeping only CAP_DAC_OVERRIDE (see the module docstring)."""
    return [
        tool("setpriv") or "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all,+dac_override",
        "--ambient-caps=+dac_override",
        "--bounding-set=-all,+dac_override",
        "--no-new-privs",
        "--",
    ]


def bwrap_prefix(box: Confinement) -> list[str]:
    """bubblewrap arguments: read-only root, writable work dir, no network."""
    args = [tool("bwrap") or "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    args += ["--perms", "1777", "--tmpfs", "/tmp"]
    for path in box.readonly_paths:
        args += ["--ro-bind", str(path), str(path)]
    # After the tmpfs, so a work dir under /tmp stays visible and writable.
    args += ["--bind", str(box.work_dir), str(box.work_dir)]
    if box.uid is None:
        args += ["--unshare-all", "--cap-drop", "ALL"] if os.geteuid() == 0 else ["--unshare-all"]
    else:
        # No user namespace: setpriv must reach a uid of the host.
        args += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
        args += ["--unshare-cgroup-try"]
    args += ["--die-with-parent", "--new-session", "--chdir", str(box.cwd)]
    return args + (setpriv_prefix(box.uid) if box.uid is not None else [])


def unshare_prefix(box: Confinement) -> list[str]:
    """util-linux unshare arguments: own net and pid namespaces."""
    args = [tool("unshare") or "unshare"]
    if os.geteuid() != 0:
        args.append("--map-root-user")
    args += ["--net", "--pid", "--fork", "--kill-child"]
    ip = tool("ip")
    if ip is not None:
        args += ["/bin/sh", "-c", f'{ip} link set lo up 2>/dev/null; exec "$@"', "sh"]
    return args + (setpriv_prefix(box.uid) if box.uid is not None else [])


def confined_argv(
    backend: str, argv: Sequence[str], box: Confinement, limits: RLimits
) -> list[str]:
    """The full command line running ``argv`` confined by ``backend``."""
    if backend == "bwrap":
        inner = bwrap_prefix(box)
    elif backend == "unshare":
        inner = unshare_prefix(box)
    else:
        inner = setpriv_prefix(box.uid) if box.uid is not None else []
    return [*prlimit_prefix(limits, box.uid), *inner, *argv]


@functools.cache
def backend_works(backend: str, uid: int | None) -> bool:
    """Whether ``backend`` can start a command here (probed once, then cached)."""
    if backend == "none":
        return True
    needed = ("prlimit", backend) + (("setpriv",) if uid is not None else ())
    if any(tool(name) is None for name in needed):
        return False
    with tempfile.TemporaryDirectory(prefix="tddforge-probe-") as tmp:
        box = Confinement(work_dir=Path(tmp), cwd=Path(tmp), uid=uid)
        limits = RLimits(60, 1 << 30, 1 << 20, 64)
        argv = confined_argv(backend, ["/bin/sh", "-c", "echo ok > probe"], box, limits)
        try:
            done = subprocess.run(
                argv, cwd=tmp, capture_output=True, timeout=_PROBE_TIMEOUT, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
        return done.returncode == 0 and (Path(tmp) / "probe").is_file()


def detect_backend(uid: int | None = DEFAULT_UID) -> str:
    """The strongest backend that works here for commands run as ``drop_uid(uid)``."""
    uid = drop_uid(uid)
    for backend in BACKENDS:
        if backend_works(backend, uid):
            return backend
    return "none"  # pragma: no cover - "none" always works
