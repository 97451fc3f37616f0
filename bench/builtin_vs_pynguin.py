"""Pynguin 0.48 and tddforge's builtin offline test generator, side by side on real modules.

Usage: python bench/builtin_vs_pynguin.py [--targets DIR] [--heldout DIR2] [--only ID]
       [--tools pynguin,builtin] [--no-project-tests] [--pynguin-python PY] [--pynguin-budget S]
       [--budget S] [--runs N] [--json FILE] [--keep DIR]

DIR is what ../shared/bench/fetch_targets.sh downloaded (default ./bench-targets): its
targets.tsv names each target's unpacked sdist, import root, module and upstream tests.
DIR2 is a held-out set, fetched by ``python bench/fetch_heldout.py DIR2``: ten modules
chosen before the generator was tuned, never tuned on; it gets a table of its own. That first
set has been measured and studied; the second, eight modules pinned in
bench/heldout2_targets.tsv before any change made in its light, is fetched by
``python bench/fetch_heldout.py --pins bench/heldout2_targets.tsv DIR2``. Only
the module's top-level package (without its ``tests`` dirs) is copied into scratch dirs.
The builtin's copy also holds the module's upstream test file, as a project has its
tests: the generator reads literal inputs from it (``--no-project-tests``: not); no run
ever executes it, and every suite is measured alone. Pynguin gets its own Python 3.10 venv (default DIR/pynguin-venv,
created when missing) holding pynguin, pytest, coverage and six (isodate's one runtime
dependency); that venv's interpreter also runs every measurement, for both tools. Every
command runs with a soft data limit of 4 GB (RLIMIT_DATA): a runaway allocation raises
MemoryError in that one process instead of exhausting the machine.

Per target, each tool generates a suite in its own scratch copy, timed by wall clock:
Pynguin with ``--maximum-search-time`` (its assertion generation comes on top), and
``tddforge cover --engine builtin --budget``. Then both suites are measured the same way,
neither tool's self-report is used:

- tests: the tests pytest collects. The suite runs N times (default 5) in a fresh copy of
  the import root, shuffled with seed 1..N by a plugin (bench_outcomes.py, copied); a test failing
  in every run is failing, one failing in some runs is flaky.
- failing and flaky tests are removed from the file (``ast``; a parametrized test goes
  whole). A test failing in the remaining suite is also counted as flaky and removed.
- coverage: ``coverage run --branch`` of that green suite, restricted to the module:
  "combined" is coverage.py's percent_covered (lines and branches), "branch" is
  covered_branches / num_branches.
- mutation: ``tddforge mutate --no-cache`` of the module against the same green suite
  (same module, so the same mutants for both tools); the strict score, killed over all
  mutants judged, uncovered ones counting as survivors.

It prints one line per target and tool as it goes, then a table, then per target whether
the builtin's goals hold: coverage (combined and branch) and mutation score at least
Pynguin's, and wall time at most a third of Pynguin's. It is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench_report import goal_lines, goals, row_line, table

PYNGUIN_REQUIREMENTS = ["pynguin==0.48.0", "coverage", "six"]
PLUGIN = "bench_outcomes"
PLUGIN_SOURCE = Path(__file__).with_name(f"{PLUGIN}.py")  # copied next to each suite
TEST_FILE = "test_generated.py"
GREEN_RETRIES = 3
RUN_TIMEOUT = 900.0
MEMORY_MB = 4096  # uncapped, a runaway Pynguin test on boltons grew to 24 GB until the OOM kill


class BenchError(Exception):
    """A step failed; the message is one line for the table."""


@dataclass(frozen=True)
class Target:
    """One row of targets.tsv."""

    id: str
    dir: Path
    pythonpath: str
    module: str
    tests: str = ""  # the upstream test file(s) for the module, relative to ``dir``

    @property
    def root(self) -> Path:
        """The import root in the download dir (read only: it is only ever copied)."""
        return self.dir / self.pythonpath

    @property
    def module_rel(self) -> str:
        """The module's path relative to the import root."""
        return Path(os.path.relpath(self.module, self.pythonpath)).as_posix()

    @property
    def dotted(self) -> str:
        """The module's import name."""
        parts = self.module_rel.removesuffix(".py").split("/")
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@dataclass(frozen=True)
class Context:
    """What every run needs."""

    python: Path
    pynguin: Path
    pynguin_budget: int
    budget: float
    goal: float
    seed: int
    runs: int
    workers: int
    project_tests: bool = True


@dataclass
class Generated:
    """A tool's suite and its wall time; ``error`` when it produced none."""

    source: str | None
    wall: float
    error: str = ""
    log: str = ""
    note: str = ""


@dataclass
class Row:
    """One tool's measured suite for one target."""

    target: str
    tool: str
    wall: float
    tests: int = 0
    failing: int = 0
    flaky: int = 0
    branch: float | None = None
    combined: float | None = None
    mutation: float | None = None
    mutation_loose: float | None = None
    mutants: int = 0
    error: str = ""
    note: str = ""
    removed: list[str] = field(default_factory=list)


def read_targets(targets: Path) -> list[Target]:
    """The targets listed in DIR/targets.tsv; a dir that moved is looked up in DIR/src."""
    rows = []
    for line in (targets / "targets.tsv").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        ident, directory, pythonpath, module, *rest = line.split("\t")
        path = Path(directory)
        if not path.is_dir():
            path = targets / "src" / path.name
        rows.append(Target(ident, path, pythonpath, module, rest[0] if rest else ""))
    return rows


def environment(**extra: str) -> dict[str, str]:
    """This process's environment without venv or path leaks, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, **extra}


def pynguin_venv(venv: Path, base_python: Path) -> Path:
    """The venv's interpreter; the venv is created and filled when anything is missing."""
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([str(base_python), "-m", "venv", str(venv)], check=True)
    probe = [str(python), "-c", "import pynguin, pytest, coverage, six"]
    if subprocess.run(probe, capture_output=True).returncode != 0:
        pip = [str(python), "-m", "pip", "install", "-q", *PYNGUIN_REQUIREMENTS]
        subprocess.run(pip, check=True)
    return python


def copy_root(
    target: Target, dest: Path, with_tests: bool = False, with_data: bool = False
) -> Path:
    """A scratch import root holding only the module's top-level package (or module) and
    the distribution's metadata;
    ``with_tests``: the module's upstream test files too, as a project has them (the
    builtin reads their literal inputs; nothing runs them), and the data they read;
    ``with_data``: that data alone (where a suite is measured: a test may read a file
    the project holds, as the project's own tests do)."""
    top = target.module_rel.split("/")[0]
    source = target.root / top
    dest.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        ignore = shutil.ignore_patterns("tests", "__pycache__", "*.pyc")
        shutil.copytree(source, dest / top, ignore=ignore)
    else:
        shutil.copy2(source, dest / top)
    found = [*target.root.glob("*.egg-info"), *target.root.glob("*.dist-info")]
    for metadata in found:
        # a package reading its own version (importlib.metadata) finds it, as when installed
        shutil.copytree(metadata, dest / metadata.name, dirs_exist_ok=True)
    if not found:  # an sdist with its PKG-INFO only (pybtex 0.26 reads its version at import)
        _dist_info(target.dir / "PKG-INFO", dest)
    for test in target.tests.split() if with_tests or with_data else []:
        found = target.dir / test
        rel = Path(os.path.relpath(found, target.root))
        place = dest / (rel if not rel.parts or rel.parts[0] != ".." else Path("tests") / rel.name)
        if found.is_file():
            place.parent.mkdir(parents=True, exist_ok=True)
            if with_tests:
                shutil.copy2(found, place)
                _copy_conftests(found, place, target, dest)
            for data in data_files(found.parent):  # the inputs the tests read from files
                shutil.copy2(data, place.parent / data.name)
            for folder, rel in named_folders(found, target.root):  # ``testcases/memo.dbf``
                base = place.parent if folder.is_relative_to(found.parent) else dest
                shutil.copytree(folder, base / rel, dirs_exist_ok=True)
    return dest


def _copy_conftests(test: Path, place: Path, target: Target, dest: Path) -> None:
    """The ``conftest.py`` files above ``test`` in the sdist, beside their copy in ``dest`` as
    a project has them (lunr's ``index`` fixture is in ``tests/conftest.py``): the builtin
    reads their fixtures. One that would land in ``dest`` itself is left out: the suites
    run there, and pytest would load it for them (fsspec's skips every test without
    ``requests``)."""
    folder = test.parent
    while folder.is_relative_to(target.dir):
        conftest = folder / "conftest.py"
        if conftest.is_file():
            rel = Path(os.path.relpath(conftest, target.root))
            if rel.parts[0] != "..":
                copied = dest / rel
            elif folder == test.parent:
                copied = place.parent / "conftest.py"
            else:
                copied = dest / "conftest.py"
            if copied.parent != dest and not copied.exists():
                copied.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(conftest, copied)
                for helper in _helpers_imported(conftest):  # ``from tests.types import ...``
                    if not (copied.parent / helper.name).exists():
                        shutil.copy2(helper, copied.parent / helper.name)
        if folder == target.dir:
            break
        folder = folder.parent


def _helpers_imported(conftest: Path) -> list[Path]:
    """The modules beside ``conftest`` that it imports (pykka's ``from tests.log_handler
    import ...``), and the directory's ``__init__.py``: without them it cannot load."""
    folder = conftest.parent
    try:
        tree = ast.parse(conftest.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return []
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if node.level == 1 or (node.level == 0 and parts[0] == folder.name):
                names.append(parts[-1])
    found = [folder / f"{name}.py" for name in ["__init__", *names]]
    return [path for path in found if path.is_file()]


def _dist_info(pkg_info: Path, dest: Path) -> None:
    """``NAME-VERSION.dist-info/METADATA`` in ``dest``, from an sdist's ``PKG-INFO``: the
    metadata an installed package would have, for one that reads it at import."""
    if not pkg_info.is_file():
        return
    text = pkg_info.read_text(encoding="utf-8", errors="replace")
    fields = dict(
        line.split(": ", 1) for line in text.split("\n\n", 1)[0].splitlines() if ": " in line
    )
    name, version = fields.get("Name"), fields.get("Version")
    if not name or not version:
        return
    folder = dest / f"{name.replace('-', '_')}-{version}.dist-info"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "METADATA").write_text(text, encoding="utf-8")


DATA_SUFFIXES = (".json", ".csv", ".txt", ".yaml", ".yml", ".xml", ".toml")
CONFIG_FILES = ("pyproject.toml", "requirements.txt", "setup.cfg", "tox.ini", "pytest.ini")


def data_files(folder: Path) -> list[Path]:
    """The data files beside a test file (``testdata.json``), its project's configuration
    and anything past 1 MB left out."""
    return [
        path
        for path in sorted(folder.iterdir())
        if path.is_file()
        and path.suffix in DATA_SUFFIXES
        and path.name not in CONFIG_FILES
        and path.stat().st_size <= 1 << 20
    ]


def named_folders(test: Path, root: Path) -> list[tuple[Path, Path]]:
    """The folders a test file names as a relative path (``'testcases/memotest.dbf'``
    beside it, ``'tests/data/test-data'`` from the project's root), the data its tests
    read, each with its path relative to the place it was named from: the deepest folder
    the path's leading parts name, not a package, at most 8 MB, and neither the test's
    own folder nor the root."""
    try:
        tree = ast.parse(test.read_text(encoding="utf-8", errors="replace"))
    except (SyntaxError, ValueError):
        return []
    texts = {
        node.value.replace("\\", "/")
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "/" in node.value
    }
    found: dict[Path, Path] = {}
    for text in sorted(texts):
        if len(text) > 200 or "\n" in text or text.startswith("/"):  # text, not a path
            continue
        parts = [part for part in text.split("/") if part not in ("", ".")]
        if not parts or ".." in parts:
            continue
        for base in (test.parent, root):
            folder = _deepest_folder(base, parts)
            if folder is not None and folder not in (test.parent, root):
                found.setdefault(folder, folder.relative_to(base))
    return [(folder, rel) for folder, rel in found.items() if _small(folder)]


def _deepest_folder(base: Path, parts: list[str]) -> Path | None:
    """The deepest folder under ``base`` that the leading ``parts`` name, if any."""
    deepest = None
    for count in range(1, len(parts) + 1):
        folder = base.joinpath(*parts[:count])
        try:
            if not folder.is_dir() or (folder / "__init__.py").exists():
                break
        except OSError:
            break
        deepest = folder
    return deepest


def _small(folder: Path) -> bool:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) <= 8 << 20


def cap_memory() -> None:
    """In the child: the soft data limit (heap and anonymous maps) every tool runs under."""
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    resource.setrlimit(resource.RLIMIT_DATA, (MEMORY_MB * 2**20, hard))


def timed(
    command: list[str], cwd: Path, env: dict[str, str], timeout: float
) -> tuple[subprocess.CompletedProcess[str], float]:
    """``command`` under the memory cap with captured text output, and its wall seconds;
    past ``timeout`` its whole process group is killed (Pynguin's search workers too)."""
    started = time.perf_counter()
    with subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=cap_memory,
        start_new_session=True,
    ) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise BenchError(f"timed out after {timeout:.0f} s: {command[0]}") from exc
    done = subprocess.CompletedProcess(command, proc.returncode, out, err)
    return done, time.perf_counter() - started


def last_line(text: str) -> str:
    """The last non-empty line of a tool's output, for one-line errors."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else "(no output)"


def run_pynguin(target: Target, ctx: Context, work: Path) -> Generated:
    """Pynguin on a scratch copy of the import root."""
    root = copy_root(target, work / "root")
    out, log_file = work / "pynguin-out", work / "pynguin.log"
    command = [str(ctx.pynguin), "--project-path", str(root), "--module-name", target.dotted]
    command += ["--output-path", str(out), "--report-dir", str(work / "pynguin-report")]
    command += ["--maximum-search-time", str(ctx.pynguin_budget), "--seed", str(ctx.seed)]
    command += ["--no-rich", "-v", "--log-file", str(log_file)]
    env = environment(PYNGUIN_DANGER_AWARE="1")
    timeout = max(RUN_TIMEOUT, 20.0 * ctx.pynguin_budget)
    done, wall = timed(command, work, env, timeout)
    log = done.stdout + done.stderr + (log_file.read_text() if log_file.exists() else "")
    note = pynguin_note(log)
    written = sorted(out.glob("test_*.py"))
    if done.returncode != 0 or not written:
        errors = [line for line in log.splitlines() if "[ERROR]" in line or "Error" in line]
        why = f"pynguin exit {done.returncode}: {last_line(errors[-1] if errors else log)}"
        return Generated(None, wall, why, log, note)
    return Generated(written[0].read_text(), wall, log=log, note=note)


def pynguin_note(log: str) -> str:
    """What Pynguin's log says about an early stop or a crashed worker, else ``""``."""
    notes = []
    if "consumed by crashed worker" in log:
        notes.append("search worker crashed")
    search = re.search(r"Used search time: (\d+)/(\d+)", log)
    if search and int(search[1]) < int(search[2]):
        memory = re.search(r"Used memory: ([\d.]+)/([\d.]+) MB", log)
        why = f", memory {float(memory[1]):.0f}/{float(memory[2]):.0f} MB" if memory else ""
        notes.append(f"search stopped at {search[1]}/{search[2]} s{why}")
    timeouts = log.count("Experienced timeout")
    if timeouts:
        notes.append(f"{timeouts} test executions timed out")
    return "; ".join(notes)


def builtin_available() -> str:
    """Why ``tddforge cover --engine builtin --budget`` cannot run, or ``""``."""
    help_text = subprocess.run(
        [sys.executable, "-m", "tddforge", "cover", "--help"], capture_output=True, text=True
    ).stdout
    return "" if "--budget" in help_text else "tddforge cover has no --budget yet"


def run_builtin(target: Target, ctx: Context, work: Path) -> Generated:
    """``tddforge cover --engine builtin`` on a scratch copy of the import root."""
    unavailable = builtin_available()
    if unavailable:
        return Generated(None, 0.0, unavailable)
    root = copy_root(target, work / "root", with_tests=ctx.project_tests)
    tests = f"test_{target.dotted.replace('.', '_')}_builtin.py"
    command = [sys.executable, "-m", "tddforge", "cover", str(root / target.module_rel)]
    command += ["--project", str(root), "--engine", "builtin", "--budget", str(ctx.budget)]
    command += ["--tests", tests, "--json", "--python", str(ctx.python)]
    command += ["--coverage-target", str(ctx.goal), "--mutation-target", str(ctx.goal)]
    done, wall = timed(command, root, environment(), RUN_TIMEOUT)
    log = done.stderr
    try:
        written = json.loads(done.stdout)["final"]["test_file"]
    except (json.JSONDecodeError, KeyError, TypeError):
        return Generated(None, wall, f"cover exit {done.returncode}: {last_line(log)}", log)
    if not written:
        return Generated(None, wall, f"cover wrote no test file: {last_line(log)}", log)
    return Generated((root / written).read_text(), wall, log=log)


GENERATORS: dict[str, Callable[[Target, Context, Path], Generated]] = {
    "pynguin": run_pynguin,
    "builtin": run_builtin,
}


def pytest_outcomes(
    ctx: Context, root: Path, seed: int | None, coverage: list[str]
) -> dict[str, str]:
    """One pytest run of the suite in ``root`` (shuffled when ``seed``): outcomes by node id."""
    results = root.parent / "outcomes.json"
    results.unlink(missing_ok=True)
    env = environment(
        PYTHONPATH=f"{root}{os.pathsep}{root.parent / 'plugin'}",
        BENCH_RESULTS=str(results),
        # the suites need no installed plugin, and one the target shadows cannot load
        # (platformdirs' pytest11 entry point, with the project's platformdirs first)
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
    )
    if seed is not None:
        env["BENCH_SHUFFLE_SEED"] = str(seed)
    command = [str(ctx.python), "-m", *coverage, "pytest", "-p", PLUGIN, "-p", "no:cacheprovider"]
    command += ["-q", "--rootdir", str(root), TEST_FILE]
    done, _ = timed(command, root, env, RUN_TIMEOUT)
    if not results.exists():
        raise BenchError(f"pytest exit {done.returncode}: {last_line(done.stdout + done.stderr)}")
    data: dict[str, Any] = json.loads(results.read_text())
    if data["errors"]:
        raise BenchError(f"collection error: {last_line(data['errors'][0])}")
    outcomes: dict[str, str] = data["outcomes"]
    return outcomes


def classify(runs: list[dict[str, str]]) -> tuple[set[str], set[str], set[str]]:
    """All node ids, those failing in every run, and those failing in some."""
    names = set().union(*runs)
    fails = {n: sum(run.get(n) == "failed" for run in runs) for n in names}
    failing = {n for n, count in fails.items() if count == len(runs)}
    flaky = {n for n, count in fails.items() if 0 < count < len(runs)}
    return names, failing, flaky


def definition_path(nodeid: str) -> tuple[str, ...]:
    """``file.py::Class::test[param]`` -> ``("Class", "test")``."""
    return tuple(nodeid.split("[", 1)[0].split("::")[1:])


def without_tests(source: str, nodeids: set[str]) -> str:
    """``source`` with the definitions of ``nodeids`` deleted (decorators included)."""
    doomed = {definition_path(n) for n in nodeids}
    spans: list[tuple[int, int]] = []
    for node in ast.parse(source).body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if (node.name,) in doomed:
            spans.append(span(node))
        elif isinstance(node, ast.ClassDef):
            inner = [span(m) for m in node.body if (node.name, getattr(m, "name", "")) in doomed]
            spans += [span(node)] if len(inner) == len(node.body) else inner
    lines = source.splitlines(keepends=True)
    for start, end in sorted(spans, reverse=True):
        del lines[start - 1 : end]
    return "".join(lines)


def span(node: ast.stmt) -> tuple[int, int]:
    """First and last line of a definition, decorators included."""
    decorators = getattr(node, "decorator_list", [])
    start = min([node.lineno, *(d.lineno for d in decorators)])
    return start, node.end_lineno or node.lineno


def coverage_figures(ctx: Context, root: Path, module: Path) -> tuple[float, float]:
    """Combined (line + branch) and branch-only percent of ``module`` from the last run."""
    report = root.parent / "coverage.json"
    command = [str(ctx.python), "-m", "coverage", "json", "-q"]
    command += ["--data-file", str(root.parent / ".coverage"), "-o", str(report)]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True)
    if done.returncode != 0:  # "No data to report": the module was never imported
        return 0.0, 0.0
    files = json.loads(report.read_text())["files"]
    summary = next((f["summary"] for name, f in files.items() if root / name == module), None)
    if summary is None:
        return 0.0, 0.0
    branches = summary["num_branches"]
    branch = 100.0 * summary["covered_branches"] / branches if branches else 100.0
    return summary["percent_covered"], branch


def green_coverage(ctx: Context, root: Path, module: Path, source: str, row: Row) -> None:
    """Drop failing and flaky tests, run the rest under coverage; late failures count as flaky."""
    dropped = set(row.removed)
    coverage = ["coverage", "run", "--branch", "--include", str(module)]
    coverage += ["--data-file", str(root.parent / ".coverage"), "-m"]
    for _ in range(GREEN_RETRIES):
        (root / TEST_FILE).write_text(without_tests(source, dropped))
        outcomes = pytest_outcomes(ctx, root, None, coverage)
        late = {n for n, outcome in outcomes.items() if outcome == "failed"}
        if not late:
            row.combined, row.branch = coverage_figures(ctx, root, module)
            row.removed = sorted(dropped)
            return
        row.flaky += len(late)
        dropped |= late
    raise BenchError(f"suite still failing after removing {len(dropped)} tests")


def mutation_figures(ctx: Context, root: Path, module: Path, row: Row) -> None:
    """``tddforge mutate --no-cache`` of the module against the green suite in ``root``."""
    if row.tests - len(row.removed) == 0:
        row.mutation = row.mutation_loose = 0.0
        return
    command = [sys.executable, "-m", "tddforge", "mutate", str(module), "--tests", TEST_FILE]
    command += ["--project", str(root), "--json", "--no-cache", "--python", str(ctx.python)]
    command += ["--workers", str(ctx.workers)]
    source, left_out = (root / TEST_FILE).read_text(), set[str]()
    for _ in range(SANDBOX_RETRIES):
        done, _ = timed(command, root, environment(), 3600.0)
        named = sandbox_failures(done.stderr) if done.returncode == 2 else set()
        if not named - left_out:
            break
        # green here, failing in the sandbox mutate runs the tests in: a test asserting this
        # machine's home directory (Pynguin's '/root/.cache' for platformdirs) kills nothing
        left_out |= named
        (root / TEST_FILE).write_text(without_tests(source, left_out))
    (root / TEST_FILE).write_text(source)
    if done.returncode != 0:
        raise BenchError(f"mutate exit {done.returncode}: {last_line(done.stderr)}")
    if left_out:
        row.note = "; ".join(
            filter(None, [row.note, f"{len(left_out)} tests failing in the sandbox left out"])
        )
    report = json.loads(done.stdout)
    row.mutation, row.mutation_loose = report["strict_score"], report["score"]
    row.mutants = report["mutants"]


SANDBOX_RETRIES = 12  # mutate names five failing tests at a time


def sandbox_failures(stderr: str) -> set[str]:
    """The tests ``tddforge mutate`` says fail in its baseline (node ids, file included)."""
    text = " ".join(stderr.split())  # rich wraps long lines
    found = re.search(r"the tests must pass before mutation; failing: (.*?)(?: error:|$)", text)
    if found is None:
        return set()
    text = re.sub(r" and \d+ more$", "", found.group(1).strip())
    return {name.strip() for name in text.split(", ") if "::" in name}


def measure(target: Target, tool: str, generated: Generated, ctx: Context, work: Path) -> Row:
    """Run, clean and score one generated suite; errors end up in ``row.error``."""
    row = Row(target.id, tool, round(generated.wall, 2), error=generated.error, note=generated.note)
    if generated.source is None:
        return row
    root = copy_root(target, work / "root", with_data=True)
    (work / "plugin").mkdir()
    shutil.copyfile(PLUGIN_SOURCE, work / "plugin" / f"{PLUGIN}.py")
    (root / TEST_FILE).write_text(generated.source)
    module = root / target.module_rel
    try:
        runs = [pytest_outcomes(ctx, root, seed, []) for seed in range(1, ctx.runs + 1)]
        names, failing, flaky = classify(runs)
        row.tests, row.failing, row.flaky = len(names), len(failing), len(flaky)
        row.removed = sorted(failing | flaky)
        green_coverage(ctx, root, module, generated.source, row)
        mutation_figures(ctx, root, module, row)
    except BenchError as exc:
        row.error = str(exc)
    return row


def keep_suite(keep: Path, row: Row, generated: Generated, work: Path) -> None:
    """Copy the generated suite, its green version and the tool's log into ``keep``."""
    dest = keep / row.target
    dest.mkdir(parents=True, exist_ok=True)
    if generated.source is not None:
        (dest / f"{row.tool}.py").write_text(generated.source)
    green = work / "measure" / "root" / TEST_FILE
    if green.exists():
        shutil.copy2(green, dest / f"{row.tool}-green.py")
    (dest / f"{row.tool}.log").write_text(generated.log)


def generate(tool: str, target: Target, ctx: Context, work: Path) -> Generated:
    """``tool``'s suite for ``target``; a step that fails (a generator past its timeout)
    is the row's error, and the other targets are still measured."""
    try:
        return GENERATORS[tool](target, ctx, work)
    except BenchError as exc:
        return Generated(None, 0.0, str(exc))


def parse_args() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--targets",
        type=Path,
        default=Path("bench-targets"),
        help="fetch_targets.sh's download dir.",
    )
    parser.add_argument(
        "--heldout",
        type=Path,
        help="bench/fetch_heldout.py's download dir: the held-out set, a second table.",
    )
    parser.add_argument(
        "--no-project-tests",
        dest="project_tests",
        action="store_false",
        help="Do not give the builtin the module's upstream test files to read inputs from.",
    )
    parser.add_argument("--only", action="append", metavar="ID", help="Target id (repeatable).")
    parser.add_argument("--tools", default="pynguin,builtin", help="Comma-separated subset.")
    parser.add_argument(
        "--pynguin-python",
        type=Path,
        default=Path.home() / ".pyenv" / "versions" / "3.10.13" / "bin" / "python",
    )
    parser.add_argument("--pynguin-venv", type=Path, help="Default: TARGETS/pynguin-venv.")
    parser.add_argument("--pynguin-budget", type=int, default=60, help="Search seconds.")
    parser.add_argument(
        "--budget",
        type=float,
        help="Builtin's seconds (default: a quarter of Pynguin's, so that the builtin's "
        "search and its measuring together fit in a third of Pynguin's wall time).",
    )
    parser.add_argument(
        "--goal",
        type=float,
        default=100.0,
        help="Builtin's coverage and mutation targets (percent): at 100 it "
        "keeps improving while its budget lasts, as Pynguin does.",
    )
    parser.add_argument("--seed", type=int, default=1, help="Pynguin's seed.")
    parser.add_argument("--runs", type=int, default=5, help="Shuffled pytest runs per suite.")
    parser.add_argument("--workers", type=int, default=2, help="Workers of tddforge mutate.")
    parser.add_argument("--json", type=Path, metavar="FILE", help="Write the numbers here.")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="Keep the generated suites.")
    args = parser.parse_args()
    if args.budget is None:
        args.budget = args.pynguin_budget / 4
    return args


def selected(args: argparse.Namespace) -> tuple[dict[str, list[Target]], list[str]]:
    """The targets (by set: the tuned-on ones, then the held-out ones) and tools to run;
    exits with a one-line error on bad input."""
    sets: dict[str, list[Target]] = {}
    for name, folder, fetch in (
        ("tuned on", args.targets, "../shared/bench/fetch_targets.sh"),
        ("held out", args.heldout, "python bench/fetch_heldout.py"),
    ):
        if folder is None:
            continue
        if not (folder / "targets.tsv").is_file():
            sys.exit(f"error: no {folder}/targets.tsv; run {fetch} {folder} first")
        sets[name] = read_targets(folder)
    every = [t for targets in sets.values() for t in targets]
    if args.only:
        unknown = set(args.only) - {t.id for t in every}
        if unknown:
            sys.exit(f"error: unknown target(s) {', '.join(sorted(unknown))}")
        sets = {k: [t for t in v if t.id in args.only] for k, v in sets.items()}
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    if not tools or set(tools) - set(GENERATORS):
        sys.exit(f"error: --tools takes a subset of {','.join(GENERATORS)}")
    missing = [str(t.root) for t in every if not t.root.is_dir()]
    if missing:
        sys.exit(f"error: target dir(s) missing: {', '.join(missing)}")
    return {k: v for k, v in sets.items() if v}, tools


def main() -> None:
    """Generate, measure and print: a table (and the goals) per set of targets."""
    args = parse_args()
    args.targets = args.targets.resolve()
    args.heldout = args.heldout.resolve() if args.heldout else None
    sets, tools = selected(args)
    venv = (args.pynguin_venv or args.targets / "pynguin-venv").resolve()
    if not (venv / "bin" / "python").exists() and not args.pynguin_python.exists():
        sys.exit(f"error: no Python 3.10 at {args.pynguin_python} (see --pynguin-python)")
    python = pynguin_venv(venv, args.pynguin_python)
    ctx = Context(
        python,
        venv / "bin" / "pynguin",
        args.pynguin_budget,
        args.budget,
        args.goal,
        args.seed,
        args.runs,
        args.workers,
        args.project_tests,
    )
    results: dict[str, list[Row]] = {}
    with tempfile.TemporaryDirectory(prefix="builtin-vs-pynguin-") as scratch:
        for name, targets in sets.items():
            rows = results.setdefault(name, [])
            for target in targets:
                for tool in tools:
                    work = Path(scratch) / target.id / tool
                    generated = generate(tool, target, ctx, work / "generate")
                    rows.append(measure(target, tool, generated, ctx, work / "measure"))
                    print(row_line(rows[-1]), flush=True)
                    if args.keep:
                        keep_suite(args.keep, rows[-1], generated, work)
    print(
        f"\npynguin budget {args.pynguin_budget} s, builtin budget {args.budget} s "
        f"(targets {args.goal:g}%, the project's tests read: {args.project_tests}), "
        f"{args.runs} shuffled runs per suite"
    )
    verdicts: dict[str, dict[str, dict[str, bool]]] = {}
    for name, rows in results.items():
        verdicts[name] = goals(list(rows))
        print(f"\n{name}:\n{table(list(rows))}\n")
        print("\n".join(goal_lines(verdicts[name])) or "goals: no target has two clean rows")
    if args.json:
        data = {
            "config": {k: str(v) for k, v in vars(args).items()},
            "rows": {name: [asdict(r) for r in rows] for name, rows in results.items()},
            "goals": verdicts,
        }
        args.json.write_text(json.dumps(data, indent=2) + "\n")


if __name__ == "__main__":
    main()
