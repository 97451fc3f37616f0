"""The LLM contract: message and completion values, the client protocol, cost metering.

Everything above this package talks to a model through ``LLMClient`` only, so a
scripted client (unit tests) and the openai-compatible client (real endpoints,
the loopback fake server) are interchangeable.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from tddforge.errors import BudgetExceeded

_PER_MILLION = 1_000_000.0


@dataclass(frozen=True)
class ChatMessage:
    """One chat message: a role (``system``, ``user``, ``assistant``) and its text."""

    role: str
    content: str


@dataclass(frozen=True)
class Usage:
    """Token counts of one call, or of many calls added together."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )


@dataclass(frozen=True)
class TokenLogprob:
    """One generated token, its log probability, and the top alternatives (token, logprob)."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Completion:
    """A model's reply with what it cost."""

    text: str
    model: str
    usage: Usage
    cost: float
    logprobs: tuple[TokenLogprob, ...] | None = None
    finish_reason: str | None = None


@runtime_checkable
class LLMClient(Protocol):
    """What agents need from a model: one chat completion at a time, with running totals."""

    def complete(
        self, messages: Sequence[ChatMessage], *, logprobs: bool | None = None
    ) -> Completion:
        """Send ``messages`` and return the reply; ``logprobs=None`` follows the settings."""
        ...

    @property
    def total_cost(self) -> float:
        """Dollars spent by this client so far."""
        ...

    @property
    def total_usage(self) -> Usage:
        """Tokens used by this client so far."""
        ...


class CostMeter:
    """Prices calls from a table ($ per million tokens in, out) and enforces a spending cap."""

    def __init__(
        self,
        prices: Mapping[str, tuple[float, float]] | None = None,
        max_cost: float | None = None,
    ) -> None:
        self._prices = dict(prices or {})
        self._max_cost = max_cost
        self._spent = 0.0
        self._usage = Usage()
        # Agents may run in worker threads sharing one meter.
        self._lock = threading.Lock()

    @property
    def spent(self) -> float:
        """Dollars charged so far."""
        return self._spent

    @property
    def usage(self) -> Usage:
        """Tokens charged so far."""
        return self._usage

    @property
    def max_cost(self) -> float | None:
        """The cap in dollars, or None for no cap."""
        return self._max_cost

    def cost_of(self, model: str, usage: Usage) -> float:
        """Dollars for ``usage`` on ``model``; 0.0 for a model missing from the table."""
        price_in, price_out = self._prices.get(model, (0.0, 0.0))
        return (usage.prompt_tokens * price_in + usage.completion_tokens * price_out) / _PER_MILLION

    def charge(self, model: str, usage: Usage) -> float:
        """Add one call's usage and cost to the totals and return that call's cost."""
        cost = self.cost_of(model, usage)
        with self._lock:
            self._spent += cost
            self._usage = self._usage + usage
        return cost

    def check_budget(self) -> None:
        """Raise ``BudgetExceeded`` when the cap is reached; call before each model call."""
        if self._max_cost is not None and self._spent >= self._max_cost:
            raise BudgetExceeded(
                f"spent ${self._spent:.4f} of the ${self._max_cost:.4f} max-cost budget;"
                " no further model calls",
                retryable=False,
            )


def system_user(system: str, user: str) -> list[ChatMessage]:
    """The usual two-message prompt: a system message, then a user message."""
    return [ChatMessage("system", system), ChatMessage("user", user)]
