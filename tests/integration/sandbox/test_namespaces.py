"""The namespaces backend's launcher, run for real: mounts, users, exit statuses, failures."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tddforge.sandbox import Limits, Sandbox
from tddforge.sandbox.backend import (
    LAUNCHER,
    Confinement,
    backend_works,
    drop_uid,
    namespaces_prefix,
)
from tddforge.sandbox.sandbox import program_homes

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not backend_works("namespaces", drop_uid()), reason="namespaces unusable here"
    ),
]

LIMITS = Limits(cpu_seconds=30, memory_mb=1024, file_size_mb=8, max_processes=64, wall_seconds=20)

PROBE = """
import os, pathlib, sys
work, outside = sys.argv[1], sys.argv[2]
def attempt(path):
    try:
        pathlib.Path(path).write_text("x")
        return "written"
    except OSError as exc:
        return f"refused {exc.errno}"
print("outside", attempt(outside))
print("work", attempt(os.path.join(work, "inside")))
print("tmp", attempt("/tmp/scratch"))
print("shm", attempt("/dev/shm/scratch"))
with open("/dev/null", "w") as null:
    null.write("x")
print("pids", sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
print("uid", os.getuid())
print("caps", [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0])
"""


def _launch(
    python: str, work: Path, outside: Path, *, legacy: bool, as_uid: int | None = None
) -> subprocess.CompletedProcess[str]:
    # The interpreter stays visible where it lives under /tmp (a venv of a fresh clone there).
    box = Confinement(work_dir=work, cwd=work, readonly_paths=program_homes(Path(python), work))
    argv = namespaces_prefix(box, legacy_remount=legacy)
    argv[0] = python
    if "drop_caps=1" in argv and as_uid is not None:
        argv.remove("drop_caps=1")  # the unprivileged user has no capability to drop
    argv += [python, "-c", PROBE, str(work), str(outside / "escaped")]
    if as_uid is not None:
        argv = ["setpriv", f"--reuid={as_uid}", f"--regid={as_uid}", "--clear-groups", *argv]
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)


def _facts(done: subprocess.CompletedProcess[str]) -> dict[str, str]:
    assert done.returncode == 0, done.stderr
    return dict(line.split(" ", 1) for line in done.stdout.splitlines())


@pytest.fixture
def dirs(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    work, outside = tmp_path / "work", Path("/var/tmp") / f"tddforge-ns-{os.getpid()}"
    work.mkdir()
    outside.mkdir(exist_ok=True)
    yield work, outside
    shutil.rmtree(outside, ignore_errors=True)


@pytest.mark.parametrize("legacy", [False, True], ids=["mount_setattr", "remount per mount"])
def test_only_the_work_dir_and_a_private_tmp_are_writable(
    dirs: tuple[Path, Path], legacy: bool
) -> None:
    work, outside = dirs
    facts = _facts(_launch(sys.executable, work, outside, legacy=legacy))
    assert facts["outside"] == "refused 30"  # EROFS
    assert facts["work"] == "written" and (work / "inside").read_text() == "x"
    assert facts["tmp"] == facts["shm"] == "written"
    assert not Path("/tmp/scratch").exists() and not Path("/dev/shm/scratch").exists()
    assert eval(facts["pids"]) == [1, 2]  # the launcher's init and this probe, nothing else
    assert facts["caps"] == "0000000000000000"


@pytest.mark.parametrize("legacy", [False, True], ids=["mount_setattr", "remount per mount"])
def test_a_protected_path_inside_the_work_dir_stays_read_only(
    dirs: tuple[Path, Path], legacy: bool
) -> None:
    work, _ = dirs
    (work / "pkg").mkdir()
    homes = program_homes(Path(sys.executable), work)
    box = Confinement(work, work, readonly_paths=homes, protected_paths=(work / "pkg",))
    argv = namespaces_prefix(box, legacy_remount=legacy)
    code = (
        "import pathlib\n"
        "for name in ('pkg/new.txt', 'free.txt'):\n"
        "    try:\n"
        "        pathlib.Path(name).write_text('x')\n"
        "        print(name, 'written')\n"
        "    except OSError as exc:\n"
        "        print(name, 'refused', exc.errno)\n"
    )
    done = subprocess.run(
        [*argv, sys.executable, "-c", code], capture_output=True, text=True, timeout=30
    )
    assert done.stdout.splitlines() == ["pkg/new.txt refused 30", "free.txt written"], done.stderr
    assert not (work / "pkg" / "new.txt").exists()


def _unprivileged_python() -> str | None:
    """An interpreter any user can run (this one may live under root's home, mode 700)."""
    for candidate in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        real = Path(os.path.realpath(candidate))
        if not real.is_file() or not real.stat().st_mode & 0o001:
            continue
        if all(parent.stat().st_mode & 0o001 for parent in real.parents):
            done = subprocess.run(
                [str(real), "-c", "import sys; print(sys.version_info >= (3, 10))"],
                capture_output=True,
                text=True,
                check=False,
            )
            if done.stdout.strip() == "True":
                return str(real)
    return None


def test_an_unprivileged_user_gets_the_same_confinement_through_a_user_namespace() -> None:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to become an unprivileged user")
    python = _unprivileged_python()
    if python is None:
        pytest.skip("no interpreter that uid 65534 can run")
    if (LAUNCHER.stat().st_mode & 0o004) == 0:
        pytest.skip("the launcher is not readable by other users here")
    base = Path(tempfile.mkdtemp(prefix="tddforge-userns-", dir="/var/tmp"))
    try:
        base.chmod(0o755)
        work, outside = base / "work", base / "outside"
        for path in (work, outside):  # the user's own: only the read-only mount can refuse
            path.mkdir()
            os.chown(path, 65534, 65534)
        done = _launch(python, work, outside, legacy=False, as_uid=65534)
        if done.returncode == 125 and "unshare" in done.stderr:
            pytest.skip(f"user namespaces refused to unprivileged users: {done.stderr.strip()}")
        facts = _facts(done)
    finally:
        shutil.rmtree(base)
    assert facts["uid"] == "65534"
    assert facts["caps"] == "0000000000000000"  # mapped to itself: no capability once started
    assert facts["outside"] == "refused 30"  # EROFS, though the user owns that directory
    assert facts["work"] == "written"
    assert eval(facts["pids"]) == [1, 2]


def test_exit_codes_and_signals_come_through(tmp_path: Path) -> None:
    box = Sandbox(tmp_path, LIMITS, backend="namespaces")
    assert box.run(["/bin/sh", "-c", "exit 7"]).returncode == 7
    assert box.run(["/bin/sh", "-c", "kill -TERM $$"]).returncode == -signal.SIGTERM
    assert box.run(["/bin/sh", "-c", "kill -KILL $$"]).returncode == -signal.SIGKILL
    done = box.run(["/bin/sh", "-c", "read line; echo got $line; echo oops >&2"], input="hi\n")
    assert (done.stdout, done.stderr) == ("got hi\n", "oops\n")


def test_a_failed_setup_runs_nothing_and_says_why_in_one_line(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    argv = [
        sys.executable,
        "-I",
        "-S",
        "-B",
        str(LAUNCHER),
        f"work={tmp_path / 'missing'}",
        f"cwd={tmp_path}",
        "--",
        "/bin/sh",
        "-c",
        f"touch {marker}",
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 125
    assert done.stderr.startswith("tddforge-namespaces: mount") and done.stderr.count("\n") == 1
    assert not marker.exists()


@pytest.mark.parametrize(
    "args", [["work=/tmp", "cwd=/tmp"], ["cwd=/tmp", "--", "/bin/true"], ["--", "/bin/true"]]
)
def test_bad_launcher_arguments_are_refused(args: list[str]) -> None:
    argv = [sys.executable, "-I", "-S", "-B", str(LAUNCHER), *args]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 125 and done.stderr.startswith("tddforge-namespaces:")


def test_a_read_only_path_under_tmp_stays_visible_and_read_only(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "data.txt").write_text("hello")
    work = tmp_path / "work"
    work.mkdir()
    box = Sandbox(work, LIMITS, backend="namespaces", readonly_paths=[shared])
    code = (
        "import pathlib, sys\n"
        f"print(pathlib.Path({str(shared / 'data.txt')!r}).read_text())\n"
        f"try:\n    pathlib.Path({str(shared / 'new.txt')!r}).write_text('x')\n"
        "except OSError as exc:\n    print('refused', exc.errno)\n"
    )
    done = box.run([sys.executable, "-c", code])
    assert done.stdout.split("\n")[:2] == ["hello", "refused 30"], done.stderr
    assert not (shared / "new.txt").exists()
