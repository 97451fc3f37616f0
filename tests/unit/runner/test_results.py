"""outcomes_from_jsonl: the plugin's JSON lines folded into one outcome per test."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tddforge.runner.results import (
    CollectionError,
    TestOutcome,
    TestRun,
    collected_from_jsonl,
    outcomes_from_jsonl,
    parse_records,
)

NODE = "tests/test_x.py::test_a"


def start(nodeid: str = NODE) -> str:
    return json.dumps({"event": "start", "nodeid": nodeid})


def phase(when: str, outcome: str, nodeid: str = NODE, **extra: Any) -> str:
    record = {"event": "test", "nodeid": nodeid, "when": when, "outcome": outcome}
    return json.dumps({**record, "duration": 0.25, **extra})


def passing(nodeid: str = NODE) -> list[str]:
    return [start(nodeid), *(phase(w, "passed", nodeid) for w in ("setup", "call", "teardown"))]


def fold(lines: list[str]) -> TestOutcome:
    outcomes, _, _ = outcomes_from_jsonl(lines)
    assert len(outcomes) == 1
    return outcomes[0]


ASSERT = {"exc_type": "AssertionError", "message": "assert 1 == 2"}

# (id, lines, expected (outcome, phase, failure_kind))
CASES = [
    ("passed", passing(), ("passed", "call", None)),
    (
        "failed call",
        [
            start(),
            phase("setup", "passed"),
            phase("call", "failed", **ASSERT),
            phase("teardown", "passed"),
        ],
        ("failed", "call", "AssertionError"),
    ),
    (
        "failed setup is an error",
        [start(), phase("setup", "failed", exc_type="RuntimeError"), phase("teardown", "passed")],
        ("error", "setup", "RuntimeError"),
    ),
    (
        "missing fixture",
        [
            start(),
            phase("setup", "failed", exc_type="FixtureLookupError", missing_name="db"),
            phase("teardown", "passed"),
        ],
        ("error", "setup", "FixtureLookupError"),
    ),
    (
        "failed teardown after a pass is an error",
        [
            start(),
            phase("setup", "passed"),
            phase("call", "passed"),
            phase("teardown", "failed", exc_type="OSError"),
        ],
        ("error", "teardown", "OSError"),
    ),
    (
        "failed teardown after a failure keeps the failure",
        [
            start(),
            phase("setup", "passed"),
            phase("call", "failed", **ASSERT),
            phase("teardown", "failed", exc_type="OSError"),
        ],
        ("failed", "call", "AssertionError"),
    ),
    (
        "skipped in setup",
        [start(), phase("setup", "skipped", message="no db"), phase("teardown", "passed")],
        ("skipped", "setup", None),
    ),
    (
        "skipped in call",
        [start(), phase("setup", "passed"), phase("call", "skipped"), phase("teardown", "passed")],
        ("skipped", "call", None),
    ),
    (
        "xfail",
        [
            start(),
            phase("setup", "passed"),
            phase("call", "skipped", wasxfail="bug 1"),
            phase("teardown", "passed"),
        ],
        ("skipped", "call", "xfail"),
    ),
    (
        "xpass",
        [
            start(),
            phase("setup", "passed"),
            phase("call", "passed", wasxfail="bug 1"),
            phase("teardown", "passed"),
        ],
        ("passed", "call", "xpass"),
    ),
    (
        "strict xpass fails",
        [
            start(),
            phase("setup", "passed"),
            phase("call", "failed", wasxfail="", exc_type=None, message="[XPASS(strict)]"),
            phase("teardown", "passed"),
        ],
        ("failed", "call", None),
    ),
    ("killed during call", [start(), phase("setup", "passed")], ("error", "call", "Timeout")),
    ("killed during setup", [start()], ("error", "setup", "Timeout")),
    (
        "killed during teardown",
        [start(), phase("setup", "passed"), phase("call", "passed")],
        ("error", "teardown", "Timeout"),
    ),
    (
        "killed after a failure keeps the failure",
        [start(), phase("setup", "passed"), phase("call", "failed", **ASSERT)],
        ("failed", "call", "AssertionError"),
    ),
]


@pytest.mark.parametrize(("lines", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_phases_fold_to_one_outcome(
    lines: list[str], expected: tuple[str, str, str | None]
) -> None:
    got = fold(lines)
    assert (got.outcome, got.phase, got.failure_kind) == expected
    assert got.nodeid == NODE


def test_duration_sums_the_phases() -> None:
    assert fold(passing()).duration == pytest.approx(0.75)


def test_failure_facts_are_kept() -> None:
    lines = [
        start(),
        phase("setup", "passed"),
        phase(
            "call",
            "failed",
            exc_type="NameError",
            missing_name="fizz",
            message="name 'fizz' is not defined",
            exc_module="builtins",
            location="tests/test_x.py:3",
        ),
        phase("teardown", "passed"),
    ]
    got = fold(lines)
    assert got.missing_name == "fizz"
    assert got.message == "name 'fizz' is not defined"
    assert (got.exc_module, got.location) == ("builtins", "tests/test_x.py:3")


def test_unfinished_kind_is_the_callers() -> None:
    outcomes, _, _ = outcomes_from_jsonl([start()], unfinished_kind="Crashed")
    assert outcomes[0].failure_kind == "Crashed"


def test_truncated_last_line_is_ignored() -> None:
    lines = [*passing(), *passing("t.py::b")[:3], phase("teardown", "passed", "t.py::b")[:25]]
    outcomes, _, exit_status = outcomes_from_jsonl(lines)
    assert [(o.nodeid, o.outcome) for o in outcomes] == [(NODE, "passed"), ("t.py::b", "error")]
    assert outcomes[1].failure_kind == "Timeout"
    assert exit_status is None


def test_killed_mid_run_keeps_earlier_results() -> None:
    lines = [
        *passing("t.py::a"),
        *passing("t.py::b"),
        start("t.py::c"),
        phase("setup", "passed", "t.py::c"),
    ]
    outcomes, _, _ = outcomes_from_jsonl(lines)
    assert [o.outcome for o in outcomes] == ["passed", "passed", "error"]
    assert outcomes[2].phase == "call"


def test_collection_errors_and_session_status() -> None:
    lines = [
        json.dumps({"event": "collect", "nodeid": "tests", "outcome": "passed"}),
        json.dumps(
            {
                "event": "collect",
                "nodeid": "tests/test_m.py",
                "outcome": "failed",
                "exc_type": "ModuleNotFoundError",
                "missing_name": "calc",
                "message": "No module named 'calc'",
            }
        ),
        *passing(),
        json.dumps({"event": "session", "exitstatus": 1}),
    ]
    outcomes, errors, exit_status = outcomes_from_jsonl(lines)
    assert errors == (
        CollectionError("tests/test_m.py", "ModuleNotFoundError", "calc", "No module named 'calc'"),
    )
    assert [o.outcome for o in outcomes] == ["passed"]
    assert exit_status == 1


def test_module_level_skip_is_a_skipped_outcome() -> None:
    line = json.dumps({"event": "collect", "nodeid": "t.py", "outcome": "skipped", "message": "x"})
    outcomes, errors, _ = outcomes_from_jsonl([line])
    assert [(o.nodeid, o.outcome, o.phase) for o in outcomes] == [("t.py", "skipped", "collect")]
    assert errors == ()


@pytest.mark.parametrize("junk", ["", "not json", "[1, 2]", '{"no_event": 1}', '{"event": "te'])
def test_junk_lines_are_skipped(junk: str) -> None:
    assert parse_records([junk]) == []


def test_no_lines_no_outcomes() -> None:
    assert outcomes_from_jsonl([]) == ((), (), None)


def test_test_run_counts() -> None:
    outcomes = tuple(
        TestOutcome(f"t::{i}", outcome, 0.0, "call")
        for i, outcome in enumerate(["passed", "passed", "failed", "error", "skipped"])
    )
    run = TestRun(outcomes, (), 1, False, 1.0, "")
    assert (run.passed, run.failed, run.errors, run.skipped, run.total) == (2, 1, 1, 1, 5)
    assert run.by_nodeid()["t::2"].outcome == "failed"
    assert not run.all_passed
    green = TestRun(outcomes[:2], (), 0, False, 1.0, "")
    assert green.all_passed
    assert not TestRun((), (), 5, False, 1.0, "").all_passed


def test_the_collected_tests_are_the_last_collected_line() -> None:
    lines = [
        json.dumps({"event": "collected", "nodeids": ["t.py::a"]}),
        json.dumps({"event": "collected", "nodeids": ["t.py::a", "t.py::b"]}),
        *passing("t.py::a"),
    ]
    assert collected_from_jsonl(lines) == ("t.py::a", "t.py::b")
    assert collected_from_jsonl(passing()) == ()
