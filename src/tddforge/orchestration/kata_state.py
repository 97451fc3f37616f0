"""Kata session state: ``TDDPhase``, ``CycleState``, ``SessionState``, saved as JSON.

The state is written after every completed phase to ``<work dir>/.tddforge/session.json``
(atomically: a kill never leaves half a file), so ``--resume`` continues from the
last completed phase. It also carries the per-cycle metrics stored with the run.
"""

from __future__ import annotations

import os
import tempfile
import time
from enum import Enum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tddforge.errors import InputError
from tddforge.store.rundir import RUN_ID_PATTERN

SESSION_FILE = "session.json"


class TDDPhase(str, Enum):
    """Where a cycle stands."""

    IDLE = "idle"
    TESTING = "testing"
    IMPLEMENTING = "implementing"
    REFACTORING = "refactoring"
    COMPLETE = "complete"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=False)


class PhaseMetrics(_Model):
    """What one phase of one cycle cost and how it went."""

    seconds: float = 0.0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    attempts: int = 0
    outcome: str = ""


class CycleState(_Model):
    """One Tester → Implementer → Refactorer cycle, with its metrics."""

    cycle_number: int
    phase: TDDPhase = TDDPhase.IDLE
    completed_phases: list[TDDPhase] = Field(default_factory=list)
    behaviour: str = ""
    new_tests: list[str] = Field(default_factory=list)
    #: The RED test files as staged (path → text): what a resumed session restores.
    test_files: dict[str, str] = Field(default_factory=dict)
    red_output: str = ""
    #: The Implementer's passing run: what the Refactorer starts from.
    green_output: str = ""
    overshoots: int = 0
    retries: dict[str, int] = Field(default_factory=dict)
    phases: dict[str, PhaseMetrics] = Field(default_factory=dict)
    test_count: int = 0
    gates: dict[str, str] = Field(default_factory=dict)
    #: Non-test overhead of the cycle: test runs, gates and git, measured by the supervisor.
    tool_seconds: float = 0.0
    commits: list[str] = Field(default_factory=list)
    refactor: str = ""
    outcome: str = ""
    complete: bool = False

    def done(self, phase: TDDPhase) -> bool:
        """True when ``phase`` of this cycle has completed."""
        return phase in self.completed_phases

    def finish_phase(self, phase: TDDPhase) -> None:
        """Record ``phase`` as completed."""
        if phase not in self.completed_phases:
            self.completed_phases.append(phase)

    def mark_complete(self, outcome: str) -> None:
        """Close the cycle with its outcome (green, kata_complete, overshoot_limit...)."""
        self.outcome = outcome
        self.phase = TDDPhase.COMPLETE
        self.complete = True


class SessionState(_Model):
    """A whole kata session: settings it runs with, its cycles, why it stopped."""

    version: int = 1
    kata_path: str
    work_dir: str
    run_id: str = Field(pattern=RUN_ID_PATTERN)
    max_cycles: int
    model: str = ""
    started_at: float = Field(default_factory=time.time)
    head: str = ""
    test_ids: list[str] = Field(default_factory=list)
    overshoot_streak: int = 0
    implementer_failure_streak: int = 0
    hints: list[str] = Field(default_factory=list)
    #: The latest run of the whole suite (the last green or kept refactoring): the state
    #: the Tester writes its next test against.
    last_output: str = ""
    #: What became of the last refactoring: kept, reverted or not needed, and why.
    last_refactor: str = ""
    #: The behaviour the Tester said it would test next (``NEXT:``), when it said.
    next_step: str = ""
    #: The question an agent asked (``CLARIFICATION_NEEDED``) that waits for an answer.
    pending_question: str = ""
    #: Questions asked and the answers a person gave, in order: every later prompt has them.
    clarifications: list[tuple[str, str]] = Field(default_factory=list)
    cycles: list[CycleState] = Field(default_factory=list)
    stop_reason: str | None = None
    resumed: int = 0

    @property
    def cycles_done(self) -> int:
        """Cycles that have finished (whatever their outcome)."""
        return sum(1 for c in self.cycles if c.complete)

    def get_current_cycle_state(self) -> CycleState:
        """The unfinished cycle, or a new one."""
        if self.cycles and not self.cycles[-1].complete:
            return self.cycles[-1]
        cycle = CycleState(cycle_number=len(self.cycles) + 1)
        self.cycles.append(cycle)
        return cycle


def session_path(work_dir: Path) -> Path:
    """Where a work dir's session state lives."""
    return work_dir / ".tddforge" / SESSION_FILE


def save_session(state: SessionState, path: Path) -> None:
    """Write ``state`` atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".session-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(state.model_dump_json(indent=2))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_session(path: Path) -> SessionState:
    """Read a saved session; ``InputError`` when it is missing or unreadable."""
    try:
        return SessionState.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputError(f"no session to resume: {path} does not exist") from exc
    except (ValidationError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot resume: {path} is not a valid session file") from exc
