"""read_signatures for real: the target package's ``signatures`` entry under the sandbox."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from tddforge.languages.python import PythonRunner
from tddforge.runner.signatures import read_signatures
from tddforge.sandbox import Limits, Sandbox

pytestmark = pytest.mark.integration

LIMITS = Limits(cpu_seconds=30, memory_mb=1024, file_size_mb=8, max_processes=64, wall_seconds=30)

BUCKET = """
import time


class RateLimitExceeded(Exception):
    def __init__(self, retry_after):
        super().__init__(retry_after)
        self.retry_after = retry_after


class TokenBucket:
    def __init__(self, capacity, refill_per_second=None, clock=time.monotonic, *, refill_rate=None):
        self.capacity = capacity

    def try_take(self, tokens=1):
        return True

    @staticmethod
    def full(capacity):
        return TokenBucket(capacity, 1.0)

    @classmethod
    def of(cls, capacity, /, **options):
        return cls(capacity, **options)

    @property
    def level(self):
        return 0.0

    def _refill(self):
        pass


def parse_rate(text, *args, unit="s"):
    return 1.0


LIMIT = 5
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src" / "ratelimit").mkdir(parents=True)
    (tmp_path / "src" / "ratelimit" / "bucket.py").write_text(textwrap.dedent(BUCKET))
    (tmp_path / "broken.py").write_text("def f(:\n")
    return tmp_path


def _p(name: str, kind: str = "positional_or_keyword", default: bool = False) -> dict[str, object]:
    return {"name": name, "kind": kind, "has_default": default}


def test_signatures_are_read_under_the_projects_interpreter(project: Path) -> None:
    names = ["TokenBucket", "RateLimitExceeded", "parse_rate", "LIMIT", "ValueError", "Nope"]
    found = read_signatures(
        project,
        {"ratelimit.bucket": names, "broken": ["f"], "absent": ["x"]},
        python=Path(sys.executable),
        sandbox=Sandbox(project, LIMITS),
    )
    module = found["ratelimit.bucket"]
    assert module["error"] == ""
    bucket = module["objects"]["TokenBucket"]
    assert bucket["kind"] == "class"
    assert bucket["parameters"] == [
        _p("capacity"),
        _p("refill_per_second", default=True),
        _p("clock", default=True),
        _p("refill_rate", "keyword_only", True),
    ]
    assert bucket["methods"] == {
        "try_take": [_p("tokens", default=True)],
        "full": [_p("capacity")],
        "of": [_p("capacity", "positional_only"), _p("options", "var_keyword")],
    }
    assert bucket["properties"] == ["level"]
    error = module["objects"]["RateLimitExceeded"]
    assert (error["kind"], error["parameters"]) == ("exception", [_p("retry_after")])
    assert module["objects"]["parse_rate"]["parameters"] == [
        _p("text"),
        _p("args", "var_positional"),
        _p("unit", "keyword_only", True),
    ]
    kinds = {name: info["kind"] for name, info in module["objects"].items()}
    assert kinds["LIMIT"] == "other"
    assert kinds["ValueError"] == "builtin"
    assert kinds["Nope"] == "missing"
    assert found["broken"]["error"].startswith("SyntaxError")
    assert found["absent"]["error"].startswith("ModuleNotFoundError")
    assert sorted(p.name for p in project.iterdir()) == ["broken.py", "src"]  # nothing left


def test_a_run_that_dies_reports_every_module_and_raises_nothing(project: Path) -> None:
    (project / "hang.py").write_text("while True:\n    pass\n")
    found = read_signatures(
        project,
        {"hang": ["x"], "ratelimit.bucket": ["TokenBucket"]},
        python=Path(sys.executable),
        sandbox=Sandbox(project, LIMITS),
        timeout=2,
    )
    assert found == {
        "hang": {"error": "reading the signatures took longer than 2 s", "objects": {}},
        "ratelimit.bucket": {"error": "reading the signatures took longer than 2 s", "objects": {}},
    }


def test_the_python_runner_reads_them_through_its_sandbox(project: Path) -> None:
    found = PythonRunner(Path(sys.executable)).read_signatures(
        project, {"ratelimit.bucket": ["LIMIT"]}
    )
    assert found == {
        "ratelimit.bucket": {
            "error": "",
            "objects": {
                "LIMIT": {"kind": "other", "parameters": None, "methods": {}, "properties": []}
            },
        }
    }
