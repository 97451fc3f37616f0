from __future__ import annotations

from pathlib import Path

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


def test_reply_with_blocks_needs_one_call(tmp_path: Path) -> None:
    llm = ScriptedClient().enqueue(GOOD)
    reply = RedAgent(llm, RedStageConfig(), tmp_path).generate(SPEC)
    assert [b.path.rel for b in reply.blocks] == ["tests/test_calc.py"]
    assert len(llm.requests) == 1
    system, user = llm.requests[0]
    assert system.role == "system" and "Test-Driven Development" in system.content
    assert "TC001" in user.content


def test_reply_without_blocks_is_asked_again_once(tmp_path: Path) -> None:
    llm = ScriptedClient().enqueue("Sorry, here is some prose.", GOOD)
    reply = RedAgent(llm, RedStageConfig(), tmp_path).generate(SPEC)
    assert len(reply.blocks) == 1
    assert len(llm.requests) == 2
    assert "no usable test files" in llm.requests[1][-1].content
    assert llm.requests[1][-2].content == "Sorry, here is some prose."


def test_two_replies_without_blocks_give_no_files(tmp_path: Path) -> None:
    llm = ScriptedClient().enqueue("prose", "more prose")
    reply = RedAgent(llm, RedStageConfig(), tmp_path).generate(SPEC)
    assert reply.blocks == ()
    assert len(reply.completions) == 2


def test_llm_errors_propagate(tmp_path: Path) -> None:
    llm = ScriptedClient()
    with pytest.raises(LLMError):
        RedAgent(llm, RedStageConfig(), tmp_path).generate(SPEC)


def test_a_reply_whose_only_paths_are_refused_is_not_asked_again(tmp_path: Path) -> None:
    bad = GOOD.replace("tests/test_calc.py", "tests/../../x/test_calc.py")
    llm = ScriptedClient().enqueue(bad)
    reply = RedAgent(llm, RedStageConfig(), tmp_path).generate(SPEC)
    assert reply.blocks == ()
    assert [r.path for r in reply.refused] == ["tests/../../x/test_calc.py"]
    assert len(llm.requests) == 1


RATE_SPEC = Path(__file__).resolve().parents[2] / "data" / "specs" / "ratelimit.yaml"


def test_the_prompt_carries_each_components_whole_interface(tmp_path: Path) -> None:
    from tddforge.spec import load_spec

    user = (
        RedAgent(ScriptedClient(), RedStageConfig(), tmp_path)
        .messages(load_spec(RATE_SPEC))[1]
        .content
    )
    bucket = user[user.index("### TokenBucket") : user.index("### RateLimiter")]
    limiter = user[user.index("### RateLimiter") : user.index("TEST CASES FROM SPEC")]
    assert "Module: ratelimit.bucket" in bucket
    assert (
        "Constructor:\n  - TokenBucket(capacity: int, refill_per_second: float,"
        " clock: Callable[[], float])\n    Starts full" in bucket
    )
    assert "  - try_take(tokens: int = 1) -> bool\n" in bucket
    assert "Attributes:\n  - capacity: int\n    The most tokens the bucket holds." in bucket
    assert "Errors:\n  - ValueError: raised by the constructor when capacity < 1" in bucket
    assert "RateLimiter(capacity: int, refill_per_second: float" in limiter
    assert "Errors:\n  - RateLimitExceeded: raised by acquire; its retry_after" in limiter
    assert "Exports: RateLimitExceeded" in limiter


def test_the_prompt_keeps_fields_the_format_does_not_name(tmp_path: Path) -> None:
    spec = Spec.model_validate(
        {
            "spec_id": "S",
            "components": [
                {
                    "name": "Clock",
                    "thread_safe": True,
                    "interface": {
                        "methods": [{"signature": "now() -> float", "raises": ["Stopped"]}],
                        "events": ["tick"],
                    },
                }
            ],
            "test_cases": [{"id": "TC001", "component": "Clock"}],
        }
    )
    user = RedAgent(ScriptedClient(), RedStageConfig(), tmp_path).messages(spec)[1].content
    assert '  - now() -> float\n    raises: ["Stopped"]\n' in user
    assert 'Also in the spec:\n  thread_safe: true\n  events: ["tick"]\n' in user


BUCKET = Spec.model_validate(
    {
        "spec_id": "S",
        "components": [
            {
                "name": "Bucket",
                "type": "class",
                "file_path": "bucket.py",
                "interface": {"constructor": "Bucket(capacity: int, refill_per_second: float)"},
            }
        ],
        "test_cases": [{"id": "TC001", "component": "Bucket"}],
    }
)
GUESSED = (
    "### FILE: tests/test_bucket.py\n```python\ndef test_tc001():\n"
    "    from bucket import Bucket\n\n    assert Bucket(5, refill_rate=1)\n```\n"
    "### FILE: tests/test_other.py\n```python\ndef test_tc001_other():\n    assert False\n```\n"
)
FIXED = GUESSED.split("### FILE: tests/test_other.py")[0].replace(
    "refill_rate", "refill_per_second"
)


def test_uses_the_spec_does_not_declare_are_sent_back_once(tmp_path: Path) -> None:
    llm = ScriptedClient().enqueue(GUESSED, FIXED)
    reply = RedAgent(llm, RedStageConfig(), tmp_path).generate(BUCKET)
    assert len(llm.requests) == 2
    repair = llm.requests[1][-1].content
    assert "tests/test_bucket.py:4: Bucket(refill_rate=...)" in repair
    assert "(spec: Bucket(capacity: int, refill_per_second: float))" in repair
    assert llm.requests[1][-2].content == GUESSED  # the model sees the files it wrote
    assert reply.sent_mismatches == (repair.split("\n- ")[1].split("\n")[0],)
    files = {b.path.rel: b.content for b in reply.blocks}
    assert list(files) == ["tests/test_bucket.py", "tests/test_other.py"]  # the other one stays
    assert "Bucket(5, refill_per_second=1)" in files["tests/test_bucket.py"]
    assert [m.role for m in reply.transcript] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
    ]


def test_tests_that_match_the_spec_need_no_repair(tmp_path: Path) -> None:
    llm = ScriptedClient().enqueue(FIXED)
    reply = RedAgent(llm, RedStageConfig(), tmp_path).generate(BUCKET)
    assert len(llm.requests) == 1 and reply.sent_mismatches == ()


def test_a_repair_that_still_mismatches_is_not_sent_back_again(tmp_path: Path) -> None:
    llm = ScriptedClient().enqueue(GUESSED, GUESSED.replace("refill_rate", "rate"))
    reply = RedAgent(llm, RedStageConfig(), tmp_path).generate(BUCKET)
    assert len(llm.requests) == 2
    assert "Bucket(5, rate=1)" in reply.blocks[0].content


def test_a_repair_without_files_keeps_the_first_files(tmp_path: Path) -> None:
    llm = ScriptedClient().enqueue(GUESSED, "The tests are right as they are.")
    reply = RedAgent(llm, RedStageConfig(), tmp_path).generate(BUCKET)
    assert "refill_rate" in reply.blocks[0].content
    assert reply.problems and "spec mismatches was not used" in reply.problems[-1]


def test_the_cost_cap_stops_before_the_mismatch_repair(tmp_path: Path) -> None:
    from tddforge.errors import BudgetExceeded

    llm = ScriptedClient().enqueue(GUESSED, BudgetExceeded("spent 1.0 of 1.0"))
    reply = RedAgent(llm, RedStageConfig(), tmp_path).generate(BUCKET)
    assert reply.stopped.startswith("budget")
    assert "refill_rate" in reply.blocks[0].content
    assert [m.role for m in reply.transcript] == ["system", "user", "assistant"]
