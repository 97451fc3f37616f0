"""FakeOpenAIServer over plain HTTP (no SDK): shapes and loud failures."""

from __future__ import annotations

import http.client
import json
from typing import Any

import pytest

from tddforge.llm.fakeserver import FakeOpenAIServer

pytestmark = pytest.mark.integration


def call(server: FakeOpenAIServer, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    port = int(server.base_url.rsplit(":", 1)[1].split("/")[0])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        payload = None if body is None else json.dumps(body)
        conn.request(method, path, body=payload, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def test_completion_shape(fake_server: FakeOpenAIServer) -> None:
    fake_server.enqueue("hi", logprobs=[("hi", -0.25)], usage=(3, 1))
    status, data = call(fake_server, "POST", "/v1/chat/completions", {"model": "m", "messages": []})
    assert status == 200
    assert data["object"] == "chat.completion"
    assert data["model"] == "m"
    choice = data["choices"][0]
    assert choice["message"] == {"role": "assistant", "content": "hi"}
    token = choice["logprobs"]["content"][0]
    assert token["token"] == "hi"
    assert token["bytes"] == [104, 105]
    assert token["top_logprobs"][0]["logprob"] == -0.25
    assert data["usage"] == {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}


def test_unscripted_request_fails_loudly(fake_server: FakeOpenAIServer) -> None:
    status, data = call(fake_server, "POST", "/v1/chat/completions", {"messages": []})
    assert status == 500
    assert "script exhausted" in data["error"]["message"]


def test_models_and_unknown_routes(fake_server: FakeOpenAIServer) -> None:
    assert call(fake_server, "GET", "/v1/models")[1]["data"][0]["id"] == "fake-model"
    assert call(fake_server, "GET", "/v1/nothing")[0] == 404
    assert call(fake_server, "POST", "/v2/chat", {})[0] == 404


def test_base_url_needs_a_started_server() -> None:
    with pytest.raises(RuntimeError, match="not started"):
        _ = FakeOpenAIServer().base_url
