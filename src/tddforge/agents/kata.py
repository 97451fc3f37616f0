"""What the three kata agents share: prompts, file writes, git, and the quality gates.

The gates run in the order format (auto-fix, then the tests again if it changed
anything) → lint → tests → build, on the files changed since the last commit.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tddforge import prompts
from tddforge.agents.base import (
    Agent,
    AgentContext,
    AgentResult,
    clarification_asked,
    parse_status_block,
)
from tddforge.languages.base import GateResult, LanguageRunner, TestReport
from tddforge.llm.base import LLMClient
from tddforge.workspace.fileblocks import ParsedReply, parse_file_blocks
from tddforge.workspace.git import Git, commit_message
from tddforge.workspace.paths import WriteReport, write_blocks

OUTPUT_IN_ERROR = 3_000


@dataclass
class Reply:
    """One parsed model reply."""

    text: str
    parsed: ParsedReply


@dataclass(frozen=True)
class GateRun:
    """The gates' results and the test report the run ended with."""

    gates: tuple[GateResult, ...]
    report: TestReport

    @property
    def failed(self) -> list[str]:
        """Names of the gates that failed (the tests gate included)."""
        return [g.name for g in self.gates if not g.ok]

    def statuses(self) -> dict[str, str]:
        """Gate name → status."""
        return {g.name: g.status for g in self.gates}

    def failure_output(self) -> str:
        """The output of the failed gates, for the agent's next attempt."""
        return "\n\n".join(f"[{g.name}]\n{g.output}" for g in self.gates if not g.ok)


class KataAgent(Agent):
    """An agent that works on a project through a ``LanguageRunner`` and git."""

    template: str

    def __init__(
        self,
        llm: LLMClient,
        work_dir: Path,
        runner: LanguageRunner,
        *,
        conventions: str | None = None,
        task: Literal["kata", "spec"] = "kata",
    ) -> None:
        super().__init__(llm, work_dir)
        self.runner = runner
        self.git = Git(work_dir)
        #: The prompts' conventions line, when the caller's tests differ from the kata's.
        self.conventions = conventions
        #: What the agent works from: a kata (one test per cycle) or a spec (build's stages).
        self.task = task

    def get_system_prompt(self) -> str:
        """The role's system prompt, worded for the runner's language."""
        return prompts.render(self.template, "system", role=self.role.value, **self._facts())

    def _build_user_prompt(self, context: AgentContext) -> str:
        return prompts.render(self.template, "user", ctx=context, **self._facts())

    def _facts(self) -> dict[str, str]:
        facts = {"conventions": "", "task": self.task}
        facts.update(self.runner.prompt_facts())
        if self.conventions is not None:
            facts["conventions"] = self.conventions
        return facts

    def _ask(self, context: AgentContext) -> Reply:
        text = self._run_llm(context)
        return Reply(text, parse_file_blocks(text, self.work_dir))

    def _write(self, reply: Reply) -> WriteReport:
        """Write the reply's files; the report's ``undo()`` is how an attempt is reverted."""
        return write_blocks(reply.parsed.blocks)

    def _parse_problems(self, reply: Reply) -> str:
        """Why no file came out of ``reply``, quoted for the next attempt."""
        return "; ".join(reply.parsed.problems) or (
            "no file block found: write each file as a `### FILE: <relative path>` line"
            " followed by a fenced code block holding the whole file"
        )

    def _asked_back(self, reply: Reply) -> AgentResult | None:
        """A reply that writes no file and asks ``CLARIFICATION_NEEDED: ...``: the question."""
        question = None if reply.parsed.blocks else clarification_asked(reply.text)
        if question is None:
            return None
        return AgentResult(
            False,
            f"asks for clarification: {question}",
            clarification=question,
            status=parse_status_block(reply.text),
        )

    def _refused(self, reply: Reply, written: WriteReport | None = None) -> AgentResult | None:
        """A failure naming the refused paths, when the reply had any (nothing stays written)."""
        refused = [*reply.parsed.refused, *(written.refused if written else [])]
        if not refused:
            return None
        if written is not None:
            written.undo()
        return self._failure(reply, f"refused paths: {[str(r) for r in refused]}")

    def _failure(self, reply: Reply | None, reason: str, output: str = "") -> AgentResult:
        detail = reason + (f"\n\n{output[-OUTPUT_IN_ERROR:]}" if output else "")
        return AgentResult(
            success=False,
            message=reason,
            error_details=detail,
            test_output=output,
            status=parse_status_block(reply.text) if reply else None,
        )

    def changed_paths(self) -> list[str]:
        """Paths changed since the last commit (staged, unstaged, untracked)."""
        out = self.git.run("status", "--porcelain", "-z", "--untracked-files=all")
        paths: list[str] = []
        entries = out.split("\0")
        i = 0
        while i < len(entries):
            entry = entries[i]
            if len(entry) > 3:
                paths.append(entry[3:])
                if entry[0] in "RC":
                    i += 1  # a rename's source path follows
            i += 1
        return sorted(set(paths))

    def run_gates(self, paths: Sequence[str], report: TestReport) -> GateRun:
        """lint (safe fixes applied) and format (both auto-fix; the tests again if either
        changed code) → tests → build."""
        lint = self.runner.lint_code(self.work_dir, paths)
        fmt = self.runner.format_code(self.work_dir, paths)
        if fmt.changed or lint.changed:
            report = self.runner.run_tests(self.work_dir)
        tests = GateResult("tests", "passed" if report.all_passed else "failed", report.output)
        build = self.runner.build(self.work_dir, paths)
        return GateRun((fmt, lint, tests, build), report)

    def commit(self, paths: Sequence[str], subject: str, body: str = "") -> str:
        """Stage ``paths`` and commit them (subject at most 72 characters); return the SHA."""
        self.git.add(list(paths))
        return self.git.commit(commit_message(subject, body))

    @abstractmethod
    def execute(self, context: AgentContext) -> AgentResult:
        """Do the role's job."""
