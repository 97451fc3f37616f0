"""The ``namespaces`` backend's launcher: confinement from the kernel's namespaces alone.

Run as a script, by the host's interpreter, in front of the confined command::

    python -I -S -B namespaces.py work=DIR cwd=DIR [writable=DIR ...] [readonly=PATH ...]
                                  [protected=PATH ...] [drop_caps=1] [legacy_remount=1] -- ARGV...

It imports only the standard library (``ctypes`` for the calls Python
lacks), so it works wherever tddforge runs, with no bubblewrap installed. It
starts in front of every sandboxed command, so it keeps to modules that load
fast: no ``json``, ``re``, ``socket`` or ``signal`` (each costs milliseconds).
What it sets up, in this order:

1. new mount, network, pid, ipc and uts namespaces; when we are not root, a
   user namespace too, mapping our own uid and gid to themselves (so the
   command, once started, holds no capability at all);
2. a fork: the child is pid 1 of the new pid namespace, and dies with its
   parent (``PR_SET_PDEATHSIG``); when pid 1 dies, the kernel kills every
   process in the namespace, even one that called ``setsid``;
3. mounts, private to this namespace: a fresh ``tmpfs`` on ``/tmp`` and
   ``/dev/shm``, a fresh ``/proc``, the work dir (and the read-only paths)
   bound back where ``/tmp`` hid them; then the whole tree read-only
   (``mount_setattr`` with ``AT_RECURSIVE``, or a remount per mount on
   kernels older than 5.12), and only the work dir and the private tmp
   writable again (the protected paths inside the work dir, bound on
   themselves first, stay read-only);
4. loopback up (a new network namespace has only ``lo``, and it starts
   down), so tests that serve on 127.0.0.1 work; nothing else is reachable;
5. a second fork: pid 1 stays as a minimal init (reaping orphans) while the
   command runs; its exit status is passed to the outermost process, which
   ends the same way (the same code, or the same signal).

If any step fails, it prints one line starting ``tddforge-namespaces:`` and
exits with status 125 before the command has run, so the backend's probe
sees it and tddforge falls back to a weaker backend (and says so).
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys

# The C module: ``signal`` itself imports enum, which costs milliseconds.
from _signal import SIG_DFL, SIGKILL  # type: ignore[import-not-found,unused-ignore]
from _signal import signal as set_handler  # type: ignore[import-not-found,unused-ignore]

SETUP_FAILED = 125

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REMOUNT = 0x20
MS_NOATIME = 0x400
MS_NODIRATIME = 0x800
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
MS_RELATIME = 0x200000
MS_STRICTATIME = 0x1000000

PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
SYS_MOUNT_SETATTR = 442  # the same number on every architecture (added in Linux 5.12)
AT_FDCWD = -100
AT_RECURSIVE = 0x8000
MOUNT_ATTR_RDONLY = 0x1
AF_INET = 2
SOCK_DGRAM = 2
SIOCSIFFLAGS = 0x8914
IFREQ_SIZE = 40
IFF_UP = 0x1
IFF_LOOPBACK = 0x8
IFF_RUNNING = 0x40

#: Mount options (as /proc/self/mountinfo shows them) that a remount must repeat.
_KEPT_FLAGS = {
    "nosuid": MS_NOSUID,
    "nodev": MS_NODEV,
    "noexec": MS_NOEXEC,
    "noatime": MS_NOATIME,
    "nodiratime": MS_NODIRATIME,
    "relatime": MS_RELATIME,
    "strictatime": MS_STRICTATIME,
}
PRIVATE_MOUNTS = ("/tmp", "/dev/shm")

# The interpreter links the C library: its symbols need no lookup (ctypes.util runs programs).
_libc = ctypes.CDLL(None, use_errno=True)


class SetupError(Exception):
    """A step of the confinement failed: the command must not run."""


class _MountAttr(ctypes.Structure):
    _fields_ = (
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    )


def _check(result: int, what: str) -> None:
    if result == -1:
        err = ctypes.get_errno()
        raise SetupError(f"{what}: {os.strerror(err)}")


def _unshare(flags: int) -> None:
    _check(_libc.unshare(ctypes.c_int(flags)), "unshare")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    src = source.encode() if source is not None else None
    kind = fstype.encode() if fstype is not None else None
    result = _libc.mount(src, target.encode(), kind, ctypes.c_ulong(flags), data.encode() or None)
    _check(result, f"mount {target}")


def _prctl(option: int, arg: int) -> None:
    _check(_libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0), "prctl")


def _set_readonly(path: str, readonly: bool, recursive: bool) -> bool:
    """Set (or clear) a mount's read-only flag; False when the kernel lacks mount_setattr."""
    attr = _MountAttr(MOUNT_ATTR_RDONLY if readonly else 0, 0 if readonly else MOUNT_ATTR_RDONLY)
    flags = AT_RECURSIVE if recursive else 0
    syscall = _libc.syscall
    result = syscall(
        SYS_MOUNT_SETATTR, AT_FDCWD, path.encode(), flags, ctypes.byref(attr), ctypes.sizeof(attr)
    )
    if result == -1 and ctypes.get_errno() == errno.ENOSYS:
        return False
    _check(result, f"mount_setattr {path}")
    return True


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _map_ids() -> None:
    """Map our uid and gid to themselves in the new user namespace."""
    uid, gid = os.getuid(), os.getgid()
    _unshare(CLONE_NEWUSER)
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1\n")
    _write("/proc/self/gid_map", f"{gid} {gid} 1\n")


def _unescape(field: str) -> str:
    """A mountinfo path: octal escapes (``\\040`` for a space) back to the bytes they stand for."""
    raw = os.fsencode(field)
    out = bytearray()
    i = 0
    while i < len(raw):
        octal = raw[i + 1 : i + 4]
        if raw[i] == ord("\\") and len(octal) == 3 and all(48 <= c <= 55 for c in octal):
            out.append(int(octal, 8))
            i += 4
        else:
            out.append(raw[i])
            i += 1
    return os.fsdecode(bytes(out))


def _mountinfo() -> dict[str, int]:
    """Every mount point, with the flags a remount of it must repeat."""
    points: dict[str, int] = {}
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            fields = line.split()
            kept = 0
            for option in fields[5].split(","):
                kept |= _KEPT_FLAGS.get(option, 0)
            points[_unescape(fields[4])] = kept
    return points


def _remount(point: str, kept: int, readonly: bool) -> None:
    _mount(None, point, None, MS_REMOUNT | MS_BIND | kept | (MS_RDONLY if readonly else 0))


def _remount_all_readonly() -> None:
    """Kernels before 5.12: remount each mount read-only, keeping its locked flags."""
    for point, kept in _mountinfo().items():
        try:
            _remount(point, kept, readonly=True)
        except SetupError:
            if point == "/proc" or point.startswith(("/proc/", "/sys/")):
                continue  # kernel-owned pseudo files, or hidden below the fresh /proc
            raise


def _under(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _setup_mounts(config: dict[str, list[str]]) -> None:
    """Private /tmp and /dev/shm, fresh /proc, everything read-only but the writable paths."""
    # Another run's scratch may be removed between our command line and now: it was only
    # offered, and a run does not need it (its own stays open while it runs).
    offered = [p for p in config.get("writable", []) if os.path.exists(p)]
    readonly = config.get("readonly", [])
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    private = [p for p in PRIVATE_MOUNTS if os.path.isdir(p)]
    # Paths a private mount is about to hide: held open now, bound back afterwards.
    seen = (*config["work"], *offered, *readonly)
    hidden = [p for p in seen if any(_under(p, m) for m in private)]
    handles = {}
    for path in dict.fromkeys(hidden):
        try:
            handles[path] = os.open(path, os.O_PATH)
        except FileNotFoundError:
            continue  # gone since: hidden by the private mount, it is not bound back
    offered = [p for p in offered if p in handles or p not in hidden]
    writable = [*config["work"], *offered]  # a missing work dir still fails, below
    for point in private:
        _mount("tmpfs", point, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
    for path, fd in handles.items():
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            os.makedirs(path, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "a").close()
        _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        os.close(fd)
    for path in writable:
        if path not in handles:  # its own mount, so that it alone can be made writable again
            _mount(path, path, None, MS_BIND | MS_REC)
    try:  # noqa: SIM105 - contextlib costs milliseconds to import, at every sandboxed start
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except SetupError:
        pass  # a /proc with masked entries (containers): the old one stays; pids are still private
    # inside the work dir, read-only again: each its own mount, bound after the work dir's
    protected = [p for p in config.get("protected", []) if os.path.lexists(p)]
    for path in protected:
        _mount(path, path, None, MS_BIND | MS_REC)
    _read_only_but([*private, *writable], bool(config.get("legacy_remount")))


def _read_only_but(again: list[str], legacy: bool) -> None:
    """Every mount read-only, then the mounts ``again`` writable, each alone (the mounts
    under them, the protected paths, stay read-only)."""
    if legacy or not _set_readonly("/", True, recursive=True):
        _remount_all_readonly()
        flags = _mountinfo()
        for point in again:
            _remount(point, flags[point], readonly=False)
        return
    for point in again:
        _set_readonly(point, False, recursive=False)


def _drop_capabilities() -> None:
    """Empty the bounding set: after exec, even uid 0 holds no capability."""
    with open("/proc/sys/kernel/cap_last_cap") as handle:
        last = int(handle.read())
    for cap in range(last + 1):
        _prctl(PR_CAPBSET_DROP, cap)


def _loopback_up() -> None:
    """``ip link set lo up``, as one ioctl on a datagram socket."""
    sock = _libc.socket(AF_INET, SOCK_DGRAM, 0)
    _check(sock, "socket")
    request = ctypes.create_string_buffer(IFREQ_SIZE)
    struct.pack_into("16sH", request, 0, b"lo", IFF_UP | IFF_LOOPBACK | IFF_RUNNING)
    try:
        _check(_libc.ioctl(sock, ctypes.c_ulong(SIOCSIFFLAGS), request), "loopback up")
    finally:
        os.close(sock)


def _init(command: list[str], cwd: str, drop_caps: bool) -> int:
    """pid 1: start the command, reap every orphan, return the command's wait status."""
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(cwd)  # after the mounts: the old cwd may lie on a hidden mount
            if drop_caps:
                _drop_capabilities()
            _prctl(PR_SET_NO_NEW_PRIVS, 1)
            os.execv(command[0], command)
        except BaseException as exc:
            print(f"tddforge-namespaces: cannot start {command[0]}: {exc}", file=sys.stderr)
        os._exit(127)
    while True:
        try:
            done, status = os.wait()
        except ChildProcessError:
            return 127 << 8
        if done == pid:
            return status


def _exit_like(status: int) -> None:
    """End this process as the command ended: same exit code, or killed by the same signal."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig != SIGKILL:  # SIGKILL has no handler to reset
            set_handler(sig, SIG_DFL)
        os.kill(os.getpid(), sig)
    sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else SETUP_FAILED)


def parse_args(argv: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    """``key=value`` options up to ``--``, then the command."""
    if "--" not in argv:
        raise SetupError("usage: namespaces.py work=DIR cwd=DIR [key=value ...] -- ARGV...")
    split = argv.index("--")
    config: dict[str, list[str]] = {}
    for option in argv[:split]:
        key, _, value = option.partition("=")
        config.setdefault(key, []).append(value)
    command = argv[split + 1 :]
    if not command or "work" not in config or "cwd" not in config:
        raise SetupError("work=, cwd= and a command are required")
    return config, command


def main(argv: list[str]) -> None:
    """Confine the command as the options say; never returns."""
    read_end, write_end = os.pipe()
    try:
        config, command = parse_args(argv)
        if os.geteuid() != 0:
            _map_ids()
        _unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS)
    except (SetupError, OSError) as exc:
        print(f"tddforge-namespaces: {exc}", file=sys.stderr)
        sys.exit(SETUP_FAILED)
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        status = SETUP_FAILED << 8
        try:
            _prctl(PR_SET_PDEATHSIG, SIGKILL)
            _setup_mounts(config)
            _loopback_up()
            status = _init(command, config["cwd"][-1], bool(config.get("drop_caps")))
        except (SetupError, OSError) as exc:
            print(f"tddforge-namespaces: {exc}", file=sys.stderr)
        os.write(write_end, struct.pack("i", status))
        os._exit(0)
    os.close(write_end)
    os.waitpid(pid, 0)
    data = os.read(read_end, 4)
    _exit_like(struct.unpack("i", data)[0] if len(data) == 4 else SETUP_FAILED << 8)


if __name__ == "__main__":
    main(sys.argv[1:])
