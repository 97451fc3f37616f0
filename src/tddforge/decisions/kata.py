"""The kata session's decisions, as pure functions from measured facts to verdicts and actions.

Nothing here runs anything or reads a file. Two kinds of decision:

- the judges (``judge_red``, ``judge_red_lint``, ``judge_green``,
  ``judge_refactor``): each agent measures inside its own write transaction
  (tests, gates, file bytes), calls its judge once per measurement, and applies
  the verdict itself, staging, committing or undoing its writes, because only
  it holds the write report. The verdict reaches the supervisor as the
  ``AgentResult`` (``success``, ``overshoot_detected``, ``message``);
- the next actions (``after_overshoot``, ``after_implementer_failure``,
  ``after_refactor_failure``, ``stop_reason``): the supervisor (and the build
  stage) reads the result, counts streaks and attempts, and asks these what to
  do next. It never judges a test run again.

Each is tested with a table of cases.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from tddforge.decisions.red_validation import Classification, TestFact, classify_failure

FAILING = ("failed", "error")
#: Stop reasons that mean the session did what it was asked.
SUCCESSFUL_STOPS = frozenset({"kata_complete", "max_cycles"})
#: The stop of a session waiting for a person's answer (``CLARIFICATION_NEEDED``).
CLARIFICATION_STOP = "clarification_needed"
#: Its exit code: neither done (0), short of the goal (1), nor bad input (2).
EXIT_CLARIFICATION = 3


class Action(str, Enum):
    """What the supervisor does next."""

    CONTINUE = "continue"
    RETRY = "retry"
    REQUEST_DIFFERENT_TEST = "request_different_test"
    SIMPLIFY_TEST = "simplify_test"
    SKIP = "skip"
    STOP = "stop"


@dataclass(frozen=True)
class RedJudgement:
    """The Tester's new test: ``red`` (accepted), ``overshoot`` or ``broken``."""

    verdict: Literal["red", "overshoot", "broken"]
    reason: str
    new_tests: tuple[str, ...] = ()


@dataclass(frozen=True)
class Acceptance:
    """Accept or refuse, with the reason told to the agent and written in the metrics."""

    ok: bool
    reason: str


@dataclass(frozen=True)
class SuiteCounts:
    """How much a test suite checks: tests and assertions."""

    tests: int
    assertions: int


def judge_red(
    previous: frozenset[str],
    facts: Sequence[TestFact],
    kata_names: frozenset[str],
    test_function: Callable[[str], str],
    kata_sources: frozenset[str] = frozenset(),
) -> RedJudgement:
    """Is the Tester's new test red for the right reason, an overshoot, or broken?

    ``kata_sources`` are the kata's own source files: an exception raised in them (an
    ``IndexError`` before the test's assertion) means the behaviour is not there yet.
    """
    ids = {f.name for f in facts}
    removed = sorted(previous - ids)
    if removed:
        return RedJudgement("broken", f"existing tests were removed or renamed: {_list(removed)}")
    new = tuple(sorted(ids - previous))
    if not new:
        return RedJudgement("broken", "no new test was found; write exactly one new test")
    functions = sorted({test_function(t) for t in new})
    if len(functions) > 1:
        return RedJudgement(
            "broken", f"write ONE new test, not {len(functions)}: {_list(functions)}", new
        )
    wrong = [
        f"{f.name}: {verdict.reason}"
        for f in facts
        if f.status in FAILING and not (verdict := classify_red(f, kata_names, kata_sources)).valid
    ]
    if wrong:
        return RedJudgement("broken", "tests fail for the wrong reason: " + "; ".join(wrong), new)
    by_id = {f.name: f for f in facts}
    if any(by_id[t].status == "skipped" for t in new):
        return RedJudgement("broken", "the new test is skipped; it must run and fail", new)
    if not any(by_id[t].status in FAILING for t in new):
        if any(f.status in FAILING for f in facts):
            return RedJudgement("broken", "the new test passes while existing tests fail", new)
        return RedJudgement("overshoot", f"the new test passes already: {_list(new)}", new)
    failing = next(by_id[t] for t in new if by_id[t].status in FAILING)
    return RedJudgement("red", classify_red(failing, kata_names, kata_sources).reason, new)


def classify_red(
    fact: TestFact, kata_names: frozenset[str], kata_sources: frozenset[str]
) -> Classification:
    """``classify_failure``, and one more right reason in a kata: the kata's own code raised.

    A test that calls code which raises (``IndexError``, ``TypeError``...) before the
    test's assertion is red because the behaviour is missing, not because the test is
    broken; the exception must come from one of the kata's source files, not the test.
    """
    verdict = classify_failure(fact, kata_names)
    if verdict.valid or fact.raised_in is None or fact.raised_in not in kata_sources:
        return verdict
    return Classification(
        True, f"the kata's code raises {fact.failure_kind} in {fact.raised_in}: not there yet"
    )


def judge_red_lint(judged: RedJudgement, lint_ok: bool) -> RedJudgement:
    """A test judged red must also pass the linter; otherwise it is broken."""
    if judged.verdict != "red" or lint_ok:
        return judged
    return RedJudgement("broken", "the test does not pass the linter", judged.new_tests)


def judge_green(
    tampered: Sequence[str],
    all_passed: bool,
    failing: Sequence[str],
    missing: Sequence[str],
    failed_gates: Sequence[str],
) -> Acceptance:
    """Is the Implementer's attempt green: tests untouched, all passing, gates passed?"""
    if tampered:
        return Acceptance(
            False, f"test files may not be modified; reverted changes to {_list(tampered)}"
        )
    if missing:
        return Acceptance(False, f"tests disappeared: {_list(missing)}")
    if not all_passed:
        return Acceptance(False, f"{len(failing)} test(s) still failing: {_list(failing)}")
    if failed_gates:
        return Acceptance(False, f"quality gate(s) failed: {_list(failed_gates)}")
    return Acceptance(True, "all tests pass and the quality gates pass")


def judge_refactor(
    before: SuiteCounts,
    after: SuiteCounts,
    all_passed: bool,
    missing: Sequence[str],
    failed_gates: Sequence[str],
) -> Acceptance:
    """Keep a refactoring only if it stays green and does not weaken the tests."""
    if not all_passed:
        return Acceptance(False, "the refactoring broke the tests")
    if missing:
        return Acceptance(False, f"tests disappeared: {_list(missing)}")
    if after.tests < before.tests:
        return Acceptance(False, f"test count went down from {before.tests} to {after.tests}")
    if after.assertions < before.assertions:
        return Acceptance(
            False, f"assertion count went down from {before.assertions} to {after.assertions}"
        )
    if failed_gates:
        return Acceptance(False, f"quality gate(s) failed: {_list(failed_gates)}")
    return Acceptance(True, "still green, tests not weakened, gates pass")


def after_overshoot(streak: int, limit: int) -> Action:
    """After the ``streak``-th overshoot in a row: ask for another test, or give up."""
    return Action.STOP if streak >= limit else Action.REQUEST_DIFFERENT_TEST


def after_implementer_failure(failed_cycles: int, limit: int) -> Action:
    """After the Implementer used all its attempts in ``failed_cycles`` cycles in a row.

    The test is dropped and the Tester asked for a smaller step, until ``limit``
    cycles in a row have failed: then the session stops.
    """
    return Action.STOP if failed_cycles >= limit else Action.SIMPLIFY_TEST


def after_refactor_failure(attempt: int, max_attempts: int) -> Action:
    """After the ``attempt``-th refactoring was reverted: try again, or skip this cycle."""
    return Action.RETRY if attempt < max_attempts else Action.SKIP


def stop_reason(cycles_done: int, max_cycles: int, reason: str | None) -> str | None:
    """Why the session stops now, or None to run another cycle."""
    if reason:
        return reason
    if cycles_done >= max_cycles:
        return "max_cycles"
    return None


def exit_code(reason: str | None) -> int:
    """0 when the session did what it was asked, 3 when it waits for an answer, else 1."""
    if reason == CLARIFICATION_STOP:
        return EXIT_CLARIFICATION
    return 0 if reason in SUCCESSFUL_STOPS else 1


def behaviour_of(test_id: str) -> str:
    """A test id as words: ``tests/t.py::test_returns_fizz[3]`` → ``returns fizz``."""
    name = re.split(r"::|/|\.", test_id.split("[", 1)[0])[-1] or test_id
    words = re.sub(r"^test_?", "", name, flags=re.IGNORECASE).replace("_", " ").strip()
    return words or name


def _list(items: Iterable[str], limit: int = 5) -> str:
    items = list(items)
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")
