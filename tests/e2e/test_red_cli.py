"""``tddforge red`` end to end: the real CLI, the real openai SDK over loopback, real pytest in the sandbox."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from tddforge.llm.fakeserver import FakeOpenAIServer

from .conftest import error_lines, file_block, run_cli

pytestmark = [pytest.mark.e2e, pytest.mark.integration]

CALC_TESTS = '''"""Calculator tests, written before the code."""

import pytest


class TestCalculator:
    # TC001
    def test_add_returns_sum(self):
        from calc import Calculator

        assert Calculator().add(2, 3) == 5

    def test_tc002_divide_by_zero_raises(self):
        from calc import Calculator, DivisionByZero

        with pytest.raises(DivisionByZero):
            Calculator().divide(1, 0)

    def test_tc003_divide_evenly(self):
        """TC003: 6 / 3 is 2.0."""
        from calc import Calculator

        assert Calculator().divide(6, 3) == 2.0

    def test_negative_numbers_add(self):
        from calc import Calculator

        assert Calculator().add(-2, -3) == -5
'''


def _red(
    spec: Path,
    project: Path,
    server: FakeOpenAIServer,
    *extra: str,
    env: dict[str, str] | None = None,
):
    return run_cli(
        "red",
        str(spec),
        "--project",
        str(project),
        "--model",
        "fake-model",
        "--base-url",
        server.base_url,
        *extra,
        env=env,
    )


def _artifact(project: Path) -> dict:
    return yaml.safe_load((project / ".tddforge/artifacts/SPEC-CALC-1/red.yaml").read_text())


def _junit_statuses(project: Path, test_file: str) -> dict[str, str]:
    """What pytest itself says, through its JUnit XML (structured, not its human output)."""
    report = project / "junit.xml"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            f"--junitxml={report}",
            test_file,
        ],
        cwd=project,
        capture_output=True,
        check=False,
    )
    statuses = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{test_file}::{case.get('classname').rsplit('.', 1)[-1]}::{case.get('name')}"
        kinds = {child.tag for child in case}
        statuses[name] = (
            "failed" if "failure" in kinds else "error" if "error" in kinds else "passed"
        )
    return statuses


def test_valid_red_counts_match_what_pytest_really_did(
    calc_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    (project / "calc.py").write_text(
        "class Calculator:\n    def add(self, a, b):\n        return 0\n"
    )
    server.enqueue(
        "Here you go.\n\n" + file_block("tests/test_calc.py", CALC_TESTS), usage=(1000, 400)
    )
    result = _red(calc_spec, project, server, "--json")
    assert result.returncode == 0, result.stderr
    artifact = json.loads(result.stdout)
    truth = _junit_statuses(project, "tests/test_calc.py")
    details = {d["name"]: d["status"] for d in artifact["test_results"]["test_details"]}
    assert details == truth
    results = artifact["test_results"]
    assert results["total"] == len(truth) == 4
    assert results["failed"] == sum(s == "failed" for s in truth.values()) == 4
    assert results["passed"] == 0
    assert artifact["valid"] is True
    assert sorted(artifact["failing_tests"]) == sorted(truth)
    reasons = {d["name"].rsplit("::", 1)[-1]: d["red_reason"] for d in results["test_details"]}
    assert (
        "DivisionByZero" in reasons["test_tc002_divide_by_zero_raises"]
    )  # ImportError of a spec name
    assert "AssertionError" in reasons["test_add_returns_sum"]
    assert "divide" in reasons["test_tc003_divide_evenly"]  # AttributeError of a spec method
    trace = artifact["traceability"]
    assert trace["cases"]["TC001"] == ["tests/test_calc.py::TestCalculator::test_add_returns_sum"]
    assert trace["uncovered"] == []
    assert trace["untraced_tests"] == [
        "tests/test_calc.py::TestCalculator::test_negative_numbers_add"
    ]
    for key in (
        "spec_id",
        "request_id",
        "test_files",
        "unexpected_passes",
        "warnings",
        "components",
        "acceptance_criteria",
        "invalid_red",
    ):
        assert key in artifact
    assert artifact["test_files"][0]["content"] == CALC_TESTS
    assert artifact["llm"]["prompt_tokens"] == 1000 and artifact["llm"]["calls"] == 1
    assert _artifact(project)["request_id"] == artifact["request_id"]
    assert (project / ".tddforge/artifacts/SPEC-CALC-1/red.json").is_file()
    assert len(server.requests) == 1
    assert server.requests[0]["temperature"] == 0.2 and server.requests[0]["top_p"] == 0.95


def test_module_level_import_of_missing_module_is_a_valid_red(
    calc_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    body = "from calc import Calculator\n\n\ndef test_tc001_add():\n    assert Calculator().add(2, 3) == 5\n\n\ndef test_tc003_divide():\n    assert Calculator().divide(6, 3) == 2.0\n"
    server.enqueue(file_block("tests/test_calc.py", body))
    result = _red(calc_spec, project, server)
    assert result.returncode == 0, result.stderr
    artifact = _artifact(project)
    assert artifact["test_results"]["total"] == 2
    assert sorted(artifact["failing_tests"]) == [
        "tests/test_calc.py::test_tc001_add",
        "tests/test_calc.py::test_tc003_divide",
    ]
    assert artifact["traceability"]["uncovered"] == ["TC002"]


def test_escaping_paths_are_refused_and_never_written(
    calc_spec: Path, project: Path, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "tests").mkdir()
    (project / "tests" / "linked").symlink_to(outside, target_is_directory=True)
    absolute = tmp_path / "abs.py"
    reply = "".join(
        [
            file_block("../escape.py", "ESCAPED = True\n"),
            file_block(str(absolute), "ESCAPED = True\n"),
            file_block("tests/linked/test_evil.py", "ESCAPED = True\n"),
            file_block(".git/hooks/pre-commit", "echo pwned\n"),
            file_block("calc.py", "class Calculator: ...\n"),
            file_block("tests/test_calc.py", CALC_TESTS),
        ]
    )
    server.enqueue(reply)
    result = _red(calc_spec, project, server)
    assert result.returncode == 0, result.stderr
    refused = {r["path"]: r["reason"] for r in _artifact(project)["refused_files"]}
    assert set(refused) == {
        "../escape.py",
        str(absolute),
        "tests/linked/test_evil.py",
        ".git/hooks/pre-commit",
        "calc.py",
    }
    assert "tests only" in refused["calc.py"]
    assert not (tmp_path / "escape.py").exists() and not absolute.exists()
    assert list(outside.iterdir()) == [] and not (project / ".git").exists()
    assert not (project / "calc.py").exists()
    assert "refused" in result.stderr


def test_reply_without_file_blocks_is_an_invalid_red(
    calc_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    server.enqueue("I would write tests, but here is prose instead.")
    server.enqueue("Still no files, sorry.")
    result = _red(calc_spec, project, server)
    assert result.returncode == 1
    artifact = _artifact(project)
    assert artifact["valid"] is False
    assert artifact["test_files"] == [] and artifact["test_results"]["total"] == 0
    assert artifact["warnings"][0] == "No test files generated"
    assert len(server.requests) == 2  # asked once more for file blocks


def test_a_429_then_success(calc_spec: Path, project: Path, server: FakeOpenAIServer) -> None:
    server.fail(429, retry_after=0.2)
    server.enqueue(file_block("tests/test_calc.py", CALC_TESTS))
    result = _red(calc_spec, project, server)
    assert result.returncode == 0, result.stderr
    assert len(server.requests) == 2


def test_endpoint_timeout_is_one_line_and_writes_nothing(
    calc_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    server.delay(5.0)
    env = {"TDDFORGE_REQUEST_TIMEOUT": "0.5", "TDDFORGE_MAX_RETRIES": "0"}
    result = _red(calc_spec, project, server, env=env)
    assert result.returncode == 2
    (line,) = error_lines(result.stderr)
    assert line.startswith("error: ") and "did not answer" in line
    assert list(project.iterdir()) == []


def test_unreachable_endpoint_is_one_line_and_writes_nothing(
    calc_spec: Path, project: Path
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = run_cli(
        "red",
        str(calc_spec),
        "--project",
        str(project),
        "--model",
        "m",
        "--base-url",
        f"http://127.0.0.1:{port}/v1",
        env={"TDDFORGE_MAX_RETRIES": "0"},
    )
    assert result.returncode == 2
    (line,) = error_lines(result.stderr)
    assert line.startswith("error: ") and f"127.0.0.1:{port}" in line
    assert list(project.iterdir()) == []


@pytest.mark.parametrize(
    ("spec_text", "message"),
    [
        ("spec_id: S\ncomponents: [{name: a}]\n", "test_cases"),
        ("spec_id: [oops\n", "invalid YAML"),
    ],
)
def test_malformed_spec_is_one_line_and_writes_nothing(
    tmp_path: Path, project: Path, spec_text: str, message: str
) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(spec_text)
    result = run_cli("red", str(spec), "--project", str(project), "--model", "m")
    assert result.returncode == 2
    (line,) = error_lines(result.stderr)
    assert line.startswith("error: ") and message in line
    assert list(project.iterdir()) == []


def test_missing_spec_and_missing_model(tmp_path: Path, project: Path, calc_spec: Path) -> None:
    missing = run_cli("red", str(tmp_path / "nope.yaml"), "--project", str(project), "--model", "m")
    assert missing.returncode == 2 and "not found" in missing.stderr
    no_model = run_cli("red", str(calc_spec), "--project", str(project))
    assert no_model.returncode == 2 and "model" in no_model.stderr
    assert len(error_lines(no_model.stderr)) == 1
    assert list(project.iterdir()) == []


def test_a_test_that_loops_forever_is_killed_and_the_stage_reports(
    calc_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    body = CALC_TESTS + "\n\ndef test_tc001_spins_forever():\n    while True:\n        pass\n"
    server.enqueue(file_block("tests/test_calc.py", body))
    result = _red(calc_spec, project, server, "--timeout", "6")
    assert result.returncode == 1, result.stderr
    artifact = _artifact(project)
    assert artifact["test_results"]["timed_out"] is True
    broken = {i["name"]: i for i in artifact["invalid_red"]}
    assert broken["tests/test_calc.py::test_tc001_spins_forever"]["failure_kind"] == "Timeout"
    assert len(artifact["failing_tests"]) == 4  # the tests before the loop kept their results


@pytest.mark.needs_sandbox("no_network")
def test_sandboxed_test_cannot_reach_a_host_loopback_listener(
    calc_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        body = (
            "import socket\nfrom pathlib import Path\n\n\n"
            "def test_tc001_phones_home():\n"
            "    try:\n"
            f"        socket.create_connection(('127.0.0.1', {port}), timeout=2).close()\n"
            "        outcome = 'connected'\n"
            "    except OSError as exc:\n"
            "        outcome = type(exc).__name__\n"
            "    Path('net.txt').write_text(outcome)\n"
            "    from calc import Calculator\n"
        )
        server.enqueue(file_block("tests/test_net.py", body))
        result = _red(calc_spec, project, server)
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody ever connected
    assert result.returncode == 0, result.stderr
    assert (project / "net.txt").read_text() in {"ConnectionRefusedError", "OSError"}


def test_sandboxed_test_does_not_see_the_api_key(
    calc_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    body = (
        "import os\nfrom pathlib import Path\n\n\n"
        "def test_tc001_reads_the_key():\n"
        "    Path('key.txt').write_text(repr(os.environ.get('OPENAI_API_KEY')))\n"
        "    from calc import Calculator\n"
    )
    server.enqueue(file_block("tests/test_key.py", body))
    result = _red(calc_spec, project, server, env={"OPENAI_API_KEY": "sk-must-not-leak"})
    assert result.returncode == 0, result.stderr
    assert (project / "key.txt").read_text() == "None"
    assert (
        server.authorizations[-1] == "Bearer sk-must-not-leak"
    )  # the key reached the endpoint only


def test_syntax_error_test_is_not_accepted_as_red(
    calc_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    broken = "def test_tc001_add(:\n    assert False\n"
    server.enqueue(
        file_block("tests/test_calc.py", CALC_TESTS) + file_block("tests/test_broken.py", broken)
    )
    result = _red(calc_spec, project, server)
    assert result.returncode == 1
    artifact = _artifact(project)
    (entry,) = artifact["invalid_red"]
    assert entry["name"] == "tests/test_broken.py::test_tc001_add"
    assert entry["failure_kind"] == "SyntaxError"
    assert len(artifact["failing_tests"]) == 4


def test_replaced_test_file_is_kept_in_the_run_dir(
    calc_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    (project / "tests").mkdir()
    (project / "tests" / "test_calc.py").write_text("# my own tests\n")
    server.enqueue(file_block("tests/test_calc.py", CALC_TESTS))
    assert _red(calc_spec, project, server).returncode == 0
    run_dir = Path(_artifact(project)["run_dir"])
    assert (run_dir / "replaced" / "tests" / "test_calc.py").read_text() == "# my own tests\n"


BUCKET_TESTS = """import pytest


@pytest.fixture
def bucket():
    from ratelimit.bucket import TokenBucket

    return TokenBucket(capacity=5, refill_rate=1.0, clock=lambda: 0.0)


class TestTokenBucket:
    def test_tc001_new_bucket_is_full(self, bucket):
        assert bucket.available() == 5

    def test_tc002_taking_too_much_takes_nothing(self, bucket):
        assert bucket.try_take(6) is False
        assert bucket.tokens == 5
"""


def test_tests_that_use_what_the_spec_does_not_declare_are_sent_back_and_reported(
    rate_spec: Path, project: Path, server: FakeOpenAIServer
) -> None:
    server.enqueue(file_block("tests/test_bucket.py", BUCKET_TESTS))
    repaired = BUCKET_TESTS.replace("refill_rate", "refill_per_second")  # .tokens stays
    server.enqueue(file_block("tests/test_bucket.py", repaired))
    result = _red(rate_spec, project, server, "--json")
    artifact = json.loads(result.stdout)
    assert len(server.requests) == 2
    repair = server.requests[1]["messages"][-1]["content"]
    assert "tests/test_bucket.py:8: TokenBucket(refill_rate=...)" in repair
    assert "tests/test_bucket.py:17: TokenBucket.tokens is not in the spec's interface" in repair
    assert (project / "tests/test_bucket.py").read_text() == repaired
    assert [(m["line"], m["kind"], m["name"]) for m in artifact["spec_mismatches"]] == [
        (17, "attribute", "tokens")
    ]
    assert artifact["spec_mismatches"][0]["component"] == "TokenBucket"
    assert any("sent back once for repair" in w for w in artifact["warnings"])
    assert artifact["valid"] is True, artifact["invalid_red"]  # reported, not judged
    saved = yaml.safe_load((project / ".tddforge/artifacts/SPEC-RATE-1/red.yaml").read_text())
    assert saved["spec_mismatches"] == artifact["spec_mismatches"]
