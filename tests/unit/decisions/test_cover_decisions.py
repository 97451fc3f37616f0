"""The cover loop's pure decisions as tables: reliability levels, critique, Router."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tddforge.config import CoverConfig
from tddforge.decisions.critique import AttemptFacts, Critique, critique
from tddforge.decisions.instructions import DEFAULT_INSTRUCTION, instruction_block
from tddforge.decisions.reliability import (
    PostReliability,
    PreReliability,
    StaticFacts,
    post_execution,
    pre_execution,
)
from tddforge.decisions.router import (
    decide,
    finish_reason,
    made_progress,
    progress_note,
    stop_detail,
    track_progress,
)

CFG = CoverConfig()


@pytest.mark.parametrize(
    ("entropy", "facts", "level"),
    [
        (0.1028, StaticFacts(True, 16), "medium"),  # high from the entropy, downgraded by lint
        (0.1028, StaticFacts(True, 0), "high"),
        (0.1028, StaticFacts(True, 4), "high"),
        (0.1028, StaticFacts(True, 5), "medium"),
        (0.1028, StaticFacts(True, 30), "low"),
        (0.4, StaticFacts(True, 0), "medium"),
        (0.4, StaticFacts(True, 16), "low"),
        (0.9, StaticFacts(True, 0), "low"),
        (None, StaticFacts(True, 0), "high"),
        (None, StaticFacts(True, 0, smell_count=2), "medium"),
        (0.0, StaticFacts(False, 0), "low"),
        (0.9, StaticFacts(True, 50, smell_count=1), "low"),
    ],
)
def test_pre_execution_level(entropy: float | None, facts: StaticFacts, level: str) -> None:
    assert pre_execution(entropy, facts, CFG).level == level


def test_pre_execution_thresholds_are_configurable() -> None:
    strict = CoverConfig(entropy_high_max=0.05, lint_downgrade_at=20)
    assert pre_execution(0.1028, StaticFacts(True, 16), strict).level == "medium"
    assert pre_execution(0.01, StaticFacts(True, 16), strict).level == "high"


@pytest.mark.parametrize(
    ("kwargs", "level", "reason"),
    [
        ({"success": False, "failure": "syntax error"}, "discard", "syntax error"),
        ({"success": False}, "discard", "no test passed"),
        ({"coverage": 44.44, "mutation_score": 37.68}, "needs_review", "coverage 44.44% below"),
        (
            {"coverage": 80.0, "mutation_score": 37.68},
            "needs_review",
            "mutation score 37.68% below",
        ),
        ({"coverage": 80.0, "mutation_score": None}, "needs_review", "mutation score unavailable"),
        ({"coverage": None, "mutation_score": 90.0}, "needs_review", "unmeasured"),
        ({"failing_tests": 2}, "needs_review", "2 test(s) fail"),
        ({"pre_level": "low"}, "needs_review", "pre-execution reliability is low"),
        ({}, "trusted", None),
    ],
)
def test_post_execution_level(kwargs: dict, level: str, reason: str | None) -> None:
    args = {
        "success": True,
        "coverage": 80.0,
        "mutation_score": 60.0,
        "failing_tests": 0,
        "pre_level": "high",
        "cfg": CFG,
        **kwargs,
    }
    post = post_execution(**args)
    assert post.level == level
    assert (reason is None and not post.reasons) or any(reason in r for r in post.reasons)


PRE = PreReliability("high", 0.1, 0)
TRUSTED = PostReliability("trusted")


def facts(**changes: object) -> AttemptFacts:
    base = AttemptFacts(
        syntax_ok=True,
        lint_issue_count=0,
        runner_error=None,
        tests_collected=5,
        coverage=80.0,
        mutation_score=70.0,
        pre=PRE,
        post=TRUSTED,
        coverage_target=60.0,
        mutation_target=50.0,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def test_seed_example_critique() -> None:
    post = PostReliability("needs_review", ("coverage 44.44% below target 60.00%",))
    c = critique(facts(coverage=44.44, mutation_score=37.68, missing_lines=(45, 67, 89), post=post))
    assert (c.low_coverage, c.low_mutation, c.compile_error, c.no_tests) == (
        True,
        True,
        False,
        False,
    )
    assert c.mutation_score == 37.68
    assert c.instructions[:2] == (
        "Add coverage for lines: 45, 67, 89.",
        "Improve mutation score from 37.68% toward 50.00%.",
    )
    assert c.missing_lines == (45, 67, 89)


def test_instructions_follow_the_seed_priority_order() -> None:
    post = PostReliability("discard", ("no test passed",))
    c = critique(
        facts(
            syntax_ok=False,
            lint_issue_count=3,
            tests_collected=0,
            coverage=None,
            mutation_score=None,
            post=post,
            pre=PreReliability("low", None, 3),
            runner_error="ImportError: x",
        )
    )
    assert c.instructions == (
        "Static analyzer found syntax issues; fix parser errors first.",
        "Resolve 3 lint/type errors reported by available tools.",
        "Increase test coverage with more assertions.",
        "Mutation score unavailable; ensure mutation testing runs and improves surviving mutants.",
        "Reliability blockers: no test passed.",
        "Address runner error reported: ImportError: x.",
    )
    assert (
        c.compile_error and not c.no_tests
    )  # a file that does not parse collects nothing to count


@pytest.mark.parametrize(
    ("static", "pre", "expected"),
    [
        (1, 1, ["Resolve 1 lint/type errors reported by available tools."]),  # once, not twice
        (0, 0, []),
        (
            2,
            5,
            [
                "Resolve 2 lint/type errors reported by available tools.",
                "Fix 5 lint/type issues noted in reliability analysis.",
            ],
        ),  # two different counts: two instructions
        (0, 4, ["Fix 4 lint/type issues noted in reliability analysis."]),
    ],
)
def test_a_lint_count_is_one_instruction(static: int, pre: int, expected: list[str]) -> None:
    c = critique(facts(lint_issue_count=static, pre=PreReliability("medium", None, pre)))
    assert [i for i in c.instructions if "lint/type" in i] == expected


def test_runner_error_with_valid_syntax_and_no_tests() -> None:
    c = critique(facts(runner_error="collection failed", tests_collected=0))
    assert c.compile_error and c.no_tests
    assert c.instructions[:2] == (
        "Resolve Runner errors and ensure tests execute successfully.",
        "Add at least one pytest/unittest case so tests are collected.",
    )


def test_missing_lines_are_capped_at_ten() -> None:
    c = critique(facts(coverage=10.0, missing_lines=tuple(range(1, 30))))
    assert c.instructions[0] == "Add coverage for lines: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10."


def test_targets_met_gives_no_instructions_and_the_default_block() -> None:
    c = critique(facts())
    assert c.instructions == ()
    assert instruction_block(c) == DEFAULT_INSTRUCTION


@pytest.mark.parametrize(
    ("prev_cov", "prev_mut", "first", "deltas"),
    [
        (None, None, True, (None, None)),
        (70.0, 60.0, False, (10.0, 10.0)),
        (None, None, False, (80.0, 70.0)),
    ],
)
def test_deltas(prev_cov, prev_mut, first, deltas) -> None:
    c = critique(facts(previous_coverage=prev_cov, previous_mutation=prev_mut, first_attempt=first))
    assert (c.coverage_delta, c.mutation_delta) == deltas


def crit(**changes: object) -> Critique:
    base = Critique(
        compile_error=False,
        no_tests=False,
        low_coverage=True,
        low_mutation=True,
        mutation_score=40.0,
        lint_issue_count=0,
        coverage_delta=None,
        mutation_delta=None,
        instructions=(),
        missing_lines=(),
    )
    return replace(base, **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("critique_", "done", "limit", "decision"),
    [
        (crit(), 3, 3, "FINISH"),  # max iterations
        (crit(compile_error=True), 3, 3, "FINISH"),  # the limit wins over a compile error
        (crit(no_progress=True), 1, 3, "FINISH"),  # stagnation
        (crit(no_progress=True, compile_error=True), 1, 3, "FINISH"),
        (crit(compile_error=True), 1, 3, "ENHANCE"),  # try to fix compilation
        (crit(compile_error=True, low_coverage=False, low_mutation=False), 1, 3, "ENHANCE"),
        (crit(low_coverage=False, low_mutation=False), 1, 3, "FINISH"),  # targets met
        (crit(low_coverage=True, low_mutation=False), 1, 3, "ENHANCE"),
        (crit(low_coverage=False, low_mutation=True), 1, 3, "ENHANCE"),
        (crit(), 0, 3, "ENHANCE"),
    ],
)
def test_router_decide(critique_: Critique, done: int, limit: int, decision: str) -> None:
    assert decide(critique_, done, limit) == decision


@pytest.mark.parametrize(
    ("cov_delta", "mut_delta", "progress"),
    [
        (None, None, True),
        (1.0, 0.0, True),
        (0.99, 1.99, False),
        (0.0, 2.0, True),
        (-5.0, 3.0, True),
        (0.5, None, False),
        (None, 0.0, False),
    ],
)
def test_progress_thresholds(cov_delta, mut_delta, progress) -> None:
    assert made_progress(crit(coverage_delta=cov_delta, mutation_delta=mut_delta)) is progress


@pytest.mark.parametrize(
    ("changes", "count_before", "count", "no_progress"),
    [
        ({"coverage_delta": 0.0, "mutation_delta": 0.0}, 0, 1, False),
        ({"coverage_delta": 0.0, "mutation_delta": 0.0}, 1, 2, True),
        ({"coverage_delta": 5.0, "mutation_delta": 0.0}, 1, 0, False),  # progress resets
        (
            {
                "coverage_delta": 0.0,
                "mutation_delta": 0.0,
                "low_coverage": False,
                "low_mutation": False,
            },
            1,
            1,
            False,
        ),  # targets met: not stagnation
    ],
)
def test_stagnation_tracking(changes, count_before, count, no_progress) -> None:
    tracked = track_progress(crit(**changes), count_before)
    assert (tracked.stagnation_count, tracked.no_progress) == (count, no_progress)


@pytest.mark.parametrize(
    ("changes", "done", "reason"),
    [
        ({"low_coverage": False, "low_mutation": False}, 1, "targets_met"),
        ({"no_progress": True}, 2, "no_progress"),
        ({}, 3, "max_iterations"),
        ({}, 1, "finished"),
    ],
)
def test_finish_reason(changes, done, reason) -> None:
    assert finish_reason(crit(**changes), done, 3) == reason


@pytest.mark.parametrize(
    ("cov_delta", "mut_delta", "note"),
    [
        (None, None, None),  # the first attempt: nothing to compare
        (1.0, 0.0, None),
        (0.0, 2.5, None),
        (
            0.8,
            0.7,
            "gains below the progress threshold (+0.8 coverage, +0.7 mutation; needs +1.0 or +2.0)",
        ),
        (
            -0.25,
            None,
            "gains below the progress threshold (-0.2 coverage, n/a mutation; needs +1.0 or +2.0)",
        ),
    ],
)
def test_progress_note_says_what_was_gained(cov_delta, mut_delta, note) -> None:
    assert progress_note(crit(coverage_delta=cov_delta, mutation_delta=mut_delta)) == note


def test_progress_note_of_an_attempt_without_a_score_shows_no_loss() -> None:
    # the score could not be measured: the critique's delta counts it as 0, which is no
    # progress, but the attempt did not lose the previous score
    unscored = crit(coverage_delta=0.0, mutation_delta=-60.5, mutation_score=None)
    assert progress_note(unscored) == (
        "gains below the progress threshold (+0.0 coverage, n/a mutation; needs +1.0 or +2.0)"
    )


@pytest.mark.parametrize(
    ("changes", "reason", "detail"),
    [
        (
            {"coverage_delta": 0.6, "mutation_delta": 0.9, "stagnation_count": 2},
            "no_progress",
            "2 attempts in a row with gains below the progress threshold (+0.6 coverage,"
            " +0.9 mutation; needs +1.0 or +2.0)",
        ),
        ({"low_coverage": False, "low_mutation": False}, "targets_met", "the coverage and"),
        ({}, "max_iterations", "3 attempt(s) made, the most allowed"),
        ({}, "finished", ""),
    ],
)
def test_stop_detail_explains_the_stable_reason(changes, reason, detail) -> None:
    assert stop_detail(reason, crit(**changes), 3).startswith(detail)
