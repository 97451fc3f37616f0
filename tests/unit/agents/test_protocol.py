from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tddforge.agents.base import (
    Agent,
    AgentContext,
    AgentResult,
    AgentRole,
    AttemptsExhausted,
    execute_with_retry,
    parse_agent_response,
    parse_status_block,
    says,
)
from tddforge.errors import AgentExecutionError, LLMError, RunnerError
from tddforge.llm import ScriptedClient

REPLY = """Here is the test.

### FILE: tests/test_a.py
```python
# MESSAGE: inside code does not count
def test_a():
    assert KATA_COMPLETE
```

---
SUCCESS: true
MESSAGE: one is a string
FILES_MODIFIED: tests/test_a.py, a.py
TESTS_PASSED: false
---
"""


def test_status_block_is_parsed_outside_code() -> None:
    status = parse_status_block(REPLY)
    assert status is not None
    assert status.success is True and status.tests_passed is False
    assert status.message == "one is a string"
    assert status.files_modified == ("tests/test_a.py", "a.py")


def test_no_status_block() -> None:
    assert parse_status_block("just prose") is None


@pytest.mark.parametrize(
    ("reply", "marker", "expected"),
    [
        ("All done.\n\nKATA_COMPLETE\n", "KATA_COMPLETE", True),
        ("NO_CHANGES", "NO_CHANGES", True),
        (REPLY, "KATA_COMPLETE", False),  # only inside a code block
        ("NOT_KATA_COMPLETE_YET", "KATA_COMPLETE", False),
    ],
)
def test_markers(reply: str, marker: str, expected: bool) -> None:
    assert says(reply, marker) is expected


def test_parse_agent_response_reports_claims_only() -> None:
    result = parse_agent_response(REPLY, AgentRole.TESTER)
    assert result.success and result.files_modified == ["tests/test_a.py", "a.py"]
    assert not parse_agent_response("nothing", AgentRole.TESTER).success


class _Scripted(Agent):
    """An agent whose results come from a list (exceptions are raised)."""

    def __init__(self, outcomes: list[AgentResult | Exception]) -> None:
        super().__init__(ScriptedClient(), Path("."))
        self.outcomes = outcomes
        self.seen: list[tuple[int, str | None]] = []

    @property
    def role(self) -> AgentRole:
        return AgentRole.IMPLEMENTER

    def get_system_prompt(self) -> str:
        return "You are an Implementer agent in an autonomous TDD system."

    def _build_user_prompt(self, context: AgentContext) -> str:
        return context.kata_description

    def execute(self, context: AgentContext) -> AgentResult:
        self.seen.append((context.retry_attempt, context.last_error))
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


def test_retry_feeds_each_failure_to_the_next_attempt() -> None:
    agent = _Scripted(
        [AgentResult(False, error_details="red"), RunnerError("hung"), AgentResult(True)]
    )
    result = execute_with_retry(agent, AgentContext("kata"), max_attempts=3)
    assert result.success
    assert agent.seen == [(0, None), (1, "red"), (2, "RunnerError: hung")]


def test_each_attempt_gets_its_own_context_and_the_callers_is_untouched() -> None:
    agent = _Scripted([AgentResult(False, error_details="red"), AgentResult(True)])
    context = AgentContext("kata")
    result = execute_with_retry(agent, context, max_attempts=3)
    assert result.attempts == 2
    assert (context.retry_attempt, context.last_error) == (0, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        context.last_error = "written from outside"  # type: ignore[misc]


def test_retry_gives_up_with_the_last_result() -> None:
    agent = _Scripted([AgentResult(False, error_details=f"no {i}") for i in range(3)])
    with pytest.raises(AttemptsExhausted) as caught:
        execute_with_retry(agent, AgentContext("kata"), max_attempts=3)
    assert isinstance(caught.value, AgentExecutionError)
    assert caught.value.attempts == 3 and caught.value.result is not None
    assert "no 2" in str(caught.value)


def test_overshoot_is_returned_to_the_supervisor_at_once() -> None:
    agent = _Scripted([AgentResult(False, overshoot_detected=True)])
    assert execute_with_retry(agent, AgentContext("kata")).overshoot_detected


def test_llm_errors_are_not_retried_here() -> None:
    agent = _Scripted([LLMError("down"), AgentResult(True)])
    with pytest.raises(LLMError):
        execute_with_retry(agent, AgentContext("kata"))


def test_run_llm_records_the_exchange() -> None:
    agent = _Scripted([])
    agent.llm = ScriptedClient("hello")
    assert agent._run_llm(AgentContext("the kata")) == "hello"
    (exchange,) = agent.drain_exchanges()
    assert exchange.messages[1].content == "the kata" and exchange.completion.text == "hello"
    assert agent.drain_exchanges() == []
