from __future__ import annotations

import pytest

from tddforge.decisions.kata import (
    Action,
    RedJudgement,
    SuiteCounts,
    after_implementer_failure,
    after_overshoot,
    after_refactor_failure,
    behaviour_of,
    exit_code,
    judge_green,
    judge_red,
    judge_red_lint,
    judge_refactor,
    stop_reason,
)
from tddforge.decisions.red_validation import TestFact

OLD = "tests/t.py::test_old"
NEW = "tests/t.py::test_new"
NAMES = frozenset({"fizzbuzz", "buzz"})


def _fn(test_id: str) -> str:
    return test_id.split("[", 1)[0]


def _f(name: str, status: str, kind: str | None = None, message: str | None = None) -> TestFact:
    return TestFact(name, status, kind, None, message)


RED_CASES = [
    ("assertion", {OLD}, [_f(OLD, "passed"), _f(NEW, "failed", "AssertionError")], "red"),
    (
        "missing module of the kata",
        set(),
        [_f(NEW, "error", "ModuleNotFoundError", "No module named 'fizzbuzz'")],
        "red",
    ),
    (
        "missing name of the kata",
        {OLD},
        [
            _f(OLD, "error", "ImportError", "cannot import name 'buzz' from 'fizzbuzz'"),
            _f(NEW, "error", "ImportError", "cannot import name 'buzz' from 'fizzbuzz'"),
        ],
        "red",
    ),
    ("overshoot", {OLD}, [_f(OLD, "passed"), _f(NEW, "passed")], "overshoot"),
    ("syntax error", set(), [_f(NEW, "error", "SyntaxError", "invalid syntax")], "broken"),
    (
        "missing fixture",
        set(),
        [_f(NEW, "error", "FixtureLookupError", "fixture 'db' not found")],
        "broken",
    ),
    (
        "missing library",
        set(),
        [_f(NEW, "error", "ModuleNotFoundError", "No module named 'numpy'")],
        "broken",
    ),
    (
        "name error in the test",
        set(),
        [_f(NEW, "failed", "NameError", "name 'x' is not defined")],
        "broken",
    ),
    ("previous test removed", {OLD}, [_f(NEW, "failed", "AssertionError")], "broken"),
    ("no new test", {OLD}, [_f(OLD, "passed")], "broken"),
    (
        "two new tests",
        set(),
        [
            _f(NEW, "failed", "AssertionError"),
            _f("tests/t.py::test_other", "failed", "AssertionError"),
        ],
        "broken",
    ),
    (
        "parametrised cases are one test",
        set(),
        [_f(NEW + "[1]", "failed", "AssertionError"), _f(NEW + "[2]", "passed")],
        "red",
    ),
    ("new test skipped", set(), [_f(NEW, "skipped")], "broken"),
    (
        "new passes, old fails",
        {OLD},
        [_f(OLD, "failed", "AssertionError"), _f(NEW, "passed")],
        "broken",
    ),
    (
        "type error in the test",
        set(),
        [_f(NEW, "failed", "TypeError", "unsupported operand")],
        "broken",
    ),
]


@pytest.mark.parametrize(
    ("case", "previous", "facts", "verdict"), RED_CASES, ids=[c[0] for c in RED_CASES]
)
def test_judge_red(case: str, previous: set[str], facts: list[TestFact], verdict: str) -> None:
    judged = judge_red(frozenset(previous), facts, NAMES, _fn)
    assert judged.verdict == verdict, judged.reason


SOURCES = frozenset({"fizzbuzz.py"})
RAISED = [
    ("raised in the kata's code", "fizzbuzz.py", "IndexError", "red", "the kata's code raises"),
    ("raised in the test itself", "tests/t.py", "IndexError", "broken", "IndexError"),
    ("raised in a library", "/usr/lib/python3/json/decoder.py", "ValueError", "broken", ""),
    ("raised nowhere known", None, "TypeError", "broken", "TypeError"),
    ("assertion, wherever", "tests/t.py", "AssertionError", "red", "fails on AssertionError"),
]


@pytest.mark.parametrize(
    ("case", "raised_in", "kind", "verdict", "words"), RAISED, ids=[c[0] for c in RAISED]
)
def test_an_exception_from_the_katas_own_code_is_red(
    case: str, raised_in: str | None, kind: str, verdict: str, words: str
) -> None:
    fact = TestFact(NEW, "failed", kind, None, "list index out of range", raised_in)
    judged = judge_red(frozenset(), [fact], NAMES, _fn, kata_sources=SOURCES)
    assert judged.verdict == verdict and words in judged.reason


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("DID NOT RAISE <class 'ValueError'>", "pytest.raises(ValueError) did not raise"),
        ("DID NOT RAISE (<class 'KeyError'>, <class 'a.b.E'>)", "pytest.raises(KeyError, E)"),
        ("some other failure", "fails on Failed"),
    ],
)
def test_a_raises_that_did_not_raise_is_red_and_said_plainly(message: str, reason: str) -> None:
    judged = judge_red(frozenset(), [_f(NEW, "failed", "Failed", message)], NAMES, _fn)
    assert judged.verdict == "red" and judged.reason.startswith(reason)


def test_overshoot_names_the_passing_test() -> None:
    judged = judge_red(frozenset(), [_f(NEW, "passed")], NAMES, _fn)
    assert judged.new_tests == (NEW,) and "passes already" in judged.reason


@pytest.mark.parametrize(
    ("verdict", "lint_ok", "expected"),
    [("red", True, "red"), ("red", False, "broken"), ("overshoot", False, "overshoot")],
)
def test_judge_red_lint(verdict: str, lint_ok: bool, expected: str) -> None:
    judged = judge_red_lint(RedJudgement(verdict, "why", (NEW,)), lint_ok)
    assert (judged.verdict, judged.new_tests) == (expected, (NEW,))
    assert ("linter" in judged.reason) is (expected != verdict)


GREEN_CASES = [
    ((["tests/t.py"], True, [], [], []), False, "may not be modified"),
    (([], False, [NEW], [], []), False, "still failing"),
    (([], True, [], [OLD], []), False, "disappeared"),
    (([], True, [], [], ["lint"]), False, "lint"),
    (([], True, [], [], []), True, "all tests pass"),
]


@pytest.mark.parametrize(("args", "ok", "words"), GREEN_CASES)
def test_judge_green(args: tuple, ok: bool, words: str) -> None:  # type: ignore[type-arg]
    verdict = judge_green(*args)
    assert verdict.ok is ok and words in verdict.reason


REFACTOR_CASES = [
    (SuiteCounts(3, 5), SuiteCounts(3, 5), True, [], [], True),
    (SuiteCounts(3, 5), SuiteCounts(4, 6), True, [], [], True),
    (SuiteCounts(3, 5), SuiteCounts(3, 5), False, [], [], False),
    (SuiteCounts(3, 5), SuiteCounts(2, 5), True, [], [], False),
    (SuiteCounts(3, 5), SuiteCounts(3, 4), True, [], [], False),
    (SuiteCounts(3, 5), SuiteCounts(3, 5), True, [OLD], [], False),
    (SuiteCounts(3, 5), SuiteCounts(3, 5), True, [], ["format"], False),
]


@pytest.mark.parametrize(("before", "after", "green", "missing", "gates", "ok"), REFACTOR_CASES)
def test_judge_refactor(
    before: SuiteCounts,
    after: SuiteCounts,
    green: bool,
    missing: list[str],
    gates: list[str],
    ok: bool,
) -> None:
    assert judge_refactor(before, after, green, missing, gates).ok is ok


@pytest.mark.parametrize(
    ("streak", "limit", "action"),
    [
        (1, 3, Action.REQUEST_DIFFERENT_TEST),
        (2, 3, Action.REQUEST_DIFFERENT_TEST),
        (3, 3, Action.STOP),
        (1, 1, Action.STOP),
    ],
)
def test_after_overshoot(streak: int, limit: int, action: Action) -> None:
    assert after_overshoot(streak, limit) is action


@pytest.mark.parametrize(
    ("failed", "limit", "action"),
    [(1, 2, Action.SIMPLIFY_TEST), (2, 2, Action.STOP), (1, 1, Action.STOP)],
)
def test_after_implementer_failure(failed: int, limit: int, action: Action) -> None:
    assert after_implementer_failure(failed, limit) is action


@pytest.mark.parametrize(
    ("attempt", "limit", "action"),
    [(1, 3, Action.RETRY), (2, 3, Action.RETRY), (3, 3, Action.SKIP)],
)
def test_after_refactor_failure(attempt: int, limit: int, action: Action) -> None:
    assert after_refactor_failure(attempt, limit) is action


@pytest.mark.parametrize(
    ("done", "limit", "reason", "expected"),
    [
        (0, 10, None, None),
        (9, 10, None, None),
        (10, 10, None, "max_cycles"),
        (2, 10, "kata_complete", "kata_complete"),
        (2, 10, "overshoot_limit", "overshoot_limit"),
    ],
)
def test_stop_reason(done: int, limit: int, reason: str | None, expected: str | None) -> None:
    assert stop_reason(done, limit, reason) == expected


@pytest.mark.parametrize(
    ("reason", "code"),
    [
        ("kata_complete", 0),
        ("max_cycles", 0),
        ("overshoot_limit", 1),
        ("implementer_failed", 1),
        ("agent_failure: x", 1),
    ],
)
def test_exit_code(reason: str, code: int) -> None:
    assert exit_code(reason) == code


@pytest.mark.parametrize(
    ("test_id", "words"),
    [
        ("tests/t.py::test_three_is_fizz", "three is fizz"),
        ("tests/t.py::TestX::test_buzz[5]", "buzz"),
        ("t.py::check", "check"),
    ],
)
def test_behaviour_of(test_id: str, words: str) -> None:
    assert behaviour_of(test_id) == words
