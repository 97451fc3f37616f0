"""The project's own pytest configuration: which file pytest will read, and whether it works.

pytest reads the first of pytest.ini, .pytest.ini, pyproject.toml (with
``[tool.pytest.ini_options]``), tox.ini (``[pytest]``), setup.cfg
(``[tool:pytest]``) in the rootdir. A configuration can be unusable as it
comes: ``addopts = --cov=...`` without pytest-cov installed is a usage error
before any test runs. ``check_config`` finds that out with one collection in
the sandbox; ``neutral_args`` then gives arguments that replace the ini file
with an empty one while keeping the rootdir and the project's conftest files.

An installed plugin can be unusable too: pytest loads every ``pytest11`` entry
point, and a project that shadows the installed distribution of its own package
(platformdirs' source tree in a venv with platformdirs installed) hides the
plugin module the entry point names, so pytest stops before collecting.
``unloadable_plugins`` names such plugins, and ``block_args`` leaves them out.
"""

from __future__ import annotations

import configparser
import os
from dataclasses import dataclass
from pathlib import Path

from tddforge.compat import tomllib
from tddforge.runner.plugin_cache import warm_plugins
from tddforge.runner.pytest_run import project_paths
from tddforge.sandbox import Sandbox

_NO_TESTS = 5
NEUTRAL_INI = "[pytest]\n"


@dataclass(frozen=True)
class ConfigCheck:
    """Whether the project's pytest configuration can be used, and why not."""

    config_file: str | None  # relative to the project; None when there is none
    usable: bool
    reason: str | None = None
    blocked: tuple[str, ...] = ()  # installed plugins left out: they cannot be imported here

    def to_data(self) -> dict[str, object]:
        """Plain data for reports."""
        return {
            "config_file": self.config_file,
            "usable": self.usable,
            "reason": self.reason,
            "blocked_plugins": list(self.blocked),
        }

    @property
    def pytest_args(self) -> list[str]:
        """The arguments that leave out the blocked plugins (neutral ones come on top)."""
        return block_args(self.blocked)

    @property
    def note(self) -> str | None:
        """One line on what differs from a plain pytest run of the project, or None."""
        parts = (
            [] if self.usable else [f"{self.reason}; running with a neutral pytest configuration"]
        )
        if self.blocked:
            parts.append(blocked_note(self.blocked))
        return "; ".join(parts) or None


def find_config(project: Path) -> str | None:
    """The file pytest takes its configuration from in ``project``, by pytest's own order."""
    for name in ("pytest.ini", ".pytest.ini"):
        if (project / name).is_file():
            return name
    pyproject = project / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            data = {}
        if "ini_options" in data.get("tool", {}).get("pytest", {}):
            return "pyproject.toml"
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        if (project / name).is_file() and _has_section(project / name, section):
            return name
    return None


def _has_section(path: Path, section: str) -> bool:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        return False
    return parser.has_section(section)


def check_config(project: Path, python: Path, sandbox: Sandbox) -> ConfigCheck:
    """Start pytest on the project collecting nothing; a usage error means unusable.

    pytest finds the configuration from the argument (the project), loads it
    and the conftests a real run loads (the root's and those of ``test*``
    directories), and ``--ignore-glob=*`` keeps it from importing any test module.
    """
    config = find_config(project)
    warm_plugins(python, project)  # the first of the run's pytest starts, and the rest
    failure = _start_failure(project, python, sandbox, [])
    if failure is None:
        return ConfigCheck(config, True)
    blocked = unloadable_plugins(project, python, sandbox)
    if blocked:
        still = _start_failure(project, python, sandbox, block_args(blocked))
        if still is None:
            return ConfigCheck(config, True, blocked=blocked)
        failure = still
    where = f"the project's {config}" if config else "the project's conftests or installed plugins"
    return ConfigCheck(config, False, f"pytest cannot start with {where}: {failure}", blocked)


def _start_failure(project: Path, python: Path, sandbox: Sandbox, extra: list[str]) -> str | None:
    """pytest's error line when it cannot start on the project with ``extra`` arguments."""
    argv = [str(python), "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    argv += [*extra, "--ignore-glob=*", f"--rootdir={project}", str(project)]
    result = sandbox.run(argv, cwd=project, timeout=120.0, extra_env=_import_env(project))
    if result.returncode in (0, _NO_TESTS):
        return None
    return _error_line(result.stderr) or _error_line(result.stdout) or f"exit {result.returncode}"


def _import_env(project: Path) -> dict[str, str]:
    """The project on the import path, as in the runs the check stands for."""
    return {"PYTHONPATH": os.pathsep.join(project_paths(project))}


# Loads every pytest11 entry point as pytest would, and prints the names of those that
# fail; runs under the project's Python (3.8 and later).
_PLUGIN_PROBE = """
import importlib.metadata as metadata
found = metadata.entry_points()
group = found.select(group="pytest11") if hasattr(found, "select") else found.get("pytest11", ())
for point in group:
    try:
        point.load()
    except Exception:
        print(point.name)
"""


def unloadable_plugins(project: Path, python: Path, sandbox: Sandbox) -> tuple[str, ...]:
    """The installed pytest plugins (entry point names) that cannot be imported with the
    project on the import path, sorted; empty when the probe itself cannot run."""
    result = sandbox.run(
        [str(python), "-c", _PLUGIN_PROBE],
        cwd=project,
        timeout=120.0,
        extra_env=_import_env(project),
    )
    if result.returncode != 0:
        return ()
    return tuple(sorted({line.strip() for line in result.stdout.splitlines() if line.strip()}))


def block_args(names: tuple[str, ...] | list[str]) -> list[str]:
    """pytest arguments that keep pytest from loading the named plugins."""
    return [arg for name in names for arg in ("-p", f"no:{name}")]


def blocked_note(names: tuple[str, ...] | list[str]) -> str:
    """The note for plugins left out."""
    return (
        f"left out installed pytest plugin(s) that cannot be imported with the project: "
        f"{', '.join(names)}"
    )


def _error_line(text: str) -> str | None:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # pytest's usage errors end with "pytest: error: unrecognized arguments: --cov=..."
    for line in reversed(lines):
        if "error:" in line.lower() or line.startswith("E "):
            return line.removeprefix("E ").strip()
    return lines[-1] if lines else None


def neutral_args(ini: Path, project: Path) -> list[str]:
    """pytest arguments for an empty configuration that keep the project's rootdir and conftests."""
    return ["-c", str(ini), f"--rootdir={project}", f"--confcutdir={project}"]


def testpaths(project: Path) -> list[str]:
    """The ``testpaths`` of the file pytest reads its configuration from (empty without)."""
    config = find_config(project)
    if config is None:
        return []
    path = project / config
    if config == "pyproject.toml":
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        value = data["tool"]["pytest"]["ini_options"].get("testpaths", [])
        return [value] if isinstance(value, str) else [str(v) for v in value]
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(path, encoding="utf-8")
    section = "tool:pytest" if config == "setup.cfg" else "pytest"
    return parser.get(section, "testpaths", fallback="").split()
