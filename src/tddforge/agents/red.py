"""The RED agent: a spec in, test files out (the ``red`` prompts, through our LLM layer)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tddforge import prompts
from tddforge.config import RedStageConfig
from tddforge.errors import BudgetExceeded, PathRefused
from tddforge.llm.base import ChatMessage, Completion, LLMClient
from tddforge.outcome import BUDGET
from tddforge.spec import Spec
from tddforge.workspace.fileblocks import FileBlock, parse_file_blocks


@dataclass
class RedReply:
    """The files a RED agent produced, with the exchanges that produced them."""

    blocks: tuple[FileBlock, ...] = ()
    problems: tuple[str, ...] = ()
    refused: tuple[PathRefused, ...] = ()  # paths the gate refused: never written
    transcript: list[ChatMessage] = field(default_factory=list)
    completions: list[Completion] = field(default_factory=list)
    #: Why the agent stopped asking early (the max-cost cap), or "".
    stopped: str = ""


class RedAgent:
    """Asks the model for test files for ``project``; asks once more if the reply carries none."""

    def __init__(
        self, llm: LLMClient, config: RedStageConfig, project: Path, *, repairs: int = 1
    ) -> None:
        self.llm = llm
        self.config = config
        self.project = project
        self.repairs = repairs

    def messages(self, spec: Spec) -> list[ChatMessage]:
        """The system and user messages for ``spec``."""
        variables = {
            "spec": spec,
            "framework": "pytest",
            "test_directory": self.config.test_directory,
            "include_edge_cases": self.config.include_edge_cases,
            "tests_per_component": self.config.tests_per_component,
        }
        return [
            ChatMessage("system", prompts.render("red", "system", **variables)),
            ChatMessage("user", prompts.render("red", "user", **variables)),
        ]

    def generate(self, spec: Spec) -> RedReply:
        """Return the test files the model wrote for ``spec``."""
        reply = RedReply(transcript=self.messages(spec))
        for attempt in range(self.repairs + 1):
            if attempt:
                repair = prompts.render(
                    "red_repair",
                    "user",
                    problems=list(reply.problems),
                    test_directory=self.config.test_directory,
                )
                reply.transcript.append(ChatMessage("user", repair))
            try:
                completion = self.llm.complete(reply.transcript)
            except BudgetExceeded as exc:
                if not attempt:
                    raise  # nothing was asked yet: the cap allows no call at all
                reply.stopped = f"{BUDGET}: {exc}"  # the repair request is not made
                break
            reply.completions.append(completion)
            reply.transcript.append(ChatMessage("assistant", completion.text))
            parsed = parse_file_blocks(completion.text, self.project)
            reply.blocks, reply.problems = parsed.blocks, parsed.problems
            reply.refused = parsed.refused
            if reply.blocks or reply.refused:
                break
        return reply
