"""CostMeter pricing, accumulation and the budget cap; the small value types."""

from __future__ import annotations

import pytest

from tddforge.errors import BudgetExceeded, LLMError
from tddforge.llm import ChatMessage, CostMeter, Usage, system_user

PRICES = {"gpt-4o": (2.50, 10.00), "cheap": (0.10, 0.40)}


@pytest.mark.parametrize(
    ("model", "usage", "expected"),
    [
        ("gpt-4o", Usage(1_000_000, 0), 2.50),
        ("gpt-4o", Usage(0, 1_000_000), 10.00),
        ("gpt-4o", Usage(1000, 500), 0.0025 + 0.005),
        ("cheap", Usage(2_000_000, 1_000_000), 0.20 + 0.40),
        ("unknown-model", Usage(1_000_000, 1_000_000), 0.0),
        ("gpt-4o", Usage(), 0.0),
    ],
)
def test_cost_of_prices_per_million_tokens(model: str, usage: Usage, expected: float) -> None:
    assert CostMeter(PRICES).cost_of(model, usage) == pytest.approx(expected)


def test_charge_accumulates_cost_and_usage() -> None:
    meter = CostMeter(PRICES)
    first = meter.charge("gpt-4o", Usage(1000, 100))
    second = meter.charge("cheap", Usage(10, 20))
    assert first == pytest.approx(0.0025 + 0.001)
    assert meter.spent == pytest.approx(first + second)
    assert meter.usage == Usage(1010, 120)


def test_no_cap_never_raises() -> None:
    meter = CostMeter(PRICES)
    meter.charge("gpt-4o", Usage(10**9, 10**9))
    meter.check_budget()


@pytest.mark.parametrize(
    ("spent_tokens", "raises"),
    [(0, False), (399_999, False), (400_000, True), (1_000_000, True)],
)
def test_budget_checked_before_a_call(spent_tokens: int, raises: bool) -> None:
    # 400k input tokens of gpt-4o cost exactly the $1.00 cap.
    meter = CostMeter(PRICES, max_cost=1.0)
    meter.charge("gpt-4o", Usage(spent_tokens, 0))
    if raises:
        with pytest.raises(BudgetExceeded, match="max-cost") as info:
            meter.check_budget()
        assert isinstance(info.value, LLMError)
        assert info.value.retryable is False
    else:
        meter.check_budget()


def test_zero_cap_refuses_the_first_call() -> None:
    with pytest.raises(BudgetExceeded):
        CostMeter(PRICES, max_cost=0.0).check_budget()


def test_usage_adds_and_totals() -> None:
    total = Usage(3, 4) + Usage(10, 20)
    assert total == Usage(13, 24)
    assert total.total_tokens == 37
    assert Usage().total_tokens == 0


def test_system_user_builds_two_messages() -> None:
    assert system_user("be terse", "hi") == [
        ChatMessage("system", "be terse"),
        ChatMessage("user", "hi"),
    ]
