"""The Refactorer: one improvement while green; tests and assertions never fewer; else reverted."""

from __future__ import annotations

from tddforge.agents.base import (
    NO_CHANGES,
    AgentContext,
    AgentResult,
    AgentRole,
    parse_status_block,
    says,
)
from tddforge.agents.kata import KataAgent, Reply
from tddforge.decisions.kata import SuiteCounts, judge_refactor


class RefactorerAgent(KataAgent):
    """Applies ONE refactoring, re-checks green and the gates, then commits or reverts."""

    template = "refactorer"

    @property
    def role(self) -> AgentRole:
        """Refactorer."""
        return AgentRole.REFACTORER

    def counts(self) -> SuiteCounts:
        """Tests (as last measured green) and assertions (counted in the test sources now)."""
        sources = self.runner.test_sources(self.work_dir)
        return SuiteCounts(0, self.runner.count_assertions(sources))

    def execute(self, context: AgentContext) -> AgentResult:
        """Ask for one refactoring; keep it only if it is still green and no weaker."""
        before = SuiteCounts(len(context.known_tests), self.counts().assertions)
        reply = self._ask(context)
        status = parse_status_block(reply.text)
        refused = self._refused(reply)
        if refused is not None:
            return refused
        asked = self._asked_back(reply)
        if asked is not None:
            return asked
        if not reply.parsed.blocks and says(reply.text, NO_CHANGES):
            return AgentResult(True, NO_CHANGES, no_changes=True, tests_passed=True, status=status)
        if not reply.parsed.blocks:
            problems = self._parse_problems(reply)
            return self._failure(reply, f"no file was written and no {NO_CHANGES} ({problems})")
        written = self._write(reply)
        refused = self._refused(reply, written)
        if refused is not None:
            return refused
        result = self._judge(context, reply, before)
        if not result.success:
            written.undo()
        return result

    def _judge(self, context: AgentContext, reply: Reply, before: SuiteCounts) -> AgentResult:
        report = self.runner.run_tests(self.work_dir)
        paths = self.changed_paths()
        if not paths:
            return AgentResult(
                True, "the refactoring changed nothing", no_changes=True, tests_passed=True
            )
        gates = self.run_gates(paths, report) if report.all_passed else None
        final = gates.report if gates else report
        after = SuiteCounts(len(final.facts), self.counts().assertions)
        missing = sorted(context.known_tests - final.ids)
        verdict = judge_refactor(
            before, after, final.all_passed, missing, gates.failed if gates else []
        )
        if not verdict.ok:
            output = gates.failure_output() if gates and final.all_passed else final.output
            result = self._failure(reply, verdict.reason, output)
            result.gates = gates.statuses() if gates else {}
            return result
        status = parse_status_block(reply.text)
        subject, body = context.commit_subject or "refactor", ""
        if status and status.message:
            first, _, body = status.message.strip().partition("\n")
            subject = f"{subject}: {first}"
        sha = self.commit(paths, subject, body)
        return AgentResult(
            success=True,
            message=verdict.reason,
            files_modified=paths,
            tests_passed=True,
            commits_made=[sha],
            test_count=len(final.facts),
            gates=gates.statuses() if gates else {},
            test_output=final.output,
            status=status,
        )
