"""The records a cover run writes: one per attempt, and the run's report (``cover.json``).

``Attempt`` is one attempt as the loop holds it: the suite, its measurement, its
critique and its record.

They are JSON as written (``record.json``, ``cover.json``, ``--json``); the TypedDicts
name every key so that the loop, the CLI and the tests agree on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

from tddforge.cover_contract import GeneratedSuite
from tddforge.decisions.critique import Critique
from tddforge.decisions.router import Route
from tddforge.orchestration.cover_lab import Measurement


class TestsSeen(TypedDict):
    """Tests pytest collected, and the test functions by how they behaved over every run."""

    collected: int
    stable: int
    flaky: int
    failing: int
    broken: int
    pollutes: int  # made others fail by running before them


class MutationCounts(TypedDict):
    """A mutation run in brief."""

    counts: dict[str, int]
    mutants: int
    elapsed: float


class ClaimRecord(TypedDict):
    """A writer's claim that a mutant is equivalent, as checked."""

    id: str
    reason: str
    attempt: int  # the attempt whose reply made it
    accepted: bool  # it names a mutant the attempt before left alive (else ignored)
    line: int | None
    change: str  # the mutated line, before → after


class FinalClaim(ClaimRecord):
    """An accepted claim, with its mutant's verdict in the final suite."""

    final_verdict: str  # survived, no-coverage, timeout, or "killed by ...: the claim is refuted"


class LikelyEquivalent(TypedDict):
    """A survivor a rule marks likely equivalent (it still counts as a survivor)."""

    id: str
    line: int
    change: str
    reason: str


class AttemptRecord(TypedDict, total=False):
    """One attempt: who wrote it, what was measured, how it was judged, what was decided."""

    attempt: int
    agent: str  # generator | enhancer
    coverage: float | None
    line_coverage: float | None
    branch_coverage: float | None
    mutation_score: float | None
    mutation: MutationCounts | None
    tests: TestsSeen
    entropy: float | None
    static: dict[str, Any]
    pre_reliability: dict[str, Any]
    post_reliability: dict[str, Any]
    critique: dict[str, Any]
    progress: str | None  # the gains, when below the progress threshold
    equivalence_claims: list[ClaimRecord]  # made in this attempt's reply
    mutation_score_without_claimed: float | None  # None while nothing is claimed
    cost: float
    notes: list[str]
    decision: Route  # added once the Router has answered


class DroppedTest(TypedDict):
    """A test left out of the final suite, and why."""

    test: str
    reason: str


class SuspectedBug(TypedDict):
    """A test that failed the same way in every run on an assertion about the module."""

    test: str
    attempt: int
    kind: str | None
    message: str
    source: str


class FinalSuite(TypedDict):
    """The suite written at the test path, and its measured figures."""

    test_file: str | None
    from_attempt: int | None
    coverage: float | None
    line_coverage: float | None
    branch_coverage: float | None
    mutation_score: float | None  # strict: claimed and likely equivalent mutants count
    mutation_score_without_claimed: float | None  # None when nothing was claimed
    claimed_equivalent: list[FinalClaim]
    likely_equivalent: list[LikelyEquivalent]
    targets_met: bool
    tests_kept: list[str]
    tests_dropped: list[DroppedTest]
    suspected_bugs: list[SuspectedBug]
    notes: list[str]


class Targets(TypedDict):
    """What the run aimed at."""

    coverage: float
    mutation: float
    max_iterations: int


class Cost(TypedDict):
    """What the model calls cost."""

    total_llm_cost: float
    max_cost: float | None
    tokens: int


class CoverReport(TypedDict):
    """The whole run: ``cover.json`` and the ``--json`` output."""

    module: str
    project: str
    framework: str
    targets: Targets
    pytest_config: dict[str, object]
    attempts: list[AttemptRecord]
    stop_reason: str  # a stable name: targets_met, no_progress, max_iterations, budget...
    stop_detail: str  # the reason in full, with its figures
    final: FinalSuite
    cost: Cost
    run_dir: str


@dataclass
class Attempt:
    """One attempt: the suite a writer gave, what it measured, its critique, its record."""

    index: int
    suite: GeneratedSuite
    found: Measurement
    critique: Critique
    record: AttemptRecord = field(default_factory=lambda: AttemptRecord())
