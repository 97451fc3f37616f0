"""The agent contract: ``Agent``, its context and result, the reply protocol, retries.

The reply protocol, shared by every kata agent:

* files are whole-file ``### FILE: path`` blocks followed by a fenced block;
* an optional status block (``SUCCESS:`` / ``MESSAGE:`` / ``FILES_MODIFIED:`` /
  ``TESTS_PASSED:`` lines) is parsed, but only as information: success is
  decided by running the tests, never by the model's word;
* the Tester answers ``KATA_COMPLETE`` (and no files) when the kata is fully
  specified; the Refactorer answers ``NO_CHANGES`` when nothing needs improving;
* any agent may answer ``CLARIFICATION_NEEDED: <question>`` (and no files) when the
  kata's requirements are unclear: the session stops until a person answers.
"""

from __future__ import annotations

import re
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path

from tddforge.errors import AgentExecutionError, LLMError, TddforgeError
from tddforge.llm.base import ChatMessage, Completion, LLMClient, system_user

KATA_COMPLETE = "KATA_COMPLETE"
NO_CHANGES = "NO_CHANGES"
CLARIFICATION_NEEDED = "CLARIFICATION_NEEDED"
_CLARIFICATION = re.compile(
    r"^\s*\**CLARIFICATION_NEEDED\**\s*:?\s*(?P<question>.*?)\s*(?:\n\s*\n|\Z)",
    re.MULTILINE | re.DOTALL,
)
_FENCED = re.compile(r"^\s{0,3}(`{3,}|~{3,}).*?^\s{0,3}\1\s*$", re.MULTILINE | re.DOTALL)
_STATUS_LINE = re.compile(
    r"^\s*(SUCCESS|MESSAGE|FILES_MODIFIED|TESTS_PASSED|NEXT)\s*:\s*(.*?)\s*$", re.MULTILINE
)


class AgentRole(str, Enum):
    """The roles of the agents that implement ``Agent`` (the supervisor has another interface)."""

    TESTER = "Tester"
    IMPLEMENTER = "Implementer"
    REFACTORER = "Refactorer"


@dataclass(frozen=True)
class AgentContext:
    """What an agent is told: the kata, the code, the history and the last run.

    Frozen: whoever tells an agent something new (the supervisor, a stage, the
    retry loop) makes a new context with ``dataclasses.replace``; no two places
    write to one shared context.
    """

    kata_description: str
    codebase_files: Mapping[str, str] = field(default_factory=dict)
    recent_commits: Sequence[str] = ()
    last_test_output: str = ""
    cycle_number: int = 1
    retry_attempt: int = 0
    last_error: str | None = None
    max_cycles: int = 0
    #: Supervisor notes for the agent (behaviours that already pass, a simpler step...).
    hints: Sequence[str] = ()
    #: Test ids of the last green state; the Tester must keep them all.
    known_tests: frozenset[str] = frozenset()
    #: The subject of the commit the agent makes when it succeeds.
    commit_subject: str = ""
    #: What became of the last refactoring (kept, reverted, not needed): told to the Tester.
    last_refactor: str = ""
    #: (question, answer) pairs a person gave when an agent asked for clarification.
    clarifications: Sequence[tuple[str, str]] = ()


@dataclass
class AgentResult:
    """What an agent did, as measured (the contract's fields first, then tddforge's own)."""

    success: bool
    message: str = ""
    files_modified: list[str] = field(default_factory=list)
    tests_passed: bool = False
    overshoot_detected: bool = False
    commits_made: list[str] = field(default_factory=list)
    error_details: str | None = None
    kata_complete: bool = False
    no_changes: bool = False
    new_tests: list[str] = field(default_factory=list)
    test_count: int = 0
    gates: dict[str, str] = field(default_factory=dict)
    test_output: str = ""
    status: StatusBlock | None = None
    #: How many times the agent was asked (set by ``execute_with_retry``).
    attempts: int = 1
    #: The question the agent asked instead of doing its job (``CLARIFICATION_NEEDED``).
    clarification: str | None = None


@dataclass(frozen=True)
class StatusBlock:
    """The optional status block of a reply (``SUCCESS:``, ``MESSAGE:``...): informational only."""

    success: bool | None = None
    message: str = ""
    files_modified: tuple[str, ...] = ()
    tests_passed: bool | None = None
    #: The Tester's next step after this one, when it says (``NEXT:``).
    next: str = ""


def outside_fences(reply: str) -> str:
    """``reply`` with its fenced code blocks removed (markers inside code do not count)."""
    return _FENCED.sub("", reply)


def parse_status_block(reply: str) -> StatusBlock | None:
    """The status block's fields, or None when the reply has none."""
    found = {key: value for key, value in _STATUS_LINE.findall(outside_fences(reply))}
    if not found:
        return None
    files = tuple(p.strip() for p in found.get("FILES_MODIFIED", "").split(",") if p.strip())
    return StatusBlock(
        success=_flag(found.get("SUCCESS")),
        message=found.get("MESSAGE", ""),
        files_modified=files,
        tests_passed=_flag(found.get("TESTS_PASSED")),
        next=found.get("NEXT", ""),
    )


def _flag(value: str | None) -> bool | None:
    if value is None:
        return None
    lowered = value.strip().lower()
    return True if lowered in ("true", "yes") else False if lowered in ("false", "no") else None


def clarification_asked(reply: str) -> str | None:
    """The question of a ``CLARIFICATION_NEEDED: <question>`` reply (outside code), or None."""
    found = _CLARIFICATION.search(outside_fences(reply))
    if found is None:
        return None
    question = " ".join(found.group("question").split())
    return question or "(the agent asked for clarification without saying what)"


def says(reply: str, marker: str) -> bool:
    """True when ``marker`` (KATA_COMPLETE, NO_CHANGES) stands as a word outside code."""
    return re.search(rf"(?<!\w){marker}(?!\w)", outside_fences(reply)) is not None


def parse_agent_response(response: str, role: AgentRole) -> AgentResult:
    """The status block read into an ``AgentResult``: the model's claims only, never verified."""
    status = parse_status_block(response)
    if status is None:
        return AgentResult(success=False, message=f"{role.value}: no status block", status=None)
    return AgentResult(
        success=bool(status.success),
        message=status.message,
        files_modified=list(status.files_modified),
        tests_passed=bool(status.tests_passed),
        status=status,
        kata_complete=says(response, KATA_COMPLETE),
        no_changes=says(response, NO_CHANGES),
    )


@dataclass(frozen=True)
class Exchange:
    """One model call: the messages sent and the completion received."""

    messages: tuple[ChatMessage, ...]
    completion: Completion
    seconds: float = 0.0


class Agent(ABC):
    """Base class for all TDD agents; ``llm`` is any ``LLMClient``."""

    def __init__(self, llm: LLMClient, work_dir: Path):
        self.llm = llm
        self.work_dir = work_dir
        self.exchanges: list[Exchange] = []

    @property
    @abstractmethod
    def role(self) -> AgentRole:
        """The agent's role."""

    @abstractmethod
    def get_system_prompt(self) -> str:
        """The role's system prompt."""

    @abstractmethod
    def execute(self, context: AgentContext) -> AgentResult:
        """Do the role's job and report what was measured."""

    @abstractmethod
    def _build_user_prompt(self, context: AgentContext) -> str:
        """The user prompt for ``context``."""

    def _run_llm(self, context: AgentContext) -> str:
        """Ask the model with the system and user prompts; the exchange is recorded."""
        messages = system_user(self.get_system_prompt(), self._build_user_prompt(context))
        start = time.monotonic()
        completion = self.llm.complete(messages)
        self.exchanges.append(Exchange(tuple(messages), completion, time.monotonic() - start))
        return completion.text

    def drain_exchanges(self) -> list[Exchange]:
        """The exchanges since the last drain (for metrics and transcripts)."""
        done, self.exchanges = self.exchanges, []
        return done


class AttemptsExhausted(AgentExecutionError):
    """Every attempt failed; ``result`` is the last one (None when it raised)."""

    def __init__(self, message: str, result: AgentResult | None, attempts: int):
        super().__init__(message)
        self.result = result
        self.attempts = attempts


def execute_with_retry(agent: Agent, context: AgentContext, max_attempts: int = 3) -> AgentResult:
    """Run ``agent`` until it succeeds, feeding each failure to the next attempt.

    An overshoot is returned at once: it is the supervisor's to handle. An
    ``LLMError`` propagates (the client has already retried what can be retried);
    other deliberate errors count as a failed attempt. After ``max_attempts``,
    ``AttemptsExhausted`` (an ``AgentExecutionError``) carries the last result.
    """
    last: AgentResult | None = None
    error = context.last_error
    for attempt in range(max_attempts):
        try:
            last = agent.execute(replace(context, retry_attempt=attempt, last_error=error))
        except LLMError:
            raise
        except TddforgeError as exc:
            last, error = None, f"{type(exc).__name__}: {exc}"
            continue
        if last.success or last.overshoot_detected or last.clarification:
            return replace(last, attempts=attempt + 1)
        error = last.error_details or last.message
    raise AttemptsExhausted(
        f"{agent.role.value} failed after {max_attempts} attempts: {error}",
        last,
        max_attempts,
    )
