"""Pytest's rewritten plugin modules, cached once per interpreter, outside the sandbox.

pytest rewrites the asserts of every module of an installed plugin (a ``pytest11``
entry point's distribution) as it imports it, and caches the result beside the
module (``__pycache__/X.cpython-311-pytest-8.4.1.pyc``) unless
``PYTHONDONTWRITEBYTECODE`` is set. The sandbox sets it, and keeps everything but
the work dir read-only, so a sandboxed run never writes that cache: when nothing
wrote it before (an environment that sets the variable, as containers often do),
each run rewrote the plugins again. With hypothesis, anyio and xdist installed,
that was 1.8 s of a 3.1 s run of 32 tests.

``warm_plugins`` writes the cache once: where an entry point's module has no
rewritten file for this interpreter and pytest version, pytest collects nothing
in an empty directory of its own, outside the sandbox and outside the project.
That run imports installed code only (no conftest, no project on the path), as
any pytest run in that environment does, and writes what any pytest run writes
there. A plugin whose module lives in the project (its own, installed editable) is
left out of it: nothing of ours is written in the project, where a file rewritten
within a second at the same size would find a stale copy. Every failure is ignored:
the runs are then as slow as before, no worse.
"""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

#: The variables the warming run keeps of ours (credentials and pytest's own
#: options stay out); the bytecode variables are left out on purpose.
KEPT_ENV = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
TIMEOUT = 60.0

# Each installed plugin's entry point: its name, its module's file, and whether the
# rewritten file of that module is cached for this interpreter and pytest version
# ("name<TAB>path<TAB>0|1"); runs under the project's Python (3.8 and later), imports
# no plugin. Prints nothing when pytest is not installed.
_CACHED = """
import importlib.metadata as metadata, os, sys
try:
    version = metadata.version("pytest")
except metadata.PackageNotFoundError:
    sys.exit(0)
tail = ".%s-pytest-%s.py%s" % (sys.implementation.cache_tag, version, "c" if __debug__ else "o")
found = metadata.entry_points()
group = found.select(group="pytest11") if hasattr(found, "select") else found.get("pytest11", ())
for point in group:
    name = point.value.split(":")[0].strip()
    path = None
    for entry in sys.path:
        base = os.path.join(entry or ".", *name.split("."))
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(candidate):
                path = os.path.abspath(candidate)
                break
        if path:
            break
    if path is not None:
        folder, file = os.path.split(path)
        cached = os.path.exists(os.path.join(folder, "__pycache__", file[:-3] + tail))
        print("%s\t%s\t%d" % (point.name, path, cached))
"""


class Plugin(NamedTuple):
    """An installed pytest plugin: its entry point's name, its module's file, and whether
    pytest's rewritten copy of that module is cached."""

    name: str
    path: Path
    cached: bool


def installed_plugins(python: Path | str) -> list[Plugin]:
    """``python``'s installed pytest plugins (none when pytest is missing or the check
    cannot run)."""
    try:
        done = subprocess.run(
            [str(python), "-c", _CACHED],
            cwd=tempfile.gettempdir(),
            env=_environment(),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    if done.returncode != 0:
        return []
    found = []
    for line in done.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[2] in ("0", "1"):
            found.append(Plugin(parts[0], Path(parts[1]), parts[2] == "1"))
    return found


def plan(plugins: Sequence[Plugin], project: Path) -> tuple[bool, list[str]]:
    """Whether a warming run is wanted, and the plugins it leaves out: those whose module
    lives in the project (an editable install of the project's own plugin), where no
    file of ours is ever written. Wanted when another plugin's rewritten module is
    missing."""
    inside = [p.name for p in plugins if p.path.is_relative_to(project)]
    wanted = any(not p.cached and p.name not in inside for p in plugins)
    return wanted, inside


_LOCK = threading.Lock()
_WARMED: set[str] = set()  # interpreters warmed in this process


def warm_plugins(python: Path | str, project: Path) -> bool:
    """Write pytest's rewritten modules of ``python``'s installed plugins when some are
    missing, once per process and interpreter (a run beside it waits for it); whether
    this call made the warming run."""
    key = str(python)
    if key in _WARMED:  # every later run: nothing to check
        return False
    with _LOCK:
        if key in _WARMED:
            return False
        wanted, left_out = plan(_plugins(key), Path(project).resolve())
        if not wanted:
            return False
        _WARMED.add(key)
        with tempfile.TemporaryDirectory(prefix="tddforge-plugins-") as empty:
            Path(empty, "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
            argv = [key, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
            argv += [arg for name in left_out for arg in ("-p", f"no:{name}")]
            with contextlib.suppress(OSError, subprocess.SubprocessError):  # as slow as before
                subprocess.run(
                    argv, cwd=empty, env=_environment(), capture_output=True, timeout=TIMEOUT
                )
    return True


@functools.cache
def _plugins(python: str) -> list[Plugin]:
    return installed_plugins(python)


def _environment() -> dict[str, str]:
    return {name: os.environ[name] for name in KEPT_ENV if name in os.environ}
