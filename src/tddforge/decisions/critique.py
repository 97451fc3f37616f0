"""The cover loop's Supervisor: a rule-based critique of one attempt (pure, no LLM call).

``critique`` turns an attempt's measured facts into a ``Critique``: flags,
deltas against the previous attempt, instructions in priority order (syntax
and runner errors, then collection, coverage, mutation, reliability), and the
mutants left to kill: every one not killed (survived, not covered, timed out),
less those set aside as likely equivalent (``mutation.equivalence``) or claimed
equivalent by the model. A set-aside mutant still counts in the scores.
``decisions.instructions`` renders a critique for the Enhancer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from tddforge.decisions.reliability import PostReliability, PreReliability

MAX_LINES = 10


@dataclass(frozen=True)
class Survivor:
    """A mutant the suite did not kill: where, the code before and after, its verdict
    (survived, no-coverage or timeout), and why it was set aside, when it was."""

    line: int
    operator: str
    before: str
    after: str
    id: str = ""
    verdict: str = "survived"
    note: str = ""


@dataclass(frozen=True)
class FailingTest:
    """A test that failed against the unchanged module."""

    name: str
    kind: str | None
    message: str


@dataclass(frozen=True)
class AttemptFacts:
    """Everything the Supervisor reads about one attempt."""

    syntax_ok: bool
    lint_issue_count: int
    runner_error: str | None
    tests_collected: int
    coverage: float | None
    mutation_score: float | None
    pre: PreReliability
    post: PostReliability
    coverage_target: float
    mutation_target: float
    missing_lines: tuple[int, ...] = ()
    missing_branches: tuple[tuple[int, int], ...] = ()
    survivors: tuple[Survivor, ...] = ()  # every mutant not killed
    failing: tuple[FailingTest, ...] = ()
    # what the static checks found, one line each: "line 5: ruff F401: `x` imported but unused"
    findings: tuple[str, ...] = ()
    # mutant id → why: set aside from ``survivors`` (they still count in the scores)
    likely_equivalent: Mapping[str, str] = field(default_factory=dict)
    claimed_equivalent: Mapping[str, str] = field(default_factory=dict)
    previous_coverage: float | None = None
    previous_mutation: float | None = None
    first_attempt: bool = True


@dataclass(frozen=True)
class Critique:
    """The Supervisor's critique, plus the stagnation state and the extra targets."""

    compile_error: bool
    no_tests: bool
    low_coverage: bool
    low_mutation: bool
    mutation_score: float | None
    lint_issue_count: int
    coverage_delta: float | None
    mutation_delta: float | None
    instructions: tuple[str, ...]
    missing_lines: tuple[int, ...]
    coverage: float | None = None
    no_progress: bool = False
    stagnation_count: int = 0
    missing_branches: tuple[tuple[int, int], ...] = ()
    survivors: tuple[Survivor, ...] = ()  # the mutants left to kill
    failing: tuple[FailingTest, ...] = field(default=())
    likely_equivalent: tuple[Survivor, ...] = ()  # set aside, each with its ``note``
    claimed_equivalent: tuple[Survivor, ...] = ()
    findings: tuple[str, ...] = ()

    def to_data(self) -> dict[str, Any]:
        """Plain data (lists, not tuples) for JSON."""
        data = asdict(self)
        for key in ("instructions", "missing_lines"):
            data[key] = list(data[key])
        data["missing_branches"] = [list(b) for b in self.missing_branches]
        for key in ("survivors", "likely_equivalent", "claimed_equivalent"):
            data[key] = [asdict(s) for s in getattr(self, key)]
        data["failing"] = [asdict(f) for f in self.failing]
        data["findings"] = list(self.findings)
        return data


def _delta(now: float | None, before: float | None, first: bool) -> float | None:
    if first:
        return None
    return round((now or 0.0) - (before or 0.0), 2)


def critique(facts: AttemptFacts) -> Critique:
    """The Supervisor's critique: flags, metrics and instructions in priority order."""
    compile_error = not facts.syntax_ok or facts.runner_error is not None
    no_tests = facts.syntax_ok and facts.tests_collected == 0
    low_coverage = facts.coverage is None or facts.coverage < facts.coverage_target
    low_mutation = facts.mutation_score is None or facts.mutation_score < facts.mutation_target
    flags = (compile_error, no_tests, low_coverage, low_mutation)
    left, likely, claimed = set_aside(
        facts.survivors, facts.likely_equivalent, facts.claimed_equivalent
    )
    return Critique(
        compile_error=compile_error,
        no_tests=no_tests,
        low_coverage=low_coverage,
        low_mutation=low_mutation,
        mutation_score=facts.mutation_score,
        lint_issue_count=facts.lint_issue_count,
        coverage_delta=_delta(facts.coverage, facts.previous_coverage, facts.first_attempt),
        mutation_delta=_delta(facts.mutation_score, facts.previous_mutation, facts.first_attempt),
        instructions=tuple(_instructions(facts, *flags)),
        missing_lines=facts.missing_lines,
        coverage=facts.coverage,
        missing_branches=facts.missing_branches,
        survivors=left,
        failing=facts.failing,
        likely_equivalent=likely,
        claimed_equivalent=claimed,
        findings=facts.findings,
    )


def set_aside(
    survivors: tuple[Survivor, ...], likely: Mapping[str, str], claimed: Mapping[str, str]
) -> tuple[tuple[Survivor, ...], tuple[Survivor, ...], tuple[Survivor, ...]]:
    """``survivors`` split into those left to kill, the likely equivalent and the claimed
    equivalent ones (a claim wins over a rule), each set-aside one with its reason."""
    left: list[Survivor] = []
    rules: list[Survivor] = []
    claims: list[Survivor] = []
    for s in survivors:
        if s.id in claimed:
            claims.append(replace(s, note=claimed[s.id]))
        elif s.id in likely:
            rules.append(replace(s, note=likely[s.id]))
        else:
            left.append(s)
    return tuple(left), tuple(rules), tuple(claims)


def _instructions(
    f: AttemptFacts, compile_error: bool, no_tests: bool, low_coverage: bool, low_mutation: bool
) -> list[str]:
    out: list[str] = []
    # Priority 1: syntax and compilation.
    if not f.syntax_ok:
        out.append("Static analyzer found syntax issues; fix parser errors first.")
    if f.lint_issue_count > 0:
        out.append(f"Resolve {f.lint_issue_count} lint/type errors reported by available tools.")
    if compile_error and f.syntax_ok:
        out.append("Resolve Runner errors and ensure tests execute successfully.")
    # Priority 2: collection.
    if no_tests:
        out.append("Add at least one pytest/unittest case so tests are collected.")
    # Priority 3: coverage.
    if low_coverage:
        if f.missing_lines:
            lines = ", ".join(str(n) for n in f.missing_lines[:MAX_LINES])
            out.append(f"Add coverage for lines: {lines}.")
        else:
            out.append("Increase test coverage with more assertions.")
    # Priority 4: mutation.
    if low_mutation:
        if f.mutation_score is not None and f.mutation_score >= 0.0:
            out.append(
                f"Improve mutation score from {f.mutation_score:.2f}% toward {f.mutation_target:.2f}%."
            )
        else:
            out.append(
                "Mutation score unavailable; ensure mutation testing runs and improves surviving mutants."
            )
    # Priority 5: reliability guidance.
    if f.post.level not in ("trusted", "pass"):
        out.append(f"Reliability blockers: {'; '.join(f.post.reasons)}.")
    if f.pre.lint_issues > 0 and f.pre.lint_issues != f.lint_issue_count:
        # the same issues already have their instruction (priority 1): say it once
        out.append(f"Fix {f.pre.lint_issues} lint/type issues noted in reliability analysis.")
    if f.runner_error:
        out.append(f"Address runner error reported: {f.runner_error}.")
    return out
