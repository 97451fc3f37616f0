"""The cover loop's LLM writer: code extraction, guardrails, the Generator and Enhancer prompts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tddforge.agents.cover import (
    LLMSuiteGenerator,
    equivalence_claims,
    extract_code,
    guardrails,
)
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
    assert guardrails("pytest", "calc")[2].startswith("Avoid filesystem or network")
    assert "temporary directory" in guardrails("pytest", "calc", ("open()",))[2]


def test_llm_generator_uses_the_seed_prompts() -> None:
    client = ScriptedClient(
        "```python\ndef test_a():\n    assert 1\n```", "def test_b():\n    assert 2\n"
    )
    calc = CoverTarget(
        project=Path("."),
        module_rel="calc.py",
        import_name="calc",
        source="def f():\n    return 1\n",
        framework="unittest",
        test_path="tests/test_calc.py",
        repo="calc",
        version="1.0",
    )
    writer = LLMSuiteGenerator(client, Settings())
    assert writer.generate(calc).code == "def test_a():\n    assert 1\n"
    revised = writer.enhance(calc, "def test_a():\n    assert 1\n", "- Add coverage for lines: 2.")
    assert revised.code == "def test_b():\n    assert 2\n"
    first, second = (r[1].content for r in client.requests)
    assert "You MUST generate tests using Python's built-in unittest framework." in first
    assert "Target file: calc.py" in first and "import the file under test as `calc`" in first
    assert "Instructions:\n- Add coverage for lines: 2." in second
    assert "Current test suite:\ndef test_a():" in second


CLAIM_ID = "arithmetic@12:8#0a1b2c3d"


@pytest.mark.parametrize(
    ("reply", "claims", "code"),
    [
        (
            f"```python\ndef test_a():\n    assert 1\n```\nEQUIVALENT: {CLAIM_ID}: n is never 0\n",
            [(CLAIM_ID, "n is never 0")],
            "def test_a():\n    assert 1\n",
        ),
        (  # raw code: the claim lines leave the code
            f"def test_a():\n    assert 1\n\nEQUIVALENT: {CLAIM_ID}: same result\n",
            [(CLAIM_ID, "same result")],
            "def test_a():\n    assert 1\n",
        ),
        (  # as a comment, with the id in brackets or backticks
            f"# EQUIVALENT: [{CLAIM_ID}]: dead branch\ndef test_a():\n    assert 1\n"
            "EQUIVALENT: `number@3:4#ffffffff`: `x` is 1 at most\n",
            [(CLAIM_ID, "dead branch"), ("number@3:4#ffffffff", "x` is 1 at most")],
            "def test_a():\n    assert 1\n",
        ),
        (f"EQUIVALENT: {CLAIM_ID}\n", [(CLAIM_ID, "(no reason given)")], "\n"),
        (
            "def test_a():\n    assert 'EQUIVALENT: x'\n",
            [],
            "def test_a():\n    assert 'EQUIVALENT: x'\n",
        ),
    ],
)
def test_equivalence_claims_are_read_and_leave_the_code(
    reply: str, claims: list[tuple[str, str]], code: str
) -> None:
    assert [(c.mutant_id, c.reason) for c in equivalence_claims(reply)] == claims
    assert extract_code(reply) == code


def test_an_enhancer_reply_returns_its_claims() -> None:
    client = ScriptedClient(f"def test_b():\n    assert 2\n\nEQUIVALENT: {CLAIM_ID}: why\n")
    suite = LLMSuiteGenerator(client, Settings()).enhance(target(), "x = 1\n", "- Do it.")
    assert suite.code == "def test_b():\n    assert 2\n"
    assert [(c.mutant_id, c.reason) for c in suite.claims] == [(CLAIM_ID, "why")]


def target(source: str = "def f():\n    return 1\n", **changes: object) -> CoverTarget:
    base = CoverTarget(
        project=Path("."),
        module_rel="calc.py",
        import_name="calc",
        source=source,
        framework="pytest",
        test_path="tests/test_calc_tddforge.py",
        repo="calc",
        version="1.0",
    )
    return replace(base, **changes)  # type: ignore[arg-type]


FILESYSTEM_WORDS = ("tmp_path", "TemporaryDirectory", "real filesystem", "pathlib.Path")


@pytest.mark.parametrize("framework", ["pytest", "unittest", "django"])
def test_a_module_without_file_io_gets_no_filesystem_rules(framework: str) -> None:
    client = ScriptedClient("def test_a():\n    assert 1\n")
    LLMSuiteGenerator(client, Settings()).generate(target(framework=framework))
    prompt = client.requests[0][1].content
    assert not [word for word in FILESYSTEM_WORDS if word in prompt]
    assert "does not touch the file system" in prompt


def test_a_module_with_file_io_gets_the_filesystem_rules() -> None:
    source = "from pathlib import Path\n\ndef size(p):\n    return Path(p).stat().st_size\n"
    client = ScriptedClient("def test_a():\n    assert 1\n", "def test_a():\n    assert 1\n")
    writer = LLMSuiteGenerator(client, Settings())
    writer.generate(target(source))
    writer.enhance(target(source), "def test_a():\n    assert 1\n", "- Do it.")
    generator, enhancer = (r[1].content for r in client.requests)
    assert "Use the tmp_path fixture for real filesystem testing" in generator
    assert "tempfile.TemporaryDirectory()" in generator
    assert "the module works with files, so use real ones in a temporary directory" in enhancer
    assert "Avoid filesystem" not in enhancer


def test_both_prompts_give_the_test_path_and_the_targets() -> None:
    settings = Settings(cover={"coverage_target": 85.5, "mutation_target": 70})
    client = ScriptedClient("def test_a():\n    assert 1\n", "def test_a():\n    assert 1\n")
    writer = LLMSuiteGenerator(client, settings)
    writer.generate(target())
    writer.enhance(target(), "def test_a():\n    assert 1\n", "- Do it.")
    for request in client.requests:
        prompt = request[1].content
        assert "Test file: tests/test_calc_tddforge.py (the whole module you write" in prompt
        assert "Targets: coverage of at least 85.5% (lines and branches)" in prompt
        assert "a mutation score of at least 70% (the share of small changes" in prompt


def test_the_prompts_show_what_the_module_imports_from_its_own_package(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("")
    (tmp_path / "pkg/_structures.py").write_text(
        "class InfinityType:\n    def __lt__(self, other):\n        return False\n\n\n"
        "Infinity = InfinityType()\n"
    )
    source = "from ._structures import Infinity\n\n\ndef key(v):\n    return (v, Infinity)\n"
    (tmp_path / "pkg/version.py").write_text(source)
    here = target(source, project=tmp_path, module_rel="pkg/version.py", import_name="pkg.version")
    client = ScriptedClient("def test_a():\n    assert 1\n", "def test_a():\n    assert 1\n")
    writer = LLMSuiteGenerator(client, Settings())
    writer.generate(here)
    writer.enhance(here, "def test_a():\n    assert 1\n", "- Do it.")
    for request in client.requests:
        prompt = request[1].content
        assert "The file under test imports these from its own package" in prompt
        assert "# pkg/_structures.py: Infinity\nInfinity = InfinityType()" in prompt
        assert "class InfinityType" not in prompt  # only the names imported


def test_the_enhancer_asks_for_equivalent_lines_only_when_mutants_are_shown() -> None:
    client = ScriptedClient("x = 1\n", "x = 1\n")
    writer = LLMSuiteGenerator(client, Settings())
    writer.enhance(target(), "x = 1\n", "- Add coverage for lines: 2.")
    writer.enhance(target(), "x = 1\n", "- ... add a line `EQUIVALENT: <mutant id>: <reason>`")
    plain, with_mutants = (r[1].content for r in client.requests)
    assert plain.rstrip().endswith(
        "Return only the revised Python test module (plain code, no markdown)."
    )
    assert with_mutants.rstrip().endswith(
        "(plain code, no markdown), then any EQUIVALENT lines on their own after it."
    )
