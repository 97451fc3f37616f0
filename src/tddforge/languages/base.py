"""The ``LanguageRunner`` contract: everything language-specific a TDD session needs.

Agents and the supervisor only ever talk to a runner through this interface, so a
new language is one new runner (plus its prompt wording), never a change to the
session. Results are plain data: a ``TestReport`` of per-test facts and one
``GateResult`` per quality gate.
"""

from __future__ import annotations

import fnmatch
import os
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tddforge.decisions.red_validation import TestFact
from tddforge.target.signatures import ModuleInfo

#: Directories never read as part of a codebase (tool state, VCS, caches, venvs).
SKIPPED_DIRS = frozenset({".git", ".tddforge", ".venv", "venv", "node_modules", "__pycache__"})
MAX_CODEBASE_FILE = 64_000  # bytes; bigger files are not sent to the model


@dataclass(frozen=True)
class TestReport:
    """One run of a project's tests: a fact per test, plus the raw output for people."""

    __test__ = False

    facts: tuple[TestFact, ...]
    output: str = ""
    duration: float = 0.0
    timed_out: bool = False

    @property
    def ids(self) -> frozenset[str]:
        """Every test id that ran or was found in a file that could not load."""
        return frozenset(f.name for f in self.facts)

    @property
    def failing(self) -> tuple[TestFact, ...]:
        """Tests that failed or errored."""
        return tuple(f for f in self.facts if f.status in ("failed", "error"))

    @property
    def all_passed(self) -> bool:
        """True when tests ran and none failed, errored or timed out."""
        return bool(self.facts) and not self.failing and not self.timed_out

    def summary(self) -> dict[str, int]:
        """Counts by status."""
        statuses = ("passed", "failed", "error", "skipped")
        return {s: sum(1 for f in self.facts if f.status == s) for s in statuses}


@dataclass(frozen=True)
class GateResult:
    """One quality gate: ``passed``, ``failed`` or ``skipped`` (tool missing), with its output."""

    name: str
    status: str
    output: str = ""
    changed: tuple[str, ...] = field(default=())  # files an auto-fixing gate rewrote

    @property
    def ok(self) -> bool:
        """True unless the gate failed (a skipped gate does not block)."""
        return self.status != "failed"


class LanguageRunner(ABC):
    """What a TDD session needs to know and do for one language."""

    language_name: str
    test_framework: str
    file_extensions: tuple[str, ...]
    #: fnmatch patterns (``*`` crosses ``/``) of paths that are tests or test support.
    test_file_patterns: tuple[str, ...]
    #: fnmatch patterns of implementation files.
    source_file_patterns: tuple[str, ...]
    #: Files that change how tests are found or run; protected like tests.
    config_file_patterns: tuple[str, ...] = ()

    @abstractmethod
    def initialize_project(self, work_dir: Path) -> list[str]:
        """Write the files a new project needs; return their relative paths."""

    @abstractmethod
    def run_tests(self, work_dir: Path) -> TestReport:
        """Run every test of the project, confined, and report each test."""

    @abstractmethod
    def format_code(self, work_dir: Path, paths: Sequence[str]) -> GateResult:
        """Format ``paths`` in place (auto-fix); ``changed`` lists the files rewritten."""

    @abstractmethod
    def lint_code(self, work_dir: Path, paths: Sequence[str]) -> GateResult:
        """Lint ``paths``, applying the linter's safe fixes in place first (``changed`` lists
        the files rewritten); failed only for the problems no fix removed."""

    @abstractmethod
    def build(self, work_dir: Path, paths: Sequence[str]) -> GateResult:
        """Compile or type-check ``paths``; failed when they do not build."""

    @abstractmethod
    def count_assertions(self, sources: Mapping[str, str]) -> int:
        """The number of assertions in the given test sources (path → text)."""

    @abstractmethod
    def missing_kata_names(
        self, facts: Sequence[TestFact], sources: Mapping[str, str]
    ) -> frozenset[str]:
        """Names that failing tests miss and that belong to the project's own code.

        A test that fails because such a name does not exist yet is red for the
        right reason; a test missing anything else (a library, a fixture, its own
        import) is broken.
        """

    @abstractmethod
    def test_function(self, test_id: str) -> str:
        """The test function a test id belongs to (parametrised cases collapse into one)."""

    def prompt_facts(self) -> dict[str, str]:
        """Language wording for the prompts (name, framework, conventions)."""
        return {"language": self.language_name, "test_framework": self.test_framework}

    def read_signatures(
        self, work_dir: Path, request: Mapping[str, Sequence[str]]
    ) -> dict[str, ModuleInfo] | None:
        """The public signatures of the names asked for, per module (``request``: module →
        names), read under the project's own interpreter; None when the language cannot."""
        return None

    def format_rules(self, work_dir: Path) -> str:
        """The formatting rules the gates hold code in ``work_dir`` to, as one sentence for
        every prompt ("" when the language has none)."""
        return ""

    def is_test_file(self, path: str) -> bool:
        """True for test files and test support files."""
        return _matches(path, self.test_file_patterns)

    def is_protected(self, path: str) -> bool:
        """True for files the Implementer may not touch: tests and test configuration."""
        return self.is_test_file(path) or _matches(path, self.config_file_patterns)

    def is_source_file(self, path: str) -> bool:
        """True for implementation files (never for tests)."""
        return not self.is_test_file(path) and _matches(path, self.source_file_patterns)

    def project_files(self, work_dir: Path) -> list[str]:
        """Relative paths of the project's test, source and config files, sorted."""
        found = []
        for rel in walk_files(work_dir):
            if self.is_protected(rel) or self.is_source_file(rel):
                found.append(rel)
        return sorted(found)

    def read_files(self, work_dir: Path, paths: Iterable[str]) -> dict[str, str]:
        """The text of ``paths`` that exist and are small enough to show a model."""
        out: dict[str, str] = {}
        for rel in paths:
            target = work_dir / rel
            if target.is_file() and target.stat().st_size <= MAX_CODEBASE_FILE:
                out[rel] = target.read_text(encoding="utf-8", errors="replace")
        return out

    def test_sources(self, work_dir: Path) -> dict[str, str]:
        """Every test file's text."""
        return self.read_files(
            work_dir, [p for p in self.project_files(work_dir) if self.is_test_file(p)]
        )


def walk_files(work_dir: Path) -> Iterable[str]:
    """Relative POSIX paths of the files under ``work_dir``, tool and cache dirs skipped."""
    for root, dirs, files in os.walk(work_dir):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        base = Path(root).relative_to(work_dir)
        for name in sorted(files):
            if not (Path(root) / name).is_symlink():
                yield PurePosixPath(base / name).as_posix()


def _matches(path: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in patterns)
