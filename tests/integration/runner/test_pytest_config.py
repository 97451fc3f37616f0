"""The project's pytest configuration checked for real in the sandbox."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tddforge.runner.pytest_config import check_config, unloadable_plugins
from tddforge.sandbox import Limits, Sandbox
from tests.integration.runner.shadow import shadow_plugin

pytestmark = pytest.mark.integration

PYTHON = Path(sys.executable)


def _project(root: Path, pyproject: str = "") -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "tests" / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
    )
    if pyproject:
        (root / "pyproject.toml").write_text(pyproject)
    return root


def _sandbox(project: Path) -> Sandbox:
    return Sandbox(project, Limits(wall_seconds=60.0))


def test_a_plain_project_is_usable_with_nothing_left_out(tmp_path: Path) -> None:
    project = _project(tmp_path / "p")
    check = check_config(project, PYTHON, _sandbox(project))
    assert (check.usable, check.blocked, check.note) == (True, (), None)
    assert unloadable_plugins(project, PYTHON, _sandbox(project)) == ()


def test_a_shadowed_plugin_is_left_out_and_the_projects_configuration_kept(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path / "p", '[tool.pytest.ini_options]\naddopts = "-q"\n')
    name = shadow_plugin(project, "calc")
    sandbox = _sandbox(project)
    assert unloadable_plugins(project, PYTHON, sandbox) == (name,)
    check = check_config(project, PYTHON, sandbox)
    assert (check.usable, check.blocked, check.reason) == (True, (name,), None)
    assert check.pytest_args == ["-p", f"no:{name}"]
    assert check.note is not None and name in check.note and "neutral" not in check.note
    assert check.to_data()["blocked_plugins"] == [name]


def test_a_shadowed_plugin_and_an_unusable_configuration_both_reported(tmp_path: Path) -> None:
    project = _project(tmp_path / "p", '[tool.pytest.ini_options]\naddopts = "--cov=calc"\n')
    name = shadow_plugin(project, "calc")
    check = check_config(project, PYTHON, _sandbox(project))
    assert not check.usable and check.blocked == (name,)
    # the reason is the one left once the plugin is out: the configuration's own
    assert check.reason is not None and "--cov" in check.reason
    assert check.note is not None and "neutral pytest configuration" in check.note
