"""OpenAIClient through the real openai SDK against FakeOpenAIServer on 127.0.0.1."""

from __future__ import annotations

import math
import socket
import subprocess
import sys
import time
from collections.abc import Callable

import pytest

from tddforge.config import Settings
from tddforge.errors import BudgetExceeded, ConfigError, LLMError
from tddforge.llm import ChatMessage, CostMeter, LLMClient, OpenAIClient, Usage, make_client
from tddforge.llm.fakeserver import FakeOpenAIServer

pytestmark = pytest.mark.integration

MakeClient = Callable[..., OpenAIClient]
HELLO = [ChatMessage("system", "be brief"), ChatMessage("user", "hello")]


def test_plain_reply(fake_server: FakeOpenAIServer, make_llm: MakeClient) -> None:
    fake_server.enqueue("hi there")
    client = make_llm()
    assert isinstance(client, LLMClient)
    result = client.complete(HELLO)
    assert result.text == "hi there"
    assert result.model == "gpt-4o"
    assert result.finish_reason == "stop"
    assert result.logprobs is None
    assert fake_server.requests[0]["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hello"},
    ]


def test_sends_sampling_settings_and_key(
    fake_server: FakeOpenAIServer, make_llm: MakeClient
) -> None:
    fake_server.enqueue("a").enqueue("b")
    make_llm(temperature=0.7, top_p=0.5, api_key="sk-test").complete(HELLO)
    make_llm().complete(HELLO)
    keyed, default = fake_server.requests
    assert (keyed["temperature"], keyed["top_p"]) == (0.7, 0.5)
    assert (default["temperature"], default["top_p"]) == (0.2, 0.95)
    assert "logprobs" not in keyed
    assert fake_server.authorizations == ["Bearer sk-test", "Bearer not-needed"]


def test_logprobs_requested_and_parsed(fake_server: FakeOpenAIServer, make_llm: MakeClient) -> None:
    quarter = math.log(0.25)
    fake_server.enqueue(
        "ab",
        logprobs=[("a", quarter), ("b", -0.1)],
        top_logprobs=[[("a", quarter), ("x", quarter), ("y", quarter), ("z", quarter)], []],
    )
    result = make_llm().complete(HELLO, logprobs=True)
    request = fake_server.requests[0]
    assert (request["logprobs"], request["top_logprobs"]) == (True, 5)
    assert result.logprobs is not None
    first, second = result.logprobs
    assert first.token == "a"
    assert first.logprob == pytest.approx(quarter)
    assert [token for token, _ in first.top] == ["a", "x", "y", "z"]
    assert (second.token, second.top) == ("b", ())


def test_logprobs_follow_settings_by_default(
    fake_server: FakeOpenAIServer, make_llm: MakeClient
) -> None:
    fake_server.enqueue("a", logprobs=[("a", -0.5)])
    result = make_llm(collect_logprobs=True).complete(HELLO)
    assert fake_server.requests[0]["logprobs"] is True
    assert result.logprobs is not None
    assert result.logprobs[0].top == (("a", -0.5),)


def test_usage_and_cost_from_price_table(
    fake_server: FakeOpenAIServer, make_llm: MakeClient
) -> None:
    fake_server.enqueue("a", usage=(1000, 200)).enqueue("b", usage=(10, 20))
    client = make_llm(prices={"gpt-4o": (2.0, 10.0)})
    first = client.complete(HELLO)
    client.complete(HELLO)
    assert first.usage == Usage(1000, 200)
    assert first.cost == pytest.approx((1000 * 2.0 + 200 * 10.0) / 1e6)
    assert client.total_usage == Usage(1010, 220)
    assert client.total_cost == pytest.approx((1010 * 2.0 + 220 * 10.0) / 1e6)


def test_missing_usage_and_empty_content(
    fake_server: FakeOpenAIServer, make_llm: MakeClient
) -> None:
    fake_server.enqueue("", omit_usage=True)
    client = make_llm()
    result = client.complete(HELLO)
    assert (result.text, result.usage, result.cost) == ("", Usage(), 0.0)
    assert "usage" not in fake_server.requests[0]


def test_rate_limit_honours_retry_after(
    fake_server: FakeOpenAIServer, make_llm: MakeClient, sleeps: list[float]
) -> None:
    fake_server.fail(429, retry_after=7).enqueue("finally")
    assert make_llm().complete(HELLO).text == "finally"
    assert sleeps == [7.0]
    assert len(fake_server.requests) == 2


def test_retry_after_is_capped(
    fake_server: FakeOpenAIServer, make_llm: MakeClient, sleeps: list[float]
) -> None:
    fake_server.fail(503, retry_after=3600).enqueue("ok")
    assert make_llm().complete(HELLO).text == "ok"
    assert sleeps == [60.0]


def test_server_error_then_success_backs_off(
    fake_server: FakeOpenAIServer, make_llm: MakeClient, sleeps: list[float]
) -> None:
    fake_server.fail(500).fail(502).enqueue("ok")
    assert make_llm().complete(HELLO).text == "ok"
    assert len(fake_server.requests) == 3
    assert len(sleeps) == 2
    assert 0.25 <= sleeps[0] <= 0.5  # base 0.5 s with jitter
    assert 0.5 <= sleeps[1] <= 1.0  # doubled


def test_retries_exhausted_is_retryable_error(
    fake_server: FakeOpenAIServer, make_llm: MakeClient, sleeps: list[float]
) -> None:
    for _ in range(3):
        fake_server.fail(500, message="overloaded")
    with pytest.raises(LLMError, match=r"overloaded.*gave up after 3 attempts") as info:
        make_llm(max_retries=2).complete(HELLO)
    assert (info.value.retryable, info.value.status) == (True, 500)
    assert len(fake_server.requests) == 3
    assert len(sleeps) == 2


def test_timeout_raises_quickly_after_retries(
    fake_server: FakeOpenAIServer, make_llm: MakeClient, sleeps: list[float]
) -> None:
    fake_server.delay(2).delay(2)
    started = time.monotonic()
    with pytest.raises(LLMError, match=r"did not answer within 0\.3 s") as info:
        make_llm(request_timeout=0.3, max_retries=1).complete(HELLO)
    assert time.monotonic() - started < 1.8
    assert info.value.retryable is True
    assert len(fake_server.requests) == 2
    assert len(sleeps) == 1


@pytest.mark.parametrize("failure", ["truncated", "invalid_json"])
def test_broken_body_is_retried(
    fake_server: FakeOpenAIServer, make_llm: MakeClient, failure: str
) -> None:
    getattr(fake_server, failure)()
    fake_server.enqueue("whole")
    assert make_llm().complete(HELLO).text == "whole"
    assert len(fake_server.requests) == 2


@pytest.mark.parametrize("failure", ["truncated", "invalid_json"])
def test_broken_body_becomes_retryable_error(
    fake_server: FakeOpenAIServer, make_llm: MakeClient, failure: str
) -> None:
    getattr(fake_server, failure)()
    with pytest.raises(LLMError, match=fake_server.base_url) as info:
        make_llm(max_retries=0).complete(HELLO)
    assert info.value.retryable is True


@pytest.mark.parametrize(
    ("status", "wording"),
    [
        (401, "refused the API key \\(401\\)"),
        (403, "denied access to 'gpt-4o' \\(403\\)"),
        (404, "has no model 'gpt-4o' \\(404\\)"),
        (400, "rejected the request \\(400\\): injected HTTP 400"),
    ],
)
def test_client_errors_are_not_retried(
    fake_server: FakeOpenAIServer,
    make_llm: MakeClient,
    sleeps: list[float],
    status: int,
    wording: str,
) -> None:
    fake_server.fail(status).enqueue("never served")
    with pytest.raises(LLMError, match=wording) as info:
        make_llm().complete(HELLO)
    assert (info.value.retryable, info.value.status) == (False, status)
    assert "\n" not in str(info.value)
    assert len(fake_server.requests) == 1
    assert sleeps == []


def test_unreachable_endpoint_names_the_url(sleeps: list[float]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    settings = Settings(model="m", base_url=url, max_retries=2, request_timeout=2)
    with (
        OpenAIClient(settings, sleep=sleeps.append) as client,
        pytest.raises(LLMError, match=f"connection to model endpoint {url} failed") as info,
    ):
        client.complete(HELLO)
    assert info.value.retryable is True
    assert len(sleeps) == 2


def test_budget_stops_calls_before_the_server(
    fake_server: FakeOpenAIServer, make_llm: MakeClient
) -> None:
    fake_server.enqueue("costly", usage=(1_000_000, 0)).enqueue("never served")
    meter = CostMeter({"gpt-4o": (1.0, 1.0)}, max_cost=0.5)
    client = make_llm(meter=meter)
    assert client.complete(HELLO).cost == pytest.approx(1.0)
    with pytest.raises(BudgetExceeded):
        client.complete(HELLO)
    assert len(fake_server.requests) == 1
    assert fake_server.pending == 1


def test_budget_from_settings(fake_server: FakeOpenAIServer, make_llm: MakeClient) -> None:
    fake_server.enqueue("a", usage=(400_000, 0))
    client = make_llm(max_cost=1.0)  # default gpt-4o price: $2.50 per Mtok in
    client.complete(HELLO)
    with pytest.raises(BudgetExceeded):
        client.complete(HELLO)
    assert len(fake_server.requests) == 1


def test_rules_answer_before_the_queue(fake_server: FakeOpenAIServer, make_llm: MakeClient) -> None:
    fake_server.add_rule(lambda body: "tests" in body["messages"][-1]["content"], "def test_x")
    fake_server.enqueue("queued")
    client = make_llm()
    assert client.complete([ChatMessage("user", "write tests")]).text == "def test_x"
    assert client.complete(HELLO).text == "queued"


def test_make_client_requires_a_model() -> None:
    with pytest.raises(ConfigError, match="no model configured"):
        make_client(Settings())


def test_make_client_builds_an_openai_client(fake_server: FakeOpenAIServer) -> None:
    fake_server.enqueue("made")
    client = make_client(Settings(model="m", base_url=fake_server.base_url))
    assert isinstance(client, OpenAIClient)
    with client:
        assert client.complete(HELLO).text == "made"


def test_importing_the_package_does_not_import_openai() -> None:
    code = "import sys, tddforge.llm; print('openai' in sys.modules, 'httpx2' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["False", "False"]
