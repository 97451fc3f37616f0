"""Pytest's rewritten plugin modules are written once, outside the sandbox, never in the
project: a sandboxed run (``PYTHONDONTWRITEBYTECODE``, read-only outside its work dir)
then finds them instead of rewriting every plugin again."""

from __future__ import annotations

import site
import subprocess
import sys
from pathlib import Path

import pytest

from tddforge.runner import plugin_cache
from tddforge.runner.plugin_cache import installed_plugins, warm_plugins

pytestmark = pytest.mark.integration

PLUGIN = "def pytest_configure(config):\n    assert config is not None\n"


def plugin(where: Path, name: str) -> Path:
    """An installed pytest plugin ``name``: its module in ``where``, and its distribution's
    entry point beside it."""
    where.mkdir(parents=True, exist_ok=True)
    module = where / f"{name}.py"
    module.write_text(PLUGIN, encoding="utf-8")
    info = where / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[pytest11]\n{name} = {name}\n")
    # pytest rewrites the modules a plugin's distribution lists
    (info / "RECORD").write_text(f"{name}.py,,\n")
    return module


def rewritten(module: Path) -> list[Path]:
    return sorted((module.parent / "__pycache__").glob(f"{module.stem}.*-pytest-*.py[co]"))


def test_missing_rewritten_plugins_are_written_once_and_never_in_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an interpreter of its own whose path holds pytest (ours), a plugin installed
    # elsewhere, and the project's own plugin (an editable install of it)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    outside = plugin(tmp_path / "plugins", "tddforge_sample_plugin")
    project = tmp_path / "project"
    own = plugin(project / "src", "tddforge_own_plugin")
    found = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    paths = [*site.getsitepackages(), str(outside.parent), str(own.parent)]
    Path(found.stdout.strip(), "paths.pth").write_text("\n".join(paths) + "\n")
    monkeypatch.setattr(plugin_cache, "_WARMED", set())
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")  # as here and in containers: ignored

    seen = {p.name: p for p in installed_plugins(python)}
    assert not seen["tddforge_sample_plugin"].cached
    assert seen["tddforge_own_plugin"].path == own.resolve()
    assert warm_plugins(python, project)
    assert rewritten(outside) and not rewritten(own)
    assert {p.name: p.cached for p in installed_plugins(python)}["tddforge_sample_plugin"]
    assert not warm_plugins(python, project)  # once per process and interpreter
