"""The cover loop's Supervisor: a rule-based critique of one attempt (pure, no LLM call).

``critique`` turns an attempt's measured facts into a ``Critique``: flags,
deltas against the previous attempt, and instructions in priority order
(syntax and runner errors, then collection, coverage, mutation, reliability).
``instruction_block`` renders them as a list for the Enhancer, then adds the
lines and branches not yet covered (CoverUp), the surviving mutants with their
diffs (MuTAP, ACH), and the tests that fail.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from tddforge.decisions.reliability import PostReliability, PreReliability

DEFAULT_INSTRUCTION = "- Improve coverage and robustness without breaking existing passing tests."
MAX_LINES = 10


@dataclass(frozen=True)
class Survivor:
    """A mutant the suite did not kill: where, and the code before and after."""

    line: int
    operator: str
    before: str
    after: str


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
    survivors: tuple[Survivor, ...] = ()
    failing: tuple[FailingTest, ...] = ()
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
    survivors: tuple[Survivor, ...] = ()
    failing: tuple[FailingTest, ...] = field(default=())

    def to_data(self) -> dict[str, Any]:
        """Plain data (lists, not tuples) for JSON."""
        data = asdict(self)
        for key in ("instructions", "missing_lines"):
            data[key] = list(data[key])
        data["missing_branches"] = [list(b) for b in self.missing_branches]
        data["survivors"] = [asdict(s) for s in self.survivors]
        data["failing"] = [asdict(f) for f in self.failing]
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
        survivors=facts.survivors,
        failing=facts.failing,
    )


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


def _branch(arc: tuple[int, int]) -> str:
    start, end = arc
    return f"{start}→{'exit' if end < 0 else end}"


def instruction_block(c: Critique, max_survivors: int = 10) -> str:
    """The Enhancer's instruction block: instructions, then lines, branches, mutants, failures."""
    block = "\n".join(f"- {item}" for item in c.instructions if item)
    if c.missing_lines:
        line_targets = ", ".join(str(m) for m in c.missing_lines[:MAX_LINES])
        block += f"\n- Increase coverage for lines: {line_targets}."
    if c.missing_branches:
        arcs = ", ".join(_branch(arc) for arc in c.missing_branches[:MAX_LINES])
        block += f"\n- Take these branches (line→next line; exit = leaves the function): {arcs}."
    if c.survivors:
        block += (
            "\n- These mutants survived: the tests still pass when the module is changed as"
            " shown. Add assertions that fail on each change:"
        )
        for s in c.survivors[:max_survivors]:
            block += (
                f"\n    line {s.line} ({s.operator}): `{s.before.strip()}` → `{s.after.strip()}`"
            )
    if c.failing:
        block += (
            "\n- These tests fail against the current module. Fix each expectation to match"
            " the module's actual behaviour unless the module is clearly wrong:"
        )
        for t in c.failing[:max_survivors]:
            block += f"\n    {t.name}: {t.kind or 'error'}: {t.message.splitlines()[0][:200] if t.message else ''}"
    if not block.strip():
        block = DEFAULT_INSTRUCTION
    return block.strip("\n")
