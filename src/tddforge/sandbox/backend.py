"""Build the command line that confines one command, per backend.

Four backends, best first (``tddforge sandbox-info`` measures what each
gives on the machine at hand; :mod:`tddforge.sandbox.guarantees` names them):

``bwrap``
    bubblewrap: read-only ``/``, fresh ``/dev``, ``/proc`` and ``/tmp``, the
    work dir bound writable, no network (own net namespace; its loopback is
    not the host's, so a listener on the host's 127.0.0.1 is unreachable),
    own pid namespace, ``--die-with-parent`` so killing bwrap kills every
    process inside, even one that called ``setsid``.
``namespaces``
    the same guarantees with no bubblewrap installed: our own launcher
    (:mod:`tddforge.sandbox.namespaces`, stdlib only) enters new mount,
    network and pid namespaces (and a user namespace when we are not root),
    makes the whole tree read-only but for the work dir and a private
    ``/tmp``, and runs the command under a pid 1 that takes every process
    with it when it dies.
``unshare``
    util-linux ``unshare --net --pid --fork --kill-child``: no network and
    the same "pid 1 dies, everything dies" guarantee, but the file system
    is not confined. Used only where mounts are refused (a kernel or
    security module that allows namespaces but not mounting in them).
    Loopback starts down in a new net namespace; it is brought up (``ip
    link set lo up``) when ``ip`` exists, only so that tests which serve on
    127.0.0.1 work; isolation does not depend on it.
``none``
    a plain subprocess in its own session. Only limits, the uid drop below
    and the wall timeout apply; a grandchild that calls ``setsid`` escapes
    the group kill.

``TDDFORGE_SANDBOX`` names the backend to use instead of the strongest that
works (``bwrap``, ``namespaces``, ``unshare``, ``none`` or ``auto``); a named
backend that does not work here is an error, never a silent downgrade.

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
dir created by root with mode 700 (pytest's ``tmp_path``); the ``no_setuid_fixup``
securebit lets ``os.access`` see that capability too, as open and exec do. Measured here:
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
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tddforge.errors import SandboxError

BACKENDS = ("bwrap", "namespaces", "unshare", "none")
ENV_VAR = "TDDFORGE_SANDBOX"
DEFAULT_UID = 65534
LAUNCHER = Path(__file__).with_name("namespaces.py")
_PROBE_TIMEOUT = 10.0


@dataclass(frozen=True)
class Confinement:
    """Where the command may write and who it runs as."""

    work_dir: Path
    cwd: Path
    readonly_paths: tuple[Path, ...] = ()
    uid: int | None = None
    #: Scratch directories outside the work dir that this run may write as well.
    writable_paths: tuple[Path, ...] = ()
    #: Paths inside the work dir that this run may read only (the project's own files,
    #: where generated code runs with arguments nobody chose: ``rm("fsspec")``).
    protected_paths: tuple[Path, ...] = ()


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
        # access(2) checks as the real uid and, for a uid other than 0, without its
        # capabilities unless this bit is set: every file under a root-only directory
        # (/root, a mkdtemp dir) was then "not accessible" while open() and exec worked
        "--securebits=+no_setuid_fixup",
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
    for path in box.writable_paths:  # another run's scratch, which may be removed meanwhile
        args += ["--bind-try", str(path), str(path)]
    for path in box.protected_paths:  # after the work dir's bind, which they are inside
        args += ["--ro-bind-try", str(path), str(path)]
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


def namespaces_prefix(box: Confinement, *, legacy_remount: bool = False) -> list[str]:
    """Our launcher's arguments: the namespaces, the mounts, then the command (see its module)."""
    python = sys.executable or tool("python3") or "python3"
    args = [python, "-I", "-S", "-B", str(LAUNCHER), f"work={box.work_dir}", f"cwd={box.cwd}"]
    args += [f"writable={p}" for p in box.writable_paths]
    args += [f"readonly={p}" for p in box.readonly_paths]
    args += [f"protected={p}" for p in box.protected_paths]
    if box.uid is None and os.geteuid() == 0:
        args.append("drop_caps=1")  # root with no uid to drop to: an empty bounding set
    if legacy_remount:
        args.append("legacy_remount=1")
    return [*args, "--", *(setpriv_prefix(box.uid) if box.uid is not None else [])]


def confined_argv(
    backend: str, argv: Sequence[str], box: Confinement, limits: RLimits
) -> list[str]:
    """The full command line running ``argv`` confined by ``backend``."""
    if backend == "bwrap":
        inner = bwrap_prefix(box)
    elif backend == "namespaces":
        inner = namespaces_prefix(box)
    elif backend == "unshare":
        inner = unshare_prefix(box)
    else:
        inner = setpriv_prefix(box.uid) if box.uid is not None else []
    return [*prlimit_prefix(limits, box.uid), *inner, *argv]


#: What each backend needs installed besides ``prlimit`` (and ``setpriv`` to drop a uid).
_NEEDS: dict[str, tuple[str, ...]] = {"bwrap": ("bwrap",), "unshare": ("unshare",)}
#: Backends that keep the file system outside the work dir read-only (the probe checks it).
READ_ONLY_ROOT = frozenset({"bwrap", "namespaces"})
#: Backends that give each run a fresh, private ``/tmp``.
PRIVATE_TMP = READ_ONLY_ROOT


def backend_works(backend: str, uid: int | None) -> bool:
    """Whether ``backend`` can start a command here (probed once, then cached)."""
    return backend_problem(backend, uid) is None


@functools.cache
def backend_problem(backend: str, uid: int | None) -> str | None:
    """Why ``backend`` cannot confine a command here, or None when it can (probed once)."""
    if backend == "none":
        return None
    needed = ("prlimit", *_NEEDS.get(backend, ())) + (("setpriv",) if uid is not None else ())
    missing = [name for name in needed if tool(name) is None]
    if missing:
        return f"{', '.join(missing)} not installed"
    with tempfile.TemporaryDirectory(prefix="tddforge-probe-") as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        box = Confinement(work_dir=work, cwd=work, uid=uid)
        limits = RLimits(60, 1 << 30, 1 << 20, 64)
        script = "echo ok > probe; echo x > ../outside 2>/dev/null; true"
        argv = confined_argv(backend, ["/bin/sh", "-c", script], box, limits)
        try:
            done = subprocess.run(
                argv, cwd=work, capture_output=True, timeout=_PROBE_TIMEOUT, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"its probe did not finish: {exc}"
        if done.returncode != 0 or not (work / "probe").is_file():
            said = done.stderr.decode(errors="replace").strip().splitlines()
            return f"its probe failed: {said[-1] if said else f'exit {done.returncode}'}"
        if backend in READ_ONLY_ROOT and (Path(tmp) / "outside").exists():
            return "its probe wrote outside the work dir"
    return None


def requested_backend(environ: Mapping[str, str] | None = None) -> str | None:
    """The backend ``TDDFORGE_SANDBOX`` names (None for unset or ``auto``); raise when unknown."""
    value = (os.environ if environ is None else environ).get(ENV_VAR, "").strip().lower()
    if value in ("", "auto"):
        return None
    if value not in BACKENDS:
        raise SandboxError(f"{ENV_VAR}={value!r} is not a sandbox backend; choose from {BACKENDS}")
    return value


def detect_backend(uid: int | None = DEFAULT_UID) -> str:
    """The strongest backend that works here for commands run as ``drop_uid(uid)``."""
    uid = drop_uid(uid)
    for backend in BACKENDS:
        if backend_works(backend, uid):
            return backend
    return "none"  # pragma: no cover - "none" always works


def choose_backend(forced: str | None = None, uid: int | None = DEFAULT_UID) -> str:
    """``forced``, else ``TDDFORGE_SANDBOX``, else the strongest that works; raise when unusable."""
    wanted = forced if forced is not None else requested_backend()
    if wanted is None:
        return detect_backend(uid)
    if wanted not in BACKENDS:
        raise SandboxError(f"unknown sandbox backend {wanted!r}; choose from {BACKENDS}")
    problem = backend_problem(wanted, drop_uid(uid))
    if problem is not None:
        raise SandboxError(f"sandbox backend {wanted!r} does not work on this machine: {problem}")
    return wanted
