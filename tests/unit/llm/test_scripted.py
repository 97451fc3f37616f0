"""ScriptedClient: queue, rules, recorded requests, failures, usage and cost."""

from __future__ import annotations

import pytest

from tddforge.errors import BudgetExceeded, LLMError
from tddforge.llm import (
    ChatMessage,
    Completion,
    CostMeter,
    LLMClient,
    ScriptedClient,
    TokenLogprob,
    Usage,
    system_user,
)

HELLO = [ChatMessage("user", "hello")]


def test_is_an_llm_client() -> None:
    assert isinstance(ScriptedClient(), LLMClient)


def test_replies_in_order_and_records_requests() -> None:
    client = ScriptedClient("first").enqueue("second", "third")
    texts = [client.complete([ChatMessage("user", str(i))]).text for i in range(3)]
    assert texts == ["first", "second", "third"]
    assert client.requests == [[ChatMessage("user", str(i))] for i in range(3)]
    assert client.remaining == 0


def test_exhausted_script_raises_clearly() -> None:
    client = ScriptedClient("only")
    client.complete(HELLO)
    with pytest.raises(LLMError, match="script exhausted at call 2"):
        client.complete(HELLO)


def test_rules_win_over_the_queue_and_persist() -> None:
    client = ScriptedClient("queued")
    client.add_rule(lambda messages: "refactor" in messages[-1].content, "rule reply")
    assert client.complete(system_user("s", "please refactor")).text == "rule reply"
    assert client.complete(system_user("s", "refactor again")).text == "rule reply"
    assert client.complete(HELLO).text == "queued"


def test_queued_exception_is_raised() -> None:
    boom = LLMError("endpoint down", retryable=True)
    client = ScriptedClient(boom, "after")
    with pytest.raises(LLMError) as info:
        client.complete(HELLO)
    assert info.value is boom
    assert client.complete(HELLO).text == "after"


def test_fail_on_a_given_call() -> None:
    client = ScriptedClient("one", "two").fail_on(2, TimeoutError("slow"))
    assert client.complete(HELLO).text == "one"
    with pytest.raises(TimeoutError):
        client.complete(HELLO)
    assert client.complete(HELLO).text == "two"
    assert len(client.requests) == 3


def test_completion_reply_is_returned_with_its_logprobs() -> None:
    logprobs = (TokenLogprob("x", -0.5),)
    reply = Completion("x", "scripted", Usage(7, 1), 0.0, logprobs, "length")
    result = ScriptedClient(reply).complete(HELLO, logprobs=True)
    assert result.logprobs == logprobs
    assert result.finish_reason == "length"
    assert result.usage == Usage(7, 1)


def test_usage_is_approximated_and_cost_priced() -> None:
    meter = CostMeter({"m": (1_000_000.0, 2_000_000.0)})  # $1 per input token, $2 per output
    client = ScriptedClient("x" * 40, model="m", meter=meter)
    result = client.complete([ChatMessage("user", "y" * 80)])
    assert result.usage == Usage(prompt_tokens=20, completion_tokens=10)
    assert result.cost == pytest.approx(20 + 2 * 10)
    assert client.total_cost == pytest.approx(40)
    assert client.total_usage == Usage(20, 10)


def test_budget_is_checked_before_each_call() -> None:
    meter = CostMeter({"m": (1_000_000.0, 0.0)}, max_cost=5.0)
    client = ScriptedClient("a", "b", model="m", meter=meter)
    client.complete([ChatMessage("user", "z" * 40)])  # 10 tokens → $10, past the cap
    with pytest.raises(BudgetExceeded):
        client.complete(HELLO)
    assert len(client.requests) == 1
    assert client.remaining == 1
