"""The shipped target package runs under the oldest Python a target may have (3.8).

The oldest pyenv interpreter at or above 3.8 is found through ``PYENV_ROOT``,
``pyenv root`` or ``~/.pyenv``; without one, the tests skip and say why. Such
an interpreter usually has no pytest: the stdlib-only pieces (the protocol,
process control, the probe, the call runner, the compile check, the signature
reader) run there,
and the pytest-hosting modules are loaded, with a stand-in for pytest when
it has none.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from tddforge.builtin.discover import discover
from tddforge.builtin.explore import Call, run_calls
from tddforge.languages.python import PythonRunner
from tddforge.runner.ship import ship
from tddforge.sandbox import Limits, Sandbox
from tests.unit.target.imports import modules, stdlib_only

pytestmark = pytest.mark.integration

MINIMUM = (3, 8)
LIMITS = Limits(cpu_seconds=30, memory_mb=1024, file_size_mb=8, max_processes=64, wall_seconds=30)


def _pyenv_root() -> Path | None:
    if os.environ.get("PYENV_ROOT"):
        return Path(os.environ["PYENV_ROOT"])
    pyenv = shutil.which("pyenv")
    if pyenv is not None:
        done = subprocess.run([pyenv, "root"], capture_output=True, text=True, timeout=30)
        if done.returncode == 0 and done.stdout.strip():
            return Path(done.stdout.strip())
    default = Path.home() / ".pyenv"
    return default if default.is_dir() else None


def _installed() -> list[tuple[tuple[int, ...], Path]]:
    """pyenv's CPython releases at or above the minimum, oldest first."""
    root = _pyenv_root()
    versions = root / "versions" if root is not None else None
    if versions is None or not versions.is_dir():
        return []
    found = []
    for folder in versions.iterdir():
        release = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", folder.name)
        python = folder / "bin" / "python"
        if release and python.is_file():
            version = tuple(int(part) for part in release.groups())
            if version >= MINIMUM:
                found.append((version, python))
    return sorted(found)


@pytest.fixture(scope="module")
def oldest() -> Path:
    """The oldest interpreter a target may have, as installed here."""
    found = _installed()
    if not found:
        pytest.skip(f"no pyenv Python >= {'.'.join(map(str, MINIMUM))} found here")
    return found[0][1]


def _has_pytest(python: Path) -> bool:
    return subprocess.run([str(python), "-c", "import pytest"], capture_output=True).returncode == 0


DRIVER = """\
import importlib, json, os, sys, time

for name in sys.argv[2:]:
    importlib.import_module("tddforge_target." + name)
from tddforge_target import journal, names, processes, reuse, source

out = {}
text = "def f():\\n    return 1\\n"
m = {"id": "m1", "operator": "number", "line": 2, "col": 11, "end_line": 2, "end_col": 12,
     "original": "1", "replacement": "2", "strategy": "graft", "graft_name": "f",
     "graft_firstlineno": 1}
out["mutated"] = source.apply_mutant(text, source.line_offsets(text), m)
data, status = processes.in_fork(lambda: b"ok", lambda exc: b"failed", 10.0)
out["forked"] = data.decode()
data, status = processes.in_fork(lambda: time.sleep(60) or b"late", lambda exc: b"", 0.5)
out["cut"] = [data.decode(), os.WIFSIGNALED(status)]
verdicts = {}
pool = processes.Pool(2)
done = lambda key, result: verdicts.__setitem__(key, result)
pool.submit("quick", 10.0, lambda: {"verdict": "survived", "ran": 1}, done)
pool.submit("slow", 0.5, lambda: time.sleep(60) or {}, done)
pool.drain(done)
out["pool"] = verdicts
out["unchanged"] = [reuse.is_unchanged("collection: t.py", {"t.py"}),
                    reuse.is_unchanged("t.py::K::test_a[1]", {"t.py::K::*"})]
prior = {"verdict": "killed", "killer": "t.py::test_a", "ran": ["t.py::test_a"]}
out["reused"] = reuse.reusable(prior, ["t.py::test_a"], {"t.py::test_a"})
results = sys.argv[1]
journal.Journal(results).uncovered(m)
out["events"] = list(journal.read_events(results))
out["missing"] = names.CANNOT_IMPORT.match("cannot import name 'x' from 'y'").group(1)
print(json.dumps(out))
"""


def test_stdlib_only_modules_import_and_run_under_the_oldest_python(
    oldest: Path, tmp_path: Path
) -> None:
    shipped = ship(tmp_path)
    driver = tmp_path / "drive.py"
    driver.write_text(DRIVER, encoding="utf-8")
    argv = [str(oldest), str(driver), str(tmp_path / "results.jsonl"), *stdlib_only()]
    env = {**os.environ, "PYTHONPATH": str(shipped)}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["mutated"] == "def f():\n    return 2\n"
    assert out["forked"] == "ok"
    assert out["cut"] == ["", True]
    walls = [verdict.pop("wall") for verdict in out["pool"].values()]
    assert all(wall > 0 for wall in walls)  # each child's wall time, from its fork
    cpus = [verdict.pop("cpu") for verdict in out["pool"].values()]
    assert all(0 <= cpu < 5 for cpu in cpus)  # and its CPU time (a sleeper uses next to none)
    assert out["pool"] == {
        "quick": {"verdict": "survived", "ran": 1},
        "slow": {"verdict": "timeout"},
    }
    assert out["unchanged"] == [True, True]
    assert out["reused"] == {
        "verdict": "killed",
        "killer": "t.py::test_a",
        "ran": ["t.py::test_a"],
        "duration": 0.0,
    }
    assert [e["verdict"] for e in out["events"]] == ["no-coverage"]
    assert out["missing"] == "x"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "shapes.py").write_text(
        textwrap.dedent(
            """\
            def area(width, height=2):
                \"\"\">>> area(3)
                6
                \"\"\"
                if width < 0:
                    raise ValueError("negative")
                return width * height
            """
        ),
        encoding="utf-8",
    )
    return tmp_path


def test_the_probe_and_the_call_runner_run_under_the_oldest_python(
    oldest: Path, project: Path
) -> None:
    sandbox = Sandbox(project, LIMITS)
    info = discover(project, project / "shapes.py", python=oldest, sandbox=sandbox)
    assert [f.name for f in info.functions] == ["area"]
    calls = [Call("area", ("3",)), Call("area", ("-1",))]
    results = run_calls(project, project / "shapes.py", calls, python=oldest, sandbox=sandbox)
    assert [(r.outcome.kind, r.outcome.repr or r.outcome.type) for r in results] == [
        ("return", "6"),
        ("raise", "ValueError"),
    ]
    assert all(r.deterministic and r.arcs for r in results)
    assert sorted(p.name for p in project.iterdir()) == ["shapes.py"]  # nothing left behind


def test_the_compile_check_runs_under_the_oldest_python(oldest: Path, project: Path) -> None:
    (project / "broken.py").write_text("def f(:\n", encoding="utf-8")
    runner = PythonRunner(oldest)
    assert runner.build(project, ["shapes.py"]).status == "passed"
    broken = runner.build(project, ["shapes.py", "broken.py"])
    assert broken.status == "failed"
    assert "broken.py:1: SyntaxError" in broken.output
    assert sorted(p.name for p in project.iterdir()) == ["broken.py", "shapes.py"]


def test_the_signature_reader_runs_under_the_oldest_python(oldest: Path, project: Path) -> None:
    found = PythonRunner(oldest).read_signatures(project, {"shapes": ["area", "ValueError", "x"]})
    objects = found["shapes"]["objects"] if found else {}
    assert objects["area"]["parameters"] == [
        {"name": "width", "kind": "positional_or_keyword", "has_default": False},
        {"name": "height", "kind": "positional_or_keyword", "has_default": True},
    ]
    assert [objects[n]["kind"] for n in ("area", "ValueError", "x")] == [
        "function",
        "builtin",
        "missing",
    ]
    assert sorted(p.name for p in project.iterdir()) == ["shapes.py"]


# Without pytest for that interpreter, the pytest-hosting modules load against a stand-in
# that only marks hooks: their own code (classes, annotations, TypedDicts) is what 3.8 checks.
STAND_IN = "def hookimpl(**options):\n    return lambda function: function\n"

HOSTING_DRIVER = """\
import importlib, json, sys

for name in sys.argv[1:]:
    importlib.import_module("tddforge_target." + name)
from tddforge_target import graft, rebind, source

text = "RULES = [1]\\n\\n\\ndef f():\\n    return RULES[0] + 1\\n"
col = text.splitlines()[4].index("+ 1") + 2
m = {"id": "m1", "operator": "number", "line": 5, "col": col, "end_line": 5, "end_col": col + 1,
     "original": "1", "replacement": "2", "strategy": "graft", "graft_name": "f",
     "graft_firstlineno": 4}
code = graft.Blocks(text, source.line_offsets(text)).compile(m, "t.py")
data = {line: sorted(readers) for line, readers in rebind.data_lines(text).items()}
print(json.dumps({"grafted": graft.find_code(code, "f", 4) is not None, "data": data}))
"""


def test_every_module_imports_under_the_oldest_python(oldest: Path, tmp_path: Path) -> None:
    path = [str(ship(tmp_path))]
    if not _has_pytest(oldest):
        (tmp_path / "stand_in").mkdir()
        (tmp_path / "stand_in" / "pytest.py").write_text(STAND_IN, encoding="utf-8")
        path.append(str(tmp_path / "stand_in"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    argv = [str(oldest), "-c", HOSTING_DRIVER, *modules()]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"grafted": True, "data": {"1": [4, 5]}}
