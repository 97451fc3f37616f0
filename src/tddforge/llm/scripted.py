"""An in-process scripted model for unit tests: replies come from a queue or from rules."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeAlias

from tddforge.errors import LLMError
from tddforge.llm.base import ChatMessage, Completion, CostMeter, Usage

#: What a script step yields: a text, a whole completion, or an exception to raise.
Reply: TypeAlias = str | Completion | BaseException
Predicate: TypeAlias = Callable[[Sequence[ChatMessage]], bool]


def approximate_usage(messages: Sequence[ChatMessage], text: str) -> Usage:
    """Token counts estimated as characters // 4, enough to exercise cost tracking."""
    prompt = sum(len(message.content) for message in messages)
    return Usage(prompt_tokens=prompt // 4, completion_tokens=len(text) // 4)


class ScriptedClient:
    """An ``LLMClient`` whose replies are scripted; every request is recorded in ``requests``."""

    def __init__(
        self,
        *replies: Reply,
        model: str = "scripted",
        meter: CostMeter | None = None,
    ) -> None:
        self.model = model
        self.requests: list[list[ChatMessage]] = []
        self._meter = meter if meter is not None else CostMeter()
        self._queue: deque[Reply] = deque(replies)
        self._rules: list[tuple[Predicate, Reply]] = []
        self._failures: dict[int, BaseException] = {}

    def enqueue(self, *replies: Reply) -> ScriptedClient:
        """Append replies, served first in, first out; an exception in the queue is raised."""
        self._queue.extend(replies)
        return self

    def add_rule(self, predicate: Predicate, reply: Reply) -> ScriptedClient:
        """Answer ``reply`` whenever ``predicate(messages)`` holds; rules win over the queue."""
        self._rules.append((predicate, reply))
        return self

    def fail_on(self, call: int, error: BaseException) -> ScriptedClient:
        """Raise ``error`` on the ``call``-th call to ``complete`` (counting from 1)."""
        self._failures[call] = error
        return self

    @property
    def remaining(self) -> int:
        """Replies still queued."""
        return len(self._queue)

    @property
    def total_cost(self) -> float:
        """Dollars charged so far, priced by the meter's table."""
        return self._meter.spent

    @property
    def total_usage(self) -> Usage:
        """Tokens charged so far."""
        return self._meter.usage

    def complete(
        self, messages: Sequence[ChatMessage], *, logprobs: bool | None = None
    ) -> Completion:
        """Return the next scripted reply for ``messages``, recording the request."""
        self._meter.check_budget()
        self.requests.append(list(messages))
        failure = self._failures.pop(len(self.requests), None)
        if failure is not None:
            raise failure
        reply = self._next_reply(messages)
        if isinstance(reply, BaseException):
            raise reply
        return self._charge(messages, reply)

    def _next_reply(self, messages: Sequence[ChatMessage]) -> Reply:
        for predicate, reply in self._rules:
            if predicate(messages):
                return reply
        if not self._queue:
            raise LLMError(
                f"scripted model: script exhausted at call {len(self.requests)}"
                " (no rule matched and no reply is queued)",
                retryable=False,
            )
        return self._queue.popleft()

    def _charge(self, messages: Sequence[ChatMessage], reply: str | Completion) -> Completion:
        if isinstance(reply, str):
            reply = Completion(
                text=reply,
                model=self.model,
                usage=approximate_usage(messages, reply),
                cost=0.0,
                finish_reason="stop",
            )
        cost = self._meter.charge(reply.model, reply.usage)
        return replace(reply, cost=cost)
