"""The README's first command: the console script runs the bundled demo with no key."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .conftest import clean_env

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

SCRIPT = Path(sys.executable).parent / "tddforge"


def test_console_script_runs_the_demo_without_a_key(tmp_path: Path) -> None:
    project = tmp_path / "demo"
    result = subprocess.run(
        [str(SCRIPT), "demo", "--project", str(project)],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "valid RED: 6 tests, 6 red for the right reason" in result.stderr
    artifact = yaml.safe_load((project / ".tddforge/artifacts/SPEC-DEMO-0001/red.yaml").read_text())
    assert artifact["valid"] is True
    assert artifact["traceability"]["uncovered"] == []
    assert (project / "tests" / "test_textstats.py").is_file()


def test_demo_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine\n")
    result = subprocess.run(
        [sys.executable, "-m", "tddforge", "demo", "--project", str(tmp_path)],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "not empty" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt"]


def test_version_and_help() -> None:
    version = subprocess.run(
        [str(SCRIPT), "--version"], capture_output=True, text=True, check=False
    )
    assert version.returncode == 0 and "tddforge" in version.stdout
    usage = subprocess.run([str(SCRIPT), "red"], capture_output=True, text=True, check=False)
    assert usage.returncode == 2 and "SPEC" in usage.stderr
