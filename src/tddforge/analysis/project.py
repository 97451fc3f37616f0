"""What a project looks like, read statically: its test framework, a module's import name, where
tests go, the line length ruff formats it to.

Framework detection reads the project's existing tests (never imports them):
Django when they use ``django``; unittest when their test classes subclass
``TestCase`` and nothing uses pytest; pytest otherwise (also with no tests).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from tddforge.compat import tomllib

FRAMEWORKS = ("pytest", "unittest", "django")
_SKIP_DIRS = {
    ".venv",
    "venv",
    ".tddforge",
    ".git",
    "node_modules",
    "__pycache__",
    ".tox",
    "build",
    "dist",
    "site-packages",
    ".eggs",
}
_MAX_FILES = 200
_DJANGO = re.compile(r"^\s*(from|import)\s+django\b", re.M)
_PYTEST = re.compile(r"^\s*(from|import)\s+pytest\b|@pytest\.|\bpytest\.", re.M)
_TESTCASE = re.compile(r"^class\s+\w+\(.*TestCase\b.*\)\s*:", re.M)
_BARE_TEST = re.compile(r"^def\s+test\w*\s*\(", re.M)


def test_files(project: Path) -> Iterator[Path]:
    """The project's test files (``test_*.py``, ``*_test.py``), skipping venvs and state."""
    count = 0
    for path in sorted(project.rglob("*.py")):
        if _SKIP_DIRS.intersection(path.relative_to(project).parts[:-1]):
            continue
        if path.name.startswith("test_") or path.name.endswith("_test.py"):
            count += 1
            if count > _MAX_FILES:
                return
            yield path


def classify_test_source(text: str) -> str | None:
    """The framework one test file uses, or None when it shows no sign of one."""
    if _DJANGO.search(text):
        return "django"
    if _PYTEST.search(text) or _BARE_TEST.search(text):
        return "pytest"
    if _TESTCASE.search(text):
        return "unittest"
    return None


def choose_framework(kinds: list[str | None]) -> str:
    """Django if any file uses it; unittest if every classified file is unittest; else pytest."""
    seen = [kind for kind in kinds if kind is not None]
    if "django" in seen:
        return "django"
    if seen and all(kind == "unittest" for kind in seen):
        return "unittest"
    return "pytest"


def detect_framework(project: Path, exclude: Path | None = None) -> str:
    """The framework of the project's existing tests (``exclude``: our own output file)."""
    kinds = []
    for path in test_files(project):
        if exclude is not None and path.resolve() == exclude.resolve():
            continue
        try:
            kinds.append(classify_test_source(path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return choose_framework(kinds)


def import_name(project: Path, module: Path) -> str:
    """The dotted name that imports ``module`` with the project (and its ``src``) on the path."""
    rel = module.resolve().relative_to(project.resolve())
    parts = list(rel.with_suffix("").parts)
    if parts[0] == "src" and (project / "src").is_dir() and len(parts) > 1:
        parts = parts[1:]
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def default_test_path(project: Path, module: Path) -> str:
    """Where generated tests go: ``tests/test_<name>_tddforge.py`` (or at the root without tests/)."""
    name = module.stem if module.stem != "__init__" else module.parent.name
    base = f"test_{name}_tddforge.py"
    for folder in ("tests", "test"):
        if (project / folder).is_dir():
            return f"{folder}/{base}"
    return base


RUFF_DEFAULT_LINE_LENGTH = 88
# ruff's configuration files, in the order it prefers them within one directory
_RUFF_CONFIGS = (".ruff.toml", "ruff.toml", "pyproject.toml")


def ruff_line_length(project: Path) -> int:
    """The line length ``ruff format`` uses in ``project``, found as ruff finds it.

    The nearest directory, from the project up, with a ruff configuration
    decides: ``.ruff.toml``, then ``ruff.toml``, then a ``pyproject.toml`` that
    has a ``[tool.ruff]`` table. Its ``line-length``, else ruff's default (88);
    the default too when that file cannot be read.
    """
    for folder in [project.resolve(), *project.resolve().parents]:
        for name in _RUFF_CONFIGS:
            settings = _ruff_settings(folder / name)
            if settings is not None:
                length = settings.get("line-length", RUFF_DEFAULT_LINE_LENGTH)
                return length if isinstance(length, int) else RUFF_DEFAULT_LINE_LENGTH
    return RUFF_DEFAULT_LINE_LENGTH


def _ruff_settings(path: Path) -> dict[str, object] | None:
    """ruff's settings in ``path``; None when the file is not a ruff configuration."""
    if not path.is_file():
        return None
    try:
        data: dict[str, object] = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}  # ruff stops at a broken configuration too (and fails)
    if path.name != "pyproject.toml":
        return data
    tool = data.get("tool")
    ruff: object = tool.get("ruff") if isinstance(tool, dict) else None
    return ruff if isinstance(ruff, dict) else None
