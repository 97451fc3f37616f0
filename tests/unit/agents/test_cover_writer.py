"""The cover loop's LLM writer: code extraction, guardrails, the Generator and Enhancer prompts."""

from __future__ import annotations

import pytest

from tddforge.agents.cover import LLMSuiteGenerator, extract_code, guardrails
from tddforge.config import Settings
from tddforge.cover_contract import CoverTarget
from tddforge.llm import ScriptedClient


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        ("def test_a():\n    assert 1\n", "def test_a():\n    assert 1\n"),
        (
            "Here:\n```python\ndef test_a():\n    assert 1\n```\nDone.",
            "def test_a():\n    assert 1\n",
        ),
        ("```\nx = 1\n```", "x = 1\n"),
        ("```py\nshort\n```\n```python\nlonger = 1\n```", "longer = 1\n"),
    ],
)
def test_extract_code_accepts_raw_and_fenced(reply: str, code: str) -> None:
    assert extract_code(reply) == code


def test_guardrails_follow_the_framework() -> None:
    assert guardrails("pytest", "calc")[0].startswith("Pytest-style functions")
    assert "Do NOT import pytest" in guardrails("unittest", "calc")[0]
    assert len(guardrails("unittest", "django")) == 5


def test_llm_generator_uses_the_seed_prompts() -> None:
    client = ScriptedClient(
        "```python\ndef test_a():\n    assert 1\n```", "def test_b():\n    assert 2\n"
    )
    target = CoverTarget(
        project=__import__("pathlib").Path("."),
        module_rel="calc.py",
        import_name="calc",
        source="def f():\n    return 1\n",
        framework="unittest",
        test_path="tests/test_calc.py",
        repo="calc",
        version="1.0",
    )
    writer = LLMSuiteGenerator(client, Settings())
    assert writer.generate(target).code == "def test_a():\n    assert 1\n"
    revised = writer.enhance(
        target, "def test_a():\n    assert 1\n", "- Add coverage for lines: 2."
    )
    assert revised.code == "def test_b():\n    assert 2\n"
    first, second = (r[1].content for r in client.requests)
    assert "You MUST generate tests using Python's built-in unittest framework." in first
    assert "Target file: calc.py" in first and "import the file under test as `calc`" in first
    assert "Instructions:\n- Add coverage for lines: 2." in second
    assert "Current test suite:\ndef test_a():" in second
