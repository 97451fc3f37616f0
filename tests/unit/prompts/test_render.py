from __future__ import annotations

import jinja2
import pytest

from tddforge import prompts
from tddforge.agents.base import AgentContext
from tddforge.config import RedStageConfig
from tddforge.errors import TddforgeError
from tddforge.spec import Spec

SPEC = Spec.model_validate(
    {
        "spec_id": "SPEC-1",
        "title": "Calc",
        "components": [
            {
                "name": "Calculator",
                "file_path": "calc.py",
                "interface": {
                    "methods": [{"signature": "add(a, b) -> int", "description": "Sum."}]
                },
            }
        ],
        "test_cases": [{"id": "TC001", "component": "Calculator", "given": "2 and 3", "then": "5"}],
        "acceptance_criteria": ["Adds integers"],
    }
)

COVER_CONTEXT = {
    "test_path": "tests/test_calc_tddforge.py",
    "coverage_target": 60.0,
    "mutation_target": 50.0,
    "io": "",
    "definitions": [{"name": "ONE", "path": "consts.py", "source": "ONE = 1", "cut": False}],
    "definitions_left_out": ["TWO"],
}

# Sample variables for every template; a new template must get an entry here.
VARIABLES = {
    "red": {
        "spec": SPEC,
        "framework": "pytest",
        "test_directory": "tests",
        "include_edge_cases": True,
        "tests_per_component": RedStageConfig().tests_per_component,
        "formatting": "Format code as `ruff format` does here (line length 100).",
    },
    "red_repair": {"problems": ["no fence"], "test_directory": "tests"},
    "red_spec_repair": {
        "mismatches": ["tests/t.py:3: Calculator.sub() is not in the spec's interface"],
        "test_directory": "tests",
    },
    "cover_generator": {
        "repo": "calc",
        "version": "1.0",
        "code_file": "calc.py",
        "code_src": "def f():\n    return 1\n",
        "framework": "unittest",
        "import_name": "calc",
        **COVER_CONTEXT,
    },
    "cover_enhancer": {
        "repo": "calc",
        "version": "1.0",
        "code_file": "calc.py",
        "code_src": "def f():\n    return 1\n",
        "import_name": "calc",
        **COVER_CONTEXT,
        "guardrails": ["Keep the existing imports."],
        "current_test_src": "def test_f():\n    assert f() == 1\n",
        "instruction_block": "- Add coverage for lines: 2.",
    },
    **{
        agent: {
            "role": agent.capitalize(),
            "language": "Python",
            "test_framework": "pytest",
            "conventions": "Tests live in tests/.",
            "task": "kata",
            "ctx": AgentContext(
                kata_description="# FizzBuzz",
                codebase_files={"fizzbuzz.py": "def fizzbuzz(n):\n    return str(n)\n"},
                recent_commits=["abc123 green(cycle 1): returns number"],
                last_test_output="1 failed",
                cycle_number=2,
                max_cycles=10,
                retry_attempt=1,
                last_error="NameError: x",
                hints=["Already works: fizz"],
            ),
        }
        for agent in ("tester", "implementer", "refactorer")
    },
}


def test_every_template_has_sample_variables() -> None:
    assert sorted(VARIABLES) == prompts.agent_names()


@pytest.mark.parametrize("agent", prompts.agent_names())
@pytest.mark.parametrize("part", ["system", "user"])
def test_every_template_renders(agent: str, part: str) -> None:
    text = prompts.render(agent, part, **VARIABLES[agent])
    assert text.strip()
    assert "{{" not in text and "{%" not in text


def test_red_user_prompt_carries_the_spec() -> None:
    text = prompts.render("red", "user", **VARIABLES["red"])
    for expected in (
        "SPEC ID: SPEC-1",
        "### Calculator",
        "add(a, b) -> int",
        "### TC001",
        "- Adds integers",
    ):
        assert expected in text
    assert "### FILE: tests/test_component_name.py" in text


def test_missing_variable_is_an_error_not_an_empty_prompt() -> None:
    with pytest.raises((TddforgeError, jinja2.UndefinedError)):
        prompts.render("red", "user", spec=SPEC)


def test_unknown_block_is_reported() -> None:
    with pytest.raises(TddforgeError, match="no block"):
        prompts.render("red", "nope")


@pytest.mark.parametrize(
    ("agent", "role"),
    [("tester", "Tester"), ("implementer", "Implementer"), ("refactorer", "Refactorer")],
)
def test_kata_prompts_follow_the_seed_template(agent: str, role: str) -> None:
    system = prompts.render(agent, "system", **VARIABLES[agent])
    article = "an" if role[0] in "AEIOU" else "a"
    assert system.startswith(f"You are {article} {role} agent in an autonomous TDD system.")
    for heading in (
        "**Your Role**",
        "**Responsibilities**",
        "**Constraints**",
        "**Available Tools**",
        "**Output Format**",
        "**Success Criteria**",
    ):
        assert heading in system
    user = prompts.render(agent, "user", **VARIABLES[agent])
    for heading in (
        "# Kata Description",
        "Cycle 2 of 10",
        "# Recent Commits",
        "# Current Codebase",
        "fizzbuzz.py",
        "# Last Test Output",
        "1 failed",
        "# Your Task",
        "NameError: x",
    ):
        assert heading in user


def test_tester_is_told_what_already_works() -> None:
    assert "Already works: fizz" in prompts.render("tester", "user", **VARIABLES["tester"])
