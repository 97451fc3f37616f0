"""The project's own pytest configuration: which file pytest will read, and whether it works.

pytest reads the first of pytest.ini, .pytest.ini, pyproject.toml (with
``[tool.pytest.ini_options]``), tox.ini (``[pytest]``), setup.cfg
(``[tool:pytest]``) in the rootdir. A configuration can be unusable as it
comes: ``addopts = --cov=...`` without pytest-cov installed is a usage error
before any test runs. ``check_config`` finds that out with one collection in
the sandbox; ``neutral_args`` then gives arguments that replace the ini file
with an empty one while keeping the rootdir and the project's conftest files.
"""

from __future__ import annotations

import configparser
from dataclasses import dataclass
from pathlib import Path

from tddforge.compat import tomllib
from tddforge.sandbox import Sandbox

_NO_TESTS = 5
NEUTRAL_INI = "[pytest]\n"


@dataclass(frozen=True)
class ConfigCheck:
    """Whether the project's pytest configuration can be used, and why not."""

    config_file: str | None  # relative to the project; None when there is none
    usable: bool
    reason: str | None = None

    def to_data(self) -> dict[str, object]:
        """Plain data for reports."""
        return {"config_file": self.config_file, "usable": self.usable, "reason": self.reason}


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
    argv = [str(python), "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    argv += ["--ignore-glob=*", f"--rootdir={project}", str(project)]
    result = sandbox.run(argv, cwd=project, timeout=120.0)
    if result.returncode in (0, _NO_TESTS):
        return ConfigCheck(config, True)
    detail = _error_line(result.stderr) or _error_line(result.stdout) or f"exit {result.returncode}"
    where = f"the project's {config}" if config else "the project's conftests or installed plugins"
    return ConfigCheck(config, False, f"pytest cannot start with {where}: {detail}")


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
