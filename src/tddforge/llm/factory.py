"""Building the configured client without importing the SDK until one is needed."""

from __future__ import annotations

from tddforge.config import Settings
from tddforge.errors import ConfigError
from tddforge.llm.base import CostMeter, LLMClient
from tddforge.llm.openai_client import NO_MODEL, OpenAIClient


def make_client(settings: Settings, meter: CostMeter | None = None) -> LLMClient:
    """The openai-compatible client for ``settings``; ``ConfigError`` when no model is set."""
    if not settings.llm_configured:
        raise ConfigError(NO_MODEL)
    return OpenAIClient(settings, meter)
