"""``tddforge mutate`` as a user runs it: exit codes, one-line errors, reports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tddforge.workspace.git import Git
from tests.integration.mutation.conftest import TESTS, write_project
from tests.integration.mutation.test_project import FILES as PACKAGE_FILES
from tests.integration.runner.shadow import shadow_plugin

pytestmark = [pytest.mark.e2e, pytest.mark.integration]


def _mutate(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tddforge", "mutate", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if not line.startswith("· ")]


def test_json_report_and_fail_under(tmp_path: Path) -> None:
    project = write_project(tmp_path / "p")
    ok = _mutate(
        project, "sample.py", "--tests", "tests/test_sample.py", "--json", "--workers", "2"
    )
    assert ok.returncode == 0, ok.stderr
    report = json.loads(ok.stdout)
    assert report["module"] == "sample.py" and report["tests"] == 6
    assert report["counts"]["killed"] > 0 and report["counts"]["survived"] > 0
    assert report["survivors"][0]["diff"].startswith("- ")
    assert "by_operator" in report["chart"]
    assert 0 < report["mutant_seconds"] < report["elapsed"]  # the phase after the baseline
    runs = list((project / ".tddforge" / "runs").iterdir())
    assert (runs[0] / "mutation.md").read_text().startswith("# Mutation report")
    strict = _mutate(
        project, "sample.py", "--tests", "tests/test_sample.py", "--fail-under", "99.5"
    )
    assert strict.returncode == 1
    assert "verdicts reused" in strict.stderr  # the second run used the cache


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (None, ["nope.py", "--tests", "tests/test_sample.py"], "module not found"),
        (None, ["sample.py", "--tests", "tests/missing.py"], "test path not found"),
        ("syntax", ["sample.py", "--tests", "tests/test_sample.py"], "syntax error at line 1"),
        (
            "red",
            ["sample.py", "--tests", "tests/test_sample.py"],
            "failing: tests/test_sample.py::test_clamp_high",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, setup: str | None, args: list[str], message: str
) -> None:
    project = write_project(tmp_path / "p")
    if setup == "syntax":
        (project / "sample.py").write_text("def broken(:\n")
    if setup == "red":
        (project / "tests" / "test_sample.py").write_text(
            TESTS.replace("clamp(10) == 3", "clamp(10) == 9")
        )
    result = _mutate(project, *args)
    assert result.returncode == 2
    (line,) = _errors(result.stderr)
    assert line.startswith("error: ") and message in line
    assert not (project / ".tddforge" / "runs").exists()


def test_unusable_project_config_falls_back_to_a_neutral_one(tmp_path: Path) -> None:
    project = write_project(tmp_path / "p")
    # Like semver 3.0.2: addopts needing a plugin (pytest-cov) that is not installed.
    (project / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\naddopts = "--cov=sample --cov-report=term"\n'
    )
    result = _mutate(project, "sample.py", "--tests", "tests/test_sample.py", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["counts"]["killed"] > 0
    (warning,) = report["warnings"]
    assert "--cov" in warning and "neutral pytest configuration" in warning
    assert "neutral pytest configuration" in result.stderr


def test_an_installed_plugin_the_project_shadows_is_left_out(tmp_path: Path) -> None:
    project = write_project(tmp_path / "p")
    # Like platformdirs' source tree in a venv where platformdirs (and its plugin) is installed.
    name = shadow_plugin(project, "sample")
    result = _mutate(project, "sample.py", "--tests", "tests/test_sample.py", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["counts"]["killed"] > 0
    (warning,) = report["warnings"]  # the project's own configuration still works
    assert f"cannot be imported with the project: {name}" in warning
    assert "neutral" not in result.stderr


def test_a_conftest_pytest_cannot_load_is_reported_not_hidden(tmp_path: Path) -> None:
    project = write_project(tmp_path / "p")
    # Like boltons 24.0.0 under pytest 9: a hook argument pytest no longer provides.
    (project / "tests" / "conftest.py").write_text(
        "def pytest_ignore_collect(path, config):\n    return False\n"
    )
    result = _mutate(project, "sample.py", "--tests", "tests/test_sample.py")
    assert result.returncode == 2
    (line,) = _errors(result.stderr)
    assert "pytest_ignore_collect" in line and "path" in line


def _package(root: Path) -> Path:
    for name, text in PACKAGE_FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_package_by_default_with_every_mutant_and_a_step_summary(tmp_path: Path) -> None:
    project = _package(tmp_path / "p")
    summary = tmp_path / "summary.md"
    result = _mutate(project, "--json", "--all", "--summary", str(summary), "--workers", "2")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    # pkg/__init__.py only imports: a module with no mutant has no row
    assert [row["module"] for row in report["modules"]] == ["pkg/calc.py", "pkg/fmt.py"]
    assert report["totals"]["modules"] == 3
    ran = report["totals"]["mutants"] - report["totals"]["counts"]["no-coverage"]
    assert sum(report["strategies"].values()) == ran  # graft, rebind, fresh
    assert report["totals"]["mutants"] == len(report["all_mutants"]) > 0
    row = next(m for m in report["all_mutants"] if m["verdict"] == "killed")
    assert set(row) >= {"module", "verdict", "line", "col", "end_line", "end_col", "killer"}
    assert {"original", "replacement"} <= set(row) and row["killer"].startswith("tests/")
    assert row["strategy"] in ("graft", "fresh") and row["seconds"] > 0
    assert 0 < row["cpu_seconds"] < 60  # its child's CPU time, measured by the worker
    text = summary.read_text()
    assert "| `pkg/calc.py` |" in text and "| **total** |" in text and "```diff" in text


@pytest.mark.parametrize("configured", [False, True])
def test_scope_functions_leaves_import_time_code_alone(tmp_path: Path, configured: bool) -> None:
    """As mutmut mutates: a default (``top=10``), module data (``FMT``) are left out."""
    project = _package(tmp_path / "p")
    args = ["--json", "--all", "--workers", "2"]
    if configured:
        with (project / "pyproject.toml").open("a") as handle:
            handle.write('\n[tool.tddforge.mutate]\nscope = "functions"\n')
    else:
        args += ["--scope", "functions"]
    result = _mutate(project, *args)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["scope"] == "functions"
    assert report["all_mutants"] and {m["strategy"] for m in report["all_mutants"]} == {"graft"}
    lines = {(m["module"], m["line"]) for m in report["all_mutants"]}
    assert ("pkg/calc.py", 2) in lines  # a + b, in a function body
    assert ("pkg/fmt.py", 1) not in lines and ("pkg/calc.py", 5) not in lines  # FMT, top=10
    assert "function bodies only" in result.stderr
    everything = json.loads(_mutate(project, "--json", "--all", "--scope", "all").stdout)
    assert ("pkg/fmt.py", 1) in {(m["module"], m["line"]) for m in everything["all_mutants"]}


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (None, ["../outside.py"], "is outside the project"),
        ("no tests", [], "no tests found for pkg"),
        ("none collected", [], "no tests for pkg/__init__.py, pkg/calc.py, pkg/fmt.py: none"),
        ("red", [], "failing: tests/test_calc.py::test_add"),
    ],
)
def test_bad_project_input_is_one_line_and_exit_2(
    tmp_path: Path, setup: str | None, args: list[str], message: str
) -> None:
    project = _package(tmp_path / "p")
    (tmp_path / "outside.py").write_text("X = 1\n")
    if setup == "no tests":
        for test in (project / "tests").iterdir():
            test.unlink()
    if setup == "none collected":
        (project / "tests" / "test_calc.py").write_text("import pkg\n")
        (project / "tests" / "test_fmt.py").unlink()
    if setup == "red":
        calc = project / "pkg" / "calc.py"
        calc.write_text(calc.read_text().replace("return a + b", "return a - b"))
    result = _mutate(project, *args)
    assert result.returncode == 2
    (line,) = _errors(result.stderr)
    assert line.startswith("error: ") and message in line
    assert not (project / ".tddforge" / "runs").exists()


def test_since_ref_scores_the_changed_lines_of_the_package(tmp_path: Path) -> None:
    project = _package(tmp_path / "p")
    git = Git(project)
    git.init()
    git.add()
    git.commit("base")
    calc = project / "pkg" / "calc.py"
    calc.write_text(calc.read_text().replace("return a + b", "return b + a"))
    result = _mutate(project, "--since-ref", "HEAD", "--json", "--all", "--fail-under", "100")
    report = json.loads(result.stdout)
    assert report["since_ref"] == "HEAD"
    assert [row["module"] for row in report["modules"]] == ["pkg/calc.py"]
    assert {m["line"] for m in report["all_mutants"]} == {2}  # the changed line alone
    assert report["modules"][0]["mutants"] == report["totals"]["mutants"] > 0
    assert report["totals"]["score"] == 100.0 and result.returncode == 0  # add(2, 3) == 5
    (project / "tests" / "test_calc.py").write_text("def test_none():\n    pass\n")
    (project / "tests" / "test_fmt.py").write_text("def test_none():\n    pass\n")
    weak = _mutate(project, "--since-ref", "HEAD", "--json", "--fail-under", "50")
    assert json.loads(weak.stdout)["totals"]["score"] is None and weak.returncode == 1
