"""The RED agent: a spec in, test files out (the ``red`` prompts, through our LLM layer).

Two follow-ups, each asked at most once: ``red_repair`` when a reply carries no
file blocks, and ``red_spec_repair`` when the tests use a keyword, method or
attribute of a component that the spec does not declare
(``decisions.spec_conformance.check_tests``): the files the model sends back
replace those of the same path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tddforge import prompts
from tddforge.config import RedStageConfig
from tddforge.decisions.spec_conformance import check_tests
from tddforge.errors import BudgetExceeded, PathRefused
from tddforge.languages.python import format_rules
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
    #: The spec mismatches sent back to the model for repair (empty: none were found).
    sent_mismatches: tuple[str, ...] = ()


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
            "formatting": format_rules(self.project),
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
        if reply.blocks and not reply.stopped and self.repairs:
            self._repair_mismatches(spec, reply)
        return reply

    def _repair_mismatches(self, spec: Spec, reply: RedReply) -> None:
        """Send the tests' uses the spec does not declare back once; take the files sent back."""
        found = check_tests(spec, {b.path.rel: b.content for b in reply.blocks})
        if not found:
            return
        reply.sent_mismatches = tuple(m.message for m in found)
        request = prompts.render(
            "red_spec_repair",
            "user",
            mismatches=list(reply.sent_mismatches),
            test_directory=self.config.test_directory,
        )
        try:
            completion = self.llm.complete([*reply.transcript, ChatMessage("user", request)])
        except BudgetExceeded as exc:
            reply.stopped = f"{BUDGET}: {exc}"  # the request was not made: the files stay
            return
        reply.completions.append(completion)
        reply.transcript += [
            ChatMessage("user", request),
            ChatMessage("assistant", completion.text),
        ]
        parsed = parse_file_blocks(completion.text, self.project)
        reply.refused += parsed.refused
        if not parsed.blocks:
            problems = "; ".join(parsed.problems) or "no ### FILE: blocks"
            reply.problems += (f"the reply to the spec mismatches was not used ({problems})",)
            return
        files = {b.path.rel: b for b in reply.blocks}
        files.update((b.path.rel, b) for b in parsed.blocks)
        reply.blocks = tuple(files.values())
