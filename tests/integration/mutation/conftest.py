"""A small sample project for the mutation engine, written into tmp_path."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from tddforge.config import Settings
from tddforge.mutation.engine import MutationJob

MODULE = '''\
"""A tiny module with something for every strategy."""

LIMIT = 3
_REGISTRY = []


def clamp(value, low=0):
    if value < low:
        return low
    if value > LIMIT:
        return LIMIT
    return value


def register(name):
    _REGISTRY.append(name)
    return len(_REGISTRY)


def count_up(n):
    i = 0
    while i < n:
        i += 1
    return i


class Greeter:
    greeting = "hello"

    def greet(self, name):
        return f"{self.greeting}, {name}" if name else self.greeting


def _build(n):
    return [i * 2 for i in range(n)]


TABLE = _build(3)
'''

TESTS = """\
from sample import TABLE, Greeter, clamp, count_up, register


def test_clamp_low():
    assert clamp(-5) == 0


def test_clamp_high():
    assert clamp(10) == 3


def test_register_counts():
    assert register("a") == 1


def test_count_up():
    assert count_up(3) == 3


class TestGreeter:
    def test_greet(self):
        assert Greeter().greet("bob") == "hello, bob"


def test_table():
    assert TABLE == [0, 2, 4]
"""


def write_files(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (project-relative path -> text) under ``root``; ``root``."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def write_project(root: Path, module: str = MODULE, tests: str = TESTS) -> Path:
    (root / "tests").mkdir(parents=True, exist_ok=True)
    (root / "sample.py").write_text(textwrap.dedent(module))
    (root / "tests" / "test_sample.py").write_text(textwrap.dedent(tests))
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "proj")


def job_for(project: Path, **changes: object) -> MutationJob:
    base = {
        "project": project,
        "module": project / "sample.py",
        "tests": ("tests/test_sample.py",),
        "python": Path(sys.executable),
        "workers": 2,
        "timeout": 300.0,
    }
    return MutationJob(**{**base, **changes})  # type: ignore[arg-type]


@pytest.fixture
def settings() -> Settings:
    return Settings()
