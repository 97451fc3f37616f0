from __future__ import annotations

import pytest

from tddforge.agents.red import RedAgent
from tddforge.config import RedStageConfig
from tddforge.errors import LLMError
from tddforge.llm import ScriptedClient
from tddforge.spec import Spec

SPEC = Spec.model_validate(
    {
        "spec_id": "S",
        "components": [{"name": "calc", "file_path": "calc.py"}],
        "test_cases": [{"id": "TC001", "component": "calc"}],
    }
)
GOOD = "### FILE: tests/test_calc.py\n```python\ndef test_tc001():\n    assert False\n```\n"


def test_reply_with_blocks_needs_one_call() -> None:
    llm = ScriptedClient().enqueue(GOOD)
    reply = RedAgent(llm, RedStageConfig()).generate(SPEC)
    assert [b.path for b in reply.blocks] == ["tests/test_calc.py"]
    assert len(llm.requests) == 1
    system, user = llm.requests[0]
    assert system.role == "system" and "Test-Driven Development" in system.content
    assert "TC001" in user.content


def test_reply_without_blocks_is_asked_again_once() -> None:
    llm = ScriptedClient().enqueue("Sorry, here is some prose.", GOOD)
    reply = RedAgent(llm, RedStageConfig()).generate(SPEC)
    assert len(reply.blocks) == 1
    assert len(llm.requests) == 2
    assert "no usable test files" in llm.requests[1][-1].content
    assert llm.requests[1][-2].content == "Sorry, here is some prose."


def test_two_replies_without_blocks_give_no_files() -> None:
    llm = ScriptedClient().enqueue("prose", "more prose")
    reply = RedAgent(llm, RedStageConfig()).generate(SPEC)
    assert reply.blocks == ()
    assert len(reply.completions) == 2


def test_llm_errors_propagate() -> None:
    llm = ScriptedClient()
    with pytest.raises(LLMError):
        RedAgent(llm, RedStageConfig()).generate(SPEC)
