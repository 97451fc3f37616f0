"""Fixtures for driving the real openai SDK against the loopback fake server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tddforge.config import Settings
from tddforge.llm import CostMeter, OpenAIClient
from tddforge.llm.fakeserver import FakeOpenAIServer

MakeClient = Callable[..., OpenAIClient]


@pytest.fixture
def fake_server() -> Iterator[FakeOpenAIServer]:
    """A started FakeOpenAIServer on 127.0.0.1, closed after the test."""
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def sleeps() -> list[float]:
    """Records the waits a client asks for instead of sleeping."""
    return []


@pytest.fixture
def make_llm(fake_server: FakeOpenAIServer, sleeps: list[float]) -> Iterator[MakeClient]:
    """Build OpenAIClients pointed at ``fake_server``; keyword args override Settings."""
    clients: list[OpenAIClient] = []

    def make(meter: CostMeter | None = None, **overrides: Any) -> OpenAIClient:
        values: dict[str, Any] = {"model": "gpt-4o", "base_url": fake_server.base_url}
        settings = Settings(**{**values, **overrides})
        client = OpenAIClient(settings, meter, sleep=sleeps.append)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
