"""``tddforge build``: RED → GREEN → REFACTOR through the fake server, one commit and artifact each."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tddforge.llm.fakeserver import FakeOpenAIServer

from .conftest import DATA, file_block, run_cli

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

TESTS = """import pytest


def test_tc001_add():
    from calc import Calculator

    assert Calculator().add(2, 3) == 5


def test_tc002_divide_by_zero():
    from calc import Calculator, DivisionByZero

    with pytest.raises(DivisionByZero):
        Calculator().divide(1, 0)


def test_tc003_divide():
    from calc import Calculator

    assert Calculator().divide(6, 3) == 2.0
"""
GREEN = """class DivisionByZero(Exception):
    pass


class Calculator:
    def add(self, a, b):
        return a + b

    def divide(self, a, b):
        if b == 0:
            raise DivisionByZero()
        return a / b
"""
REFACTORED = '''"""Integer arithmetic."""


class DivisionByZero(ZeroDivisionError):
    """Raised when dividing by zero."""


class Calculator:
    """Adds and divides."""

    def add(self, a: int, b: int) -> int:
        return a + b

    def divide(self, a: int, b: int) -> float:
        if b == 0:
            raise DivisionByZero("division by zero")
        return a / b
'''


def _git(project: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=project, capture_output=True, text=True, check=True
    ).stdout


def test_build_goes_red_green_refactor(
    calc_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    server.enqueue(file_block("tests/test_calc.py", TESTS))
    server.enqueue(file_block("calc.py", "class Calculator:\n    pass\n"))  # still red: retried
    server.enqueue(file_block("calc.py", GREEN))
    server.enqueue(
        file_block("calc.py", REFACTORED) + "\n---\nMESSAGE: docstrings and types\n---\n"
    )
    result = run_cli(
        "build",
        str(calc_spec),
        "--project",
        str(project),
        "--model",
        "fake-model",
        "--base-url",
        server.base_url,
        "--json",
    )
    assert result.returncode == 0, result.stderr
    stages = json.loads(result.stdout)
    assert [stages[s]["valid"] for s in ("red", "green", "refactor")] == [True, True, True]
    subjects = _git(project, "log", "--reverse", "--format=%s").splitlines()
    assert subjects == [
        "red(SPEC-CALC-1): failing tests for Calculator",
        "green(SPEC-CALC-1): make the RED tests pass",
        "refactor(SPEC-CALC-1): docstrings and types",
    ]
    shas = _git(project, "log", "--reverse", "--format=%H").split()
    assert [stages[s]["commit"] for s in ("red", "green", "refactor")] == shas
    assert _git(project, "show", "--name-only", "--format=", shas[0]).split() == [
        "tests/test_calc.py"
    ]
    assert _git(project, "show", "--name-only", "--format=", shas[1]).split() == ["calc.py"]
    assert _git(project, "show", "HEAD:tests/test_calc.py") == TESTS  # tests untouched
    assert stages["green"]["attempts"] == 2 and stages["green"]["test_count"] == 3
    assert stages["refactor"]["applied"] is True
    artifacts = project / ".tddforge" / "artifacts" / "SPEC-CALC-1"
    assert sorted(p.name for p in artifacts.iterdir()) == [
        "green.yaml",
        "red.yaml",
        "refactor.yaml",
    ]
    assert yaml.safe_load((artifacts / "green.yaml").read_text())["commit"] == shas[1]
    assert _git(project, "status", "--porcelain") == ""
    assert "still failing" in server.requests[2]["messages"][1]["content"]


def test_build_stops_after_an_invalid_red(
    calc_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    server.enqueue(file_block("tests/test_calc.py", "def test_tc001(:\n    pass\n"))
    result = run_cli(
        "build",
        str(calc_spec),
        "--project",
        str(project),
        "--model",
        "fake-model",
        "--base-url",
        server.base_url,
    )
    assert result.returncode == 1, result.stderr
    assert len(server.requests) == 1
    assert _git(project, "log", "--oneline", "--all") == ""  # nothing committed


# A two-component spec with constructor keywords, attributes and errors: what each stage's
# prompt carries, the commits it lists, the run it starts from, and GREEN's signature check.
RATE_TESTS = '''"""Rate limiter tests, written from SPEC-RATE-1 before the code."""

import pytest


class ManualClock:
    """A clock the tests move by hand."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def clock():
    return ManualClock()


@pytest.fixture
def bucket(clock):
    from ratelimit.bucket import TokenBucket

    return TokenBucket(capacity=5, refill_per_second=1.0, clock=clock)


class TestTokenBucket:
    def test_tc001_new_bucket_is_full(self, bucket):
        assert bucket.available() == 5

    def test_tc002_taking_too_much_takes_nothing(self, clock):
        from ratelimit.bucket import TokenBucket

        bucket = TokenBucket(capacity=2, refill_per_second=1.0, clock=clock)
        assert bucket.try_take(3) is False
        assert bucket.available() == 2

    def test_tc003_tokens_come_back_with_time(self, clock):
        from ratelimit.bucket import TokenBucket

        bucket = TokenBucket(capacity=2, refill_per_second=2.0, clock=clock)
        assert bucket.try_take(2) is True
        clock.now += 1.0
        assert bucket.available() == 2

    def test_tc004_bad_capacity_is_refused(self, clock):
        from ratelimit.bucket import TokenBucket

        with pytest.raises(ValueError):
            TokenBucket(capacity=0, refill_per_second=1.0, clock=clock)


class TestRateLimiter:
    def test_tc005_key_over_its_limit_is_refused(self, clock):
        from ratelimit.limiter import RateLimiter, RateLimitExceeded

        limiter = RateLimiter(capacity=1, refill_per_second=1.0, clock=clock)
        limiter.acquire("a")
        with pytest.raises(RateLimitExceeded) as raised:
            limiter.acquire("a")
        assert raised.value.retry_after == 1.0

    def test_tc006_keys_are_limited_separately(self, clock):
        from ratelimit.limiter import RateLimiter

        limiter = RateLimiter(capacity=1, refill_per_second=1.0, clock=clock)
        limiter.acquire("a")
        limiter.acquire("b")
'''
# GREEN as the live run wrote it: an alias keyword beside the spec's, and one public extra
BUCKET = '''"""A token bucket refilled continuously from an injected clock."""


class TokenBucket:
    def __init__(self, capacity, refill_per_second=None, clock=None, refill_rate=None):
        if refill_per_second is None:
            refill_per_second = refill_rate
        if capacity < 1 or refill_per_second is None or refill_per_second <= 0:
            raise ValueError("capacity must be >= 1 and refill_per_second > 0")
        self.capacity = capacity
        self._rate = refill_per_second
        self._clock = clock
        self._tokens = float(capacity)
        self._last = clock()

    def _refill(self):
        now = self._clock()
        self._tokens = min(self.capacity, self._tokens + (now - self._last) * self._rate)
        self._last = now

    def available(self):
        self._refill()
        return self._tokens

    def try_take(self, tokens=1):
        self._refill()
        if tokens > self._tokens:
            return False
        self._tokens -= tokens
        return True

    def wait_time(self, tokens=1):
        self._refill()
        return max(0.0, (tokens - self._tokens) / self._rate)
'''
LIMITER = '''"""One token bucket per key."""

from ratelimit.bucket import TokenBucket


class RateLimitExceeded(Exception):
    def __init__(self, retry_after):
        super().__init__(f"retry after {retry_after} s")
        self.retry_after = retry_after


class RateLimiter:
    def __init__(self, capacity, refill_per_second, clock):
        self._settings = (capacity, refill_per_second, clock)
        self._buckets = {}

    def acquire(self, key, tokens=1):
        if key not in self._buckets:
            self._buckets[key] = TokenBucket(*self._settings)
        bucket = self._buckets[key]
        if not bucket.try_take(tokens):
            raise RateLimitExceeded(bucket.wait_time(tokens))
'''


@pytest.fixture(scope="module")
def rate_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict], dict]:
    """One build of the rate limiter: the project, the requests the model got, the stages."""
    root = tmp_path_factory.mktemp("rate")
    spec = root / "ratelimit.yaml"
    shutil.copyfile(DATA / "specs" / "ratelimit.yaml", spec)
    project = root / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    _git(project, "init", "-q")
    _git(project, "add", "pyproject.toml")
    _git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "project")
    with FakeOpenAIServer() as server:
        server.enqueue(file_block("tests/test_ratelimit.py", RATE_TESTS))
        server.enqueue(
            file_block("ratelimit/bucket.py", BUCKET) + file_block("ratelimit/limiter.py", LIMITER)
        )
        server.enqueue("NO_CHANGES")
        result = run_cli(
            "build",
            str(spec),
            "--project",
            str(project),
            "--model",
            "fake-model",
            "--base-url",
            server.base_url,
            "--json",
        )
        assert result.returncode == 0, result.stderr
        return project, list(server.requests), json.loads(result.stdout)


def _prompt(request: dict, role: str) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == role)


def _section(text: str, heading: str) -> str:
    """The text under ``# heading`` up to the next ``# `` heading."""
    return text.split(f"# {heading}\n", 1)[1].split("\n# ", 1)[0].strip()


def test_build_red_prompt_carries_the_whole_interface(rate_build) -> None:
    _, requests, stages = rate_build
    user = _prompt(requests[0], "user")
    assert "TokenBucket(capacity: int, refill_per_second: float, clock:" in user
    assert "Errors:\n  - ValueError: raised by the constructor" in user
    assert "Errors:\n  - RateLimitExceeded: raised by acquire" in user
    assert stages["red"]["spec_mismatches"] == []
    assert len(requests) == 3  # no repair was needed


def test_build_green_and_refactor_list_the_commits_before_them(rate_build) -> None:
    project, requests, _ = rate_build
    shas = _git(project, "log", "--format=%h %s", "--abbrev=8").splitlines()
    refactor, green, red, first = shas
    assert _section(_prompt(requests[1], "user"), "Recent Commits") == f"- {red}\n- {first}"
    assert (
        _section(_prompt(requests[2], "user"), "Recent Commits") == f"- {green}\n- {red}\n- {first}"
    )
    assert refactor.split(" ", 1)[1] == "refactor(SPEC-RATE-1): no changes needed"


def test_build_refactor_starts_from_greens_passing_run(rate_build) -> None:
    _, requests, _ = rate_build
    red_run = _section(_prompt(requests[1], "user"), "Last Test Output")
    green_run = _section(_prompt(requests[2], "user"), "Last Test Output")
    assert "ModuleNotFoundError" in red_run and "5 failed, 1 error" in red_run
    assert "6 passed" in green_run and "failed" not in green_run


def test_build_stages_describe_the_tests_and_format_rules_alike(rate_build) -> None:
    _, requests, _ = rate_build
    systems = [_prompt(r, "system") for r in requests]
    sentence = (
        "Format code as `ruff format` does here (line length 100)"  # the project's pyproject
        " and keep it free of `ruff check` findings."
    )
    assert [s.count(sentence) for s in systems] == [1, 1, 1]
    assert [s.count("ruff format") for s in systems] == [1, 1, 1]  # and no other rule
    for system in systems[1:]:
        assert "plain pytest functions" not in system
        assert "The tests are the RED stage's pytest tests under tests/" in system
    assert "Group related tests in classes" in systems[0]  # what RED asks for


def test_build_green_reports_how_its_signatures_differ_from_the_spec(rate_build) -> None:
    project, _, stages = rate_build
    green = stages["green"]
    assert green["valid"] is True  # reported, not failed
    assert [(m["name"], m["kind"]) for m in green["signature_mismatches"]] == [
        ("TokenBucket", "parameters"),
        ("TokenBucket.wait_time", "extra"),
    ]
    assert (
        "parameter 'refill_rate' is not in the spec" in green["signature_mismatches"][0]["message"]
    )
    saved = yaml.safe_load((project / ".tddforge/artifacts/SPEC-RATE-1/green.yaml").read_text())
    assert saved["signature_mismatches"] == green["signature_mismatches"]
