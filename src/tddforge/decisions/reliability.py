"""The cover loop's reliability levels, as pure functions of measured facts.

Pre-execution (before the suite runs): HIGH / MEDIUM / LOW from the model's
mean token entropy and the static metrics. The entropy gives the starting
level; lint/type issues, assertion smells and a syntax error lower it: entropy
0.1028 with 16 lint issues starts at high and ends at medium.

Post-execution (after the run): trusted / needs_review / discard, from
coverage, mutation score, success and the reasons found on the way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from tddforge.config import CoverConfig

#: Pre-execution reliability, best first; post-execution's levels.
PreLevel = Literal["high", "medium", "low"]
PostLevel = Literal["trusted", "needs_review", "discard"]
LEVELS: tuple[PreLevel, ...] = ("high", "medium", "low")
SMELLS_THAT_COUNT = ("no_assertion", "tautology", "mocks_unit_under_test")


@dataclass(frozen=True)
class StaticFacts:
    """The static metrics reliability reads (from ``analysis.static.StaticReport``)."""

    syntax_ok: bool
    lint_issue_count: int = 0
    smell_count: int = 0


@dataclass(frozen=True)
class PreReliability:
    """Pre-execution reliability: a level and why."""

    level: PreLevel
    entropy: float | None
    lint_issues: int
    reasons: tuple[str, ...] = ()

    def to_data(self) -> dict[str, Any]:
        """Plain data for reports."""
        return {
            "level": self.level,
            "entropy": self.entropy,
            "lint_issues": self.lint_issues,
            "reasons": list(self.reasons),
        }


@dataclass(frozen=True)
class PostReliability:
    """Post-execution reliability: trusted, needs_review or discard, and why."""

    level: PostLevel
    reasons: tuple[str, ...] = field(default=())

    def to_data(self) -> dict[str, Any]:
        """Plain data for reports."""
        return {"level": self.level, "reasons": list(self.reasons)}


def entropy_level(entropy: float | None, cfg: CoverConfig) -> PreLevel:
    """The level the entropy alone gives; high when it is unknown (logprobs not collected)."""
    if entropy is None or entropy <= cfg.entropy_high_max:
        return "high"
    return "medium" if entropy <= cfg.entropy_medium_max else "low"


def _down(level: PreLevel, steps: int) -> PreLevel:
    return LEVELS[min(len(LEVELS) - 1, LEVELS.index(level) + steps)]


def pre_execution(entropy: float | None, facts: StaticFacts, cfg: CoverConfig) -> PreReliability:
    """HIGH/MEDIUM/LOW from token entropy and static metrics."""
    lint = facts.lint_issue_count
    if not facts.syntax_ok:
        return PreReliability("low", entropy, lint, ("the suite has a syntax error",))
    level = entropy_level(entropy, cfg)
    reasons: list[str] = []
    if entropy is None:
        reasons.append("token entropy unavailable (logprobs not collected)")
    elif level != "high":
        reasons.append(f"mean token entropy {entropy:.4f} above {cfg.entropy_high_max:g}")
    if lint >= cfg.lint_low_at:
        level = _down(level, 2)
        reasons.append(f"{lint} lint/type issues")
    elif lint >= cfg.lint_downgrade_at:
        level = _down(level, 1)
        reasons.append(f"{lint} lint/type issues")
    if facts.smell_count:
        level = _down(level, 1)
        reasons.append(f"{facts.smell_count} assertion smell(s)")
    return PreReliability(level, entropy, lint, tuple(reasons))


def post_execution(
    *,
    success: bool,
    coverage: float | None,
    mutation_score: float | None,
    failing_tests: int,
    pre_level: PreLevel,
    cfg: CoverConfig,
    failure: str | None = None,
) -> PostReliability:
    """trusted / needs_review / discard from the measured run."""
    if not success:
        return PostReliability("discard", (failure or "no test passed",))
    reasons: list[str] = []
    if coverage is None or coverage < cfg.coverage_target:
        shown = "unmeasured" if coverage is None else f"{coverage:.2f}%"
        reasons.append(f"coverage {shown} below target {cfg.coverage_target:.2f}%")
    if mutation_score is None:
        reasons.append("mutation score unavailable")
    elif mutation_score < cfg.mutation_target:
        reasons.append(
            f"mutation score {mutation_score:.2f}% below target {cfg.mutation_target:.2f}%"
        )
    if failing_tests:
        reasons.append(f"{failing_tests} test(s) fail or are flaky")
    if pre_level == "low":
        reasons.append("pre-execution reliability is low")
    return PostReliability("needs_review" if reasons else "trusted", tuple(reasons))
