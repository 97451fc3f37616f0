"""Run a project's tests with pytest (optionally under coverage.py) inside the sandbox.

Results come from our plugin's JSON lines (``tddforge.target.pytest_plugin``,
shipped by ``ship`` and loaded as ``-p tddforge_target.pytest_plugin``), never
from pytest's human output, which is kept only for people to read. Everything
the run writes besides the project's own files (results, coverage data, the
shipped package) lives in the sandbox's ``scratch()`` directory, outside the
project, removed afterwards.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from tddforge.errors import RunnerError
from tddforge.runner.coverage_data import CoverageReport, read_coverage_json, with_context_arcs
from tddforge.runner.plugin_cache import warm_plugins
from tddforge.runner.results import (
    TestRun,
    collected_from_jsonl,
    outcomes_from_jsonl,
    parse_records,
)
from tddforge.runner.ship import PLUGIN, ship
from tddforge.sandbox import Sandbox, SandboxResult
from tddforge.target.workdir import entries

_PYTEST_FLAGS = ("--continue-on-collection-errors", "-q", "-p", "no:cacheprovider")
_BROKEN_EXITS = {3: "internal error", 4: "usage error"}


def interpreter_for(project_dir: Path, explicit: str | None) -> Path:
    """The interpreter to test ``project_dir`` with: explicit, the project's venv, or ours."""
    if explicit:
        return _checked_python(explicit)
    for venv in (".venv", "venv"):
        candidate = project_dir / venv / "bin" / "python"
        if candidate.exists():
            return candidate.absolute()
    return Path(sys.executable)


def _checked_python(python: str | Path) -> Path:
    found = shutil.which(str(python)) if os.sep not in str(python) else str(python)
    if not found or not os.access(found, os.X_OK) or not Path(found).is_file():
        raise RunnerError(f"python interpreter not found: {python}")
    return Path(found).absolute()


def run_pytest(
    project_dir: Path,
    *,
    python: str | Path,
    sandbox: Sandbox,
    paths: Sequence[str] = (),
    timeout: float,
    coverage_source: Sequence[str] | None = None,
    coverage_include: Sequence[Path] = (),
    extra_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    per_test: bool = False,
    protected: Sequence[Path] = (),
) -> TestRun:
    """Run pytest on ``project_dir`` in ``sandbox`` and return per-test outcomes.

    With ``coverage_source``, coverage.py measures those directories; its report
    covers only the ``coverage_include`` files when given (reporting a package's
    every module means parsing each of them, which costs more than the tests).
    ``per_test`` measures each test in its own context (its node id): the report
    then says which tests ran each line, and which arcs each test ran.
    ``protected``: paths the tests may only read (``Sandbox.run``; ``own_entries``).
    """
    interpreter = _checked_python(python)
    project = _inside(project_dir, sandbox.work_dir)
    warm_plugins(interpreter, project)
    with sandbox.scratch() as private:
        run_env = _prepared(project, private, env or {})
        if per_test and coverage_source is not None:
            run_env["TDDFORGE_CONTEXTS"] = "1"
        if coverage_source is not None:  # the plugin writes the report as pytest ends
            run_env["TDDFORGE_COVERAGE_JSON"] = str(private / "coverage.json")
            run_env["TDDFORGE_COVERAGE_INCLUDE"] = "\n".join(_include(coverage_include))
        argv = _pytest_argv(interpreter, project, paths, extra_args, coverage_source)
        result = sandbox.run(
            argv, cwd=project, timeout=timeout, extra_env=run_env, protected=protected
        )
        lines = _read_lines(private / "results.jsonl")
        _check_started(result, lines, interpreter, coverage_source)
        coverage = None
        if coverage_source is not None and not result.timed_out:
            coverage = _coverage_report(
                sandbox, interpreter, project, private, run_env, coverage_include, per_test
            )
    return _test_run(result, lines, coverage)


def run_pytest_orders(
    project_dir: Path,
    *,
    python: str | Path,
    sandbox: Sandbox,
    orders: Sequence[str],
    paths: Sequence[str] = (),
    timeout: float,
    extra_args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    protected: Sequence[Path] = (),
) -> list[TestRun]:
    """Collect once, then run the tests once per shuffle seed in ``orders``: a run each.

    Each run is a child forked from the collected session, so it sees what
    collection left and nothing an earlier run did, as a new interpreter with
    the same hash seed would. Each has ``timeout`` seconds; a run cut off
    there has ``timed_out`` set.
    """
    interpreter = _checked_python(python)
    project = _inside(project_dir, sandbox.work_dir)
    warm_plugins(interpreter, project)
    with sandbox.scratch() as private:
        run_env = _prepared(project, private, env or {})
        run_env["TDDFORGE_ORDERS"] = ",".join(orders)
        run_env["TDDFORGE_ORDER_TIMEOUT"] = str(timeout)
        argv = _pytest_argv(interpreter, project, paths, extra_args, None)
        wall = timeout * len(orders) + 30.0
        result = sandbox.run(
            argv, cwd=project, timeout=wall, extra_env=run_env, protected=protected
        )
        collected = _read_lines(private / "results.jsonl")
        _check_started(result, collected, interpreter, None)
        runs = [_read_lines(private / f"results.jsonl.{i}") for i in range(len(orders))]
    if not any(runs):  # collection failed or pytest stopped before running: one run's facts
        return [_test_run(result, collected, None)] * len(orders)
    return [_order_run(result, collected, lines) for lines in runs]


def own_entries(project: Path) -> list[Path]:
    """The project's own entries (but tddforge's run directory and the caches), for a run
    that must leave them as they are: generated code may add files beside them, and
    change nothing that was there."""
    return [project / name for name in entries(str(project))]


def _prepared(project: Path, private: Path, env: Mapping[str, str]) -> dict[str, str]:
    """Our plugin shipped into ``private``; the environment that finds it."""
    return _run_env(project, private, ship(private), env)


def _order_run(result: SandboxResult, collected: list[str], lines: list[str]) -> TestRun:
    cut = any(record.get("event") == "timeout" for record in parse_records(lines))
    return _test_run(replace(result, timed_out=result.timed_out or cut), [*collected, *lines], None)


def _inside(project_dir: Path, work_dir: Path) -> Path:
    project = Path(project_dir).resolve()
    if not project.is_dir():
        raise RunnerError(f"project directory not found: {project_dir}")
    if project != work_dir and work_dir not in project.parents:
        raise RunnerError(f"{project} is outside the sandbox work dir {work_dir}")
    return project


def project_paths(project: Path) -> list[str]:
    """What goes on PYTHONPATH for a project: its root, and its ``src`` when it has one."""
    return [str(project), *([str(project / "src")] if (project / "src").is_dir() else [])]


def _run_env(project: Path, private: Path, plugin: Path, env: Mapping[str, str]) -> dict[str, str]:
    """PYTHONPATH: our plugin, the project (and its ``src``), then the caller's."""
    entries = [str(plugin), *project_paths(project)]
    if env.get("PYTHONPATH"):
        entries.append(env["PYTHONPATH"])
    return {
        **env,
        "PYTHONPATH": os.pathsep.join(entries),
        "COVERAGE_FILE": str(private / "coverage.data"),
        "TDDFORGE_RESULTS": str(private / "results.jsonl"),
    }


def _pytest_argv(
    python: Path,
    project: Path,
    paths: Sequence[str],
    extra_args: Sequence[str],
    coverage_source: Sequence[str] | None,
) -> list[str]:
    pytest_args = ["-p", PLUGIN, *_PYTEST_FLAGS, f"--rootdir={project}", *extra_args]
    if coverage_source is None:
        return [str(python), "-m", "pytest", *pytest_args, *paths]
    source = ",".join(coverage_source) or "."
    run = [str(python), "-m", "coverage", "run", "--branch", f"--source={source}"]
    return [*run, "-m", "pytest", *pytest_args, *paths]


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return []


def _check_started(
    result: SandboxResult, lines: list[str], python: Path, coverage: Sequence[str] | None
) -> None:
    """Raise when pytest produced no results at all (not installed, bad options...)."""
    if lines or result.timed_out:
        return
    detail = _last_line(result.stderr) or _last_line(result.stdout) or "no output"
    if coverage is not None and "No module named coverage" in result.stderr:
        raise RunnerError(f"coverage is not installed in {python} (pip install coverage)")
    raise RunnerError(f"pytest produced no results under {python}: {detail}")


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def _coverage_report(
    sandbox: Sandbox,
    python: Path,
    project: Path,
    private: Path,
    env: Mapping[str, str],
    include: Sequence[Path] = (),
    per_test: bool = False,
) -> CoverageReport | None:
    """The run's coverage report: the one our plugin wrote as pytest ended, else coverage.py's
    command line turns the data into one; None when nothing was measured."""
    report = private / "coverage.json"
    if not report.is_file():
        argv = [str(python), "-m", "coverage", "json", "-q", "-o", str(report)]
        if per_test:
            argv.append("--show-contexts")
        files = _include(include)
        if files:
            argv.append("--include=" + ",".join(files))
        result = sandbox.run(argv, cwd=project, timeout=120.0, extra_env=env)
        if result.returncode != 0 or not report.is_file():
            return None  # "No data to report": no test ran any measured code
    found = read_coverage_json(report)
    return with_context_arcs(found, private / "coverage.data", project) if per_test else found


def _include(paths: Sequence[Path]) -> list[str]:
    """The files a report covers, resolved; none (every measured file) when a path has glob
    characters: coverage.py reads them as globs, and such a path is better reported with
    everything else than matched wrongly."""
    if any(set("*?[") & set(str(path)) for path in paths):
        return []
    return [str(Path(path).resolve()) for path in paths]


def _test_run(result: SandboxResult, lines: list[str], coverage: CoverageReport | None) -> TestRun:
    unfinished = "Timeout" if result.timed_out else "Crashed"
    outcomes, collection_errors, session_exit = outcomes_from_jsonl(
        lines, unfinished_kind=unfinished
    )
    exit_code = session_exit if session_exit is not None else result.returncode
    if exit_code in _BROKEN_EXITS and not outcomes:
        detail = _last_line(result.stdout) or _last_line(result.stderr)
        raise RunnerError(f"pytest {_BROKEN_EXITS[exit_code]} (exit {exit_code}): {detail}")
    output = result.stdout + (("\n" + result.stderr) if result.stderr else "")
    return TestRun(
        outcomes=outcomes,
        collection_errors=collection_errors,
        exit_code=exit_code,
        timed_out=result.timed_out,
        duration=result.duration,
        output=output,
        coverage=coverage,
        collected=collected_from_jsonl(lines),
    )
