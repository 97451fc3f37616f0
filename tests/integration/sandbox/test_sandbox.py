"""The sandbox, for real: environment, network, timeouts, file system and limits."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tddforge.errors import SandboxError
from tddforge.sandbox import Limits, Sandbox, SandboxResult
from tddforge.sandbox.backend import backend_works, drop_uid
from tddforge.sandbox.sandbox import BASE_ENV

pytestmark = pytest.mark.integration

PY = sys.executable  # the venv's interpreter, which lives under /root/.pyenv here
LIMITS = Limits(cpu_seconds=30, memory_mb=1024, file_size_mb=8, max_processes=64, wall_seconds=20)


def _backend(name: str) -> object:
    works = backend_works(name, drop_uid())
    return pytest.param(name, marks=pytest.mark.skipif(not works, reason=f"{name} unusable here"))


CONFINED = [_backend("bwrap"), _backend("namespaces"), _backend("unshare")]
READ_ONLY = [_backend("bwrap"), _backend("namespaces")]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir(mode=0o700)
    return path


def run_py(box: Sandbox, code: str, **kwargs: object) -> SandboxResult:
    return box.run([PY, "-c", code], **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("backend", CONFINED)
def test_environment_is_cleared(backend: str, work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("TDDFORGE_SECRET_THING", "x")
    box = Sandbox(work, LIMITS, backend=backend, env={"FROM_CTOR": "1"})
    code = "import os; print(sorted(os.environ))"
    result = run_py(box, code, extra_env={"PYTHONPATH": "/nowhere"})
    assert result.returncode == 0, result.stderr
    names = eval(result.stdout)
    assert "OPENAI_API_KEY" not in names and "TDDFORGE_SECRET_THING" not in names
    # exactly the base, and what the caller named: a variable read but not named is unset
    assert {"PATH", "HOME", "PYTHONHASHSEED", "PYTHONPATH", "FROM_CTOR"} <= set(names)
    assert set(names) <= BASE_ENV | {"PYTHONPATH", "FROM_CTOR"}
    assert result.backend == backend


@pytest.mark.parametrize("backend", [*CONFINED, _backend("none")])
def test_access_checks_agree_with_what_the_command_can_do(backend: str, work: Path) -> None:
    """Run as root, the command runs as another uid that may read and write the work dir
    (mode 700 here, as ``mkdtemp`` makes it, as ``/root`` is) through ``CAP_DAC_OVERRIDE``.
    ``os.access`` used to say no to every file there all the same (the kernel drops the
    capabilities of a non-root uid for that check), so pulp's bundled solver, which
    checks ``os.access(path, os.X_OK)``, was unavailable in the sandbox only."""
    tool = work / "tool"
    tool.write_text("#!/bin/sh\necho ran\n")
    tool.chmod(0o755)
    box = Sandbox(work, LIMITS, backend=backend)
    code = (
        "import os, subprocess; p = os.path.abspath('tool')\n"
        "print([os.access(p, m) for m in (os.R_OK, os.W_OK, os.X_OK)])\n"
        "print(subprocess.run([p], capture_output=True, text=True).stdout.strip())"
    )
    result = run_py(box, code, cwd=work)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["[True, True, True]", "ran"]


def test_credentials_cannot_be_passed_in(work: Path) -> None:
    box = Sandbox(work, LIMITS)
    with pytest.raises(SandboxError, match="OPENAI_API_KEY"):
        run_py(box, "pass", extra_env={"OPENAI_API_KEY": "sk-test"})


@pytest.fixture
def listener() -> Iterator[int]:
    server = socket.create_server(("127.0.0.1", 0))
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


CONNECT = """
import socket
import subprocess
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=3).close()
    print("CONNECTED")
except OSError as exc:
    print("BLOCKED", exc)
"""


@pytest.mark.parametrize("backend", CONFINED)
def test_host_loopback_listener_is_unreachable(backend: str, work: Path, listener: int) -> None:
    result = run_py(Sandbox(work, LIMITS, backend=backend), CONNECT.format(port=listener))
    assert result.stdout.startswith("BLOCKED"), result.stdout + result.stderr


def test_listener_is_reachable_without_a_sandbox(work: Path, listener: int) -> None:
    """The control for the test above: the same probe connects when not confined."""
    result = run_py(Sandbox(work, LIMITS, backend="none"), CONNECT.format(port=listener))
    assert result.stdout.startswith("CONNECTED"), result.stdout + result.stderr


def _pids_with(token: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and token.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _wait_for(predicate: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


SPAWN_AND_SPIN = """
import subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", "{token}"],
                 start_new_session=True)
while True:
    pass
"""


@pytest.mark.parametrize("backend", CONFINED)
def test_timeout_kills_loop_and_setsid_grandchild(backend: str, work: Path) -> None:
    token = f"tddforge-{uuid.uuid4().hex}"
    box = Sandbox(work, LIMITS, backend=backend)
    results: list[SandboxResult] = []
    thread = threading.Thread(
        target=lambda: results.append(run_py(box, SPAWN_AND_SPIN.format(token=token), timeout=2))
    )
    thread.start()
    try:
        assert _wait_for(lambda: _pids_with(token), 5), "the grandchild never started"
        thread.join(10)
        (result,) = results
        assert result.timed_out and result.returncode is None
        assert 1.9 < result.duration < 4
        assert _wait_for(lambda: not _pids_with(token), 3), "the setsid grandchild survived"
    finally:
        for pid in _pids_with(token):  # never leave a failed test's processes behind
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("backend", READ_ONLY)
def test_read_only_root_and_private_tmp(backend: str, work: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    code = f"""
import pathlib
for target in ["/etc/tddforge-probe", "{outside}/escaped", "{work}/inside"]:
    try:
        pathlib.Path(target).write_text("x")
        print(target, "written")
    except OSError as exc:
        print(target, "refused", exc.errno)
"""
    result = run_py(Sandbox(work, LIMITS, backend=backend), code)
    lines = result.stdout.splitlines()
    assert lines[0].endswith("refused 30"), result.stdout + result.stderr  # EROFS
    assert not (outside / "escaped").exists()
    assert not Path("/etc/tddforge-probe").exists()
    assert (work / "inside").read_text() == "x"


@pytest.mark.parametrize("backend", READ_ONLY)
def test_protected_paths_inside_the_work_dir_are_read_only(backend: str, work: Path) -> None:
    """The project's own files, protected, cannot be written, removed or renamed; the
    rest of the work dir stays writable."""
    (work / "pkg").mkdir()
    (work / "pkg" / "mod.py").write_text("x = 1\n")
    (work / "setup.py").write_text("# setup\n")
    code = """
import os, pathlib, shutil
def attempt(name, action):
    try:
        action()
        print(name, "done")
    except OSError as exc:
        print(name, "refused")
attempt("rmtree", lambda: shutil.rmtree("pkg"))
attempt("remove", lambda: os.remove("setup.py"))
attempt("write", lambda: pathlib.Path("pkg/mod.py").write_text("y = 2"))
attempt("rename", lambda: os.rename("pkg/mod.py", "moved.py"))
attempt("new", lambda: pathlib.Path("out.txt").write_text("z"))
"""
    box = Sandbox(work, LIMITS, backend=backend)
    result = box.run(
        [sys.executable, "-c", code], protected=[work / "pkg", work / "setup.py", Path("/etc")]
    )
    said = dict(line.split() for line in result.stdout.splitlines())
    assert said == {
        "rmtree": "refused",
        "remove": "refused",
        "write": "refused",
        "rename": "refused",
        "new": "done",
    }, result.stdout + result.stderr
    assert (work / "pkg" / "mod.py").read_text() == "x = 1\n"
    assert (work / "setup.py").read_text() == "# setup\n"
    assert (work / "out.txt").read_text() == "z"
    # without protection, the same run changes them
    run_py(box, "import os; os.remove('setup.py')")
    assert not (work / "setup.py").exists()


def test_file_size_limit(work: Path) -> None:
    limits = Limits(cpu_seconds=30, memory_mb=1024, file_size_mb=1, wall_seconds=20)
    code = """
try:
    with open("big", "wb") as f:
        f.write(b"x" * (3 << 20))
    print("WROTE")
except OSError as exc:
    print("LIMITED", exc.errno)
"""
    result = run_py(Sandbox(work, limits), code)
    assert result.stdout.startswith("LIMITED 27"), result.stdout + result.stderr  # EFBIG
    assert (work / "big").stat().st_size <= 1 << 20


def test_cpu_limit_stops_a_busy_loop_before_the_wall_timeout(work: Path) -> None:
    limits = Limits(cpu_seconds=1, memory_mb=1024, wall_seconds=20)
    result = run_py(Sandbox(work, limits), "while True: pass")
    assert not result.timed_out
    assert result.returncode != 0
    assert result.duration < 8


FORK_BOMB = """
import os, time
children = 0
try:
    for _ in range(300):
        if os.fork() == 0:
            time.sleep(3)
            os._exit(0)
        children += 1
except OSError as exc:
    print("STOPPED", children, exc.errno)
else:
    print("UNLIMITED", children)
"""


def test_process_limit_stops_a_fork_bomb(work: Path) -> None:
    if os.geteuid() == 0 and drop_uid() is None:
        pytest.skip("root without setpriv: RLIMIT_NPROC cannot apply")
    limits = Limits(cpu_seconds=30, memory_mb=1024, max_processes=20, wall_seconds=20)
    result = run_py(Sandbox(work, limits), FORK_BOMB, timeout=10)
    assert result.stdout.startswith("STOPPED"), result.stdout + result.stderr
    # Stopped at the limit, not at 300: 19 or 20 children, depending on whether the kernel
    # has already counted the sandboxed process itself against RLIMIT_NPROC.
    assert int(result.stdout.split()[1]) <= limits.max_processes


def test_output_is_capped_to_the_tail(work: Path) -> None:
    code = "import sys; sys.stdout.write('a' * (3 << 20) + 'THE END')"
    result = run_py(Sandbox(work, LIMITS), code)
    assert result.stdout.endswith("THE END")
    assert "earlier bytes dropped" in result.stdout
    assert len(result.stdout) < (1 << 20) + 200


def test_input_stderr_and_cwd(work: Path) -> None:
    (work / "sub").mkdir()
    code = "import os, sys; print(sys.stdin.read().upper(), os.getcwd()); sys.exit(3)"
    result = run_py(Sandbox(work, LIMITS), code, input="hello", cwd=work / "sub")
    assert result.stdout.split() == ["HELLO", str((work / "sub").resolve())]
    assert result.returncode == 3


@pytest.mark.parametrize(
    ("argv", "kwargs", "match"),
    [
        (["/no/such/program"], {}, "no such executable"),
        (["no-such-program-xyz"], {}, "no such executable"),
        ([], {}, "empty command"),
        ([PY, "-c", "pass"], {"cwd": Path("/no/such/dir")}, "not a directory"),
    ],
)
def test_commands_that_cannot_start(
    work: Path, argv: list[str], kwargs: dict[str, object], match: str
) -> None:
    with pytest.raises(SandboxError, match=match):
        Sandbox(work, LIMITS).run(argv, **kwargs)  # type: ignore[arg-type]


def test_bad_constructor_arguments(work: Path) -> None:
    with pytest.raises(SandboxError, match="unknown sandbox backend"):
        Sandbox(work, LIMITS, backend="docker")
    with pytest.raises(SandboxError, match="not a directory"):
        Sandbox(work / "missing", LIMITS)


def test_stopping_a_dead_process_with_unsent_input_is_quiet() -> None:
    proc = subprocess.Popen(
        [PY, "-c", "pass"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
    )
    proc.wait()
    assert proc.stdin is not None
    proc.stdin.write(b"x" * 100)  # buffered: sent (and refused) when the pipe is closed
    Sandbox.stop(proc)  # the broken pipe is not the caller's problem
    assert proc.stdin.closed and proc.returncode == 0
