"""A kata agent's conventions line: the runner's, unless its caller's tests differ."""

from __future__ import annotations

import sys
from pathlib import Path

from tddforge.agents.implementer import ImplementerAgent
from tddforge.agents.refactorer import RefactorerAgent
from tddforge.languages.python import PythonRunner
from tddforge.llm import ScriptedClient


def test_the_runners_conventions_by_default(tmp_path: Path) -> None:
    runner = PythonRunner(Path(sys.executable))
    system = ImplementerAgent(ScriptedClient(), tmp_path, runner).get_system_prompt()
    assert f"- {runner.prompt_facts()['conventions']}\n" in system


def test_a_caller_tells_its_own_conventions(tmp_path: Path) -> None:
    runner = PythonRunner(Path(sys.executable))
    for agent in (ImplementerAgent, RefactorerAgent):
        system = agent(
            ScriptedClient(), tmp_path, runner, conventions="The tests use classes."
        ).get_system_prompt()
        assert "- The tests use classes.\n" in system
        assert "plain pytest functions" not in system
