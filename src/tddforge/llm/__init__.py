"""The LLM layer: the ``LLMClient`` protocol and its implementations.

``OpenAIClient`` imports the ``openai`` SDK only when built. The loopback test
server lives in ``tddforge.llm.fakeserver`` and is not re-exported here.
"""

from __future__ import annotations

from tddforge.llm.base import ChatMessage as ChatMessage
from tddforge.llm.base import Completion as Completion
from tddforge.llm.base import CostMeter as CostMeter
from tddforge.llm.base import LLMClient as LLMClient
from tddforge.llm.base import TokenLogprob as TokenLogprob
from tddforge.llm.base import Usage as Usage
from tddforge.llm.base import system_user as system_user
from tddforge.llm.entropy import mean_token_entropy as mean_token_entropy
from tddforge.llm.factory import make_client as make_client
from tddforge.llm.openai_client import OpenAIClient as OpenAIClient
from tddforge.llm.scripted import ScriptedClient as ScriptedClient

__all__ = [
    "ChatMessage",
    "Completion",
    "CostMeter",
    "LLMClient",
    "OpenAIClient",
    "ScriptedClient",
    "TokenLogprob",
    "Usage",
    "make_client",
    "mean_token_entropy",
    "system_user",
]
