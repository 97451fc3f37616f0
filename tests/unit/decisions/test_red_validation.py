from __future__ import annotations

import pytest

from tddforge.decisions.red_validation import (
    RedPolicy,
    TestFact,
    classify_failure,
    validate_red,
)

PROVIDED = frozenset({"calc", "src.calc", "Calculator", "add", "divide", "DivisionByZero"})


@pytest.mark.parametrize(
    ("kind", "missing", "message", "valid"),
    [
        ("AssertionError", None, "assert 3 == 4", True),
        ("Failed", None, "DID NOT RAISE <class 'ValueError'>", True),
        ("NotImplementedError", None, "", True),
        ("ModuleNotFoundError", "calc", "No module named 'calc'", True),
        ("ModuleNotFoundError", "src.calc", "No module named 'src.calc'", True),
        ("ModuleNotFoundError", "calc.extra", "No module named 'calc.extra'", True),
        ("ModuleNotFoundError", "requests_mock", "No module named 'requests_mock'", False),
        ("ImportError", "calc", "cannot import name 'Calculator' from 'calc'", True),
        ("ImportError", "calc", "cannot import name 'Helper' from 'calc'", False),
        ("AttributeError", "add", "module 'calc' has no attribute 'add'", True),
        ("AttributeError", None, "module 'calc' has no attribute 'add'", True),
        ("AttributeError", None, "module 'calc' has no attribute 'helper'", False),
        ("NameError", "DivisionByZero", "name 'DivisionByZero' is not defined", True),
        ("NameError", "pytestt", "name 'pytestt' is not defined", False),
        ("SyntaxError", None, "invalid syntax (test_calc.py, line 3)", False),
        ("IndentationError", None, "unexpected indent", False),
        ("FixtureLookupError", None, "fixture 'calculator' not found", False),
        ("TypeError", None, "add() takes 2 positional arguments", False),
        ("Timeout", None, None, False),
        (None, None, None, False),
    ],
)
def test_classify_failure(
    kind: str | None, missing: str | None, message: str | None, valid: bool
) -> None:
    fact = TestFact("t.py::test_x", "failed", kind, missing, message)
    assert classify_failure(fact, PROVIDED).valid is valid


def test_reason_names_the_missing_thing() -> None:
    fact = TestFact("t.py::test_x", "error", "ModuleNotFoundError", "requests_mock", "")
    reason = classify_failure(fact, PROVIDED).reason
    assert "requests_mock" in reason and "never mentions" in reason


def _facts(*statuses: str) -> list[TestFact]:
    return [
        TestFact(f"t.py::test_{i}", s, "AssertionError" if s == "failed" else None)
        for i, s in enumerate(statuses)
    ]


POLICY = RedPolicy()


@pytest.mark.parametrize(
    ("statuses", "valid", "n_failing", "n_passes"),
    [
        (("failed",) * 4, True, 4, 0),
        (("failed", "failed", "failed", "passed"), True, 3, 1),  # 25% <= 30%
        (("failed", "failed", "passed"), False, 2, 1),  # 33% > 30%
        (("passed", "passed"), False, 0, 2),
        (("skipped", "skipped"), False, 0, 0),
        (("failed", "skipped"), True, 1, 0),
    ],
)
def test_validate_red_pass_ratio(
    statuses: tuple[str, ...], valid: bool, n_failing: int, n_passes: int
) -> None:
    verdict = validate_red(_facts(*statuses), PROVIDED, POLICY)
    assert (verdict.valid, len(verdict.failing_tests), len(verdict.unexpected_passes)) == (
        valid,
        n_failing,
        n_passes,
    )


def test_no_tests_is_invalid_with_the_seed_warning() -> None:
    verdict = validate_red([], PROVIDED, POLICY)
    assert not verdict.valid
    assert verdict.warnings == ("No tests were executed",)


def test_all_passing_warns_that_the_implementation_may_exist() -> None:
    verdict = validate_red(_facts("passed", "passed"), PROVIDED, POLICY)
    assert "All tests passed - verify implementation doesn't exist" in verdict.warnings
    assert any("100% of tests passed" in w for w in verdict.warnings)


def test_passes_forbidden_when_allow_some_passes_is_off() -> None:
    strict = RedPolicy(allow_some_passes=False, max_pass_ratio=1.0)
    assert not validate_red(_facts("failed", "failed", "failed", "passed"), PROVIDED, strict).valid
    assert validate_red(_facts("failed", "failed"), PROVIDED, strict).valid


def test_one_broken_test_makes_the_red_invalid_and_is_listed() -> None:
    facts = [
        *_facts("failed", "failed"),
        TestFact("t.py::test_bad", "error", "SyntaxError", None, "bad"),
    ]
    verdict = validate_red(facts, PROVIDED, POLICY)
    assert not verdict.valid
    assert [i.name for i in verdict.invalid_red] == ["t.py::test_bad"]
    assert verdict.failing_tests == ("t.py::test_0", "t.py::test_1")
    assert "t.py::test_bad" not in verdict.failing_tests
