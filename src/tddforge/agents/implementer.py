"""The Implementer: the least code that makes the tests pass, tests untouched, then one commit.

Every protected file (tests, test configuration) is snapshotted byte for byte
before the model's files are written; any difference afterwards is tampering:
the attempt is undone (through the write report) and counts as failed.
"""

from __future__ import annotations

from tddforge.agents.base import AgentContext, AgentResult, AgentRole, parse_status_block
from tddforge.agents.kata import KataAgent, Reply
from tddforge.decisions.kata import judge_green
from tddforge.workspace.snapshot import changed, snapshot


class ImplementerAgent(KataAgent):
    """Makes the failing test pass with minimal code, then commits test + implementation."""

    template = "implementer"

    @property
    def role(self) -> AgentRole:
        """Implementer."""
        return AgentRole.IMPLEMENTER

    def _protected(self) -> list[str]:
        return [p for p in self.runner.project_files(self.work_dir) if self.runner.is_protected(p)]

    def execute(self, context: AgentContext) -> AgentResult:
        """Write the model's code; commit only when green, untampered and through the gates."""
        guarded = snapshot(self.work_dir, self._protected())
        reply = self._ask(context)
        refused = self._refused(reply)
        if refused is not None:
            return refused
        asked = self._asked_back(reply)
        if asked is not None:
            return asked
        if not reply.parsed.blocks:
            problems = self._parse_problems(reply)
            return self._failure(reply, f"no file was written ({problems})")
        written = self._write(reply)
        refused = self._refused(reply, written)
        if refused is not None:
            return refused
        now = snapshot(self.work_dir, sorted(set(guarded) | set(self._protected())))
        tampered = changed(guarded, now)
        if tampered:
            written.undo()  # only the reply's writes happened since the snapshot
            verdict = judge_green(tampered, False, [], [], [])  # judged before any test runs
            return self._failure(reply, verdict.reason)
        return self._check_green(context, reply)

    def _check_green(self, context: AgentContext, reply: Reply) -> AgentResult:
        report = self.runner.run_tests(self.work_dir)
        failing = [f.name for f in report.failing]
        missing = sorted(context.known_tests - report.ids)
        verdict = judge_green([], report.all_passed, failing, missing, [])
        if not verdict.ok:  # the gates are run only on code that passes the tests
            return self._failure(reply, verdict.reason, report.output)
        paths = self.changed_paths()
        sources = [p for p in paths if not self.runner.is_protected(p)]
        gates = self.run_gates(sources, report)
        verdict = judge_green([], gates.report.all_passed, [], missing, gates.failed)
        if not verdict.ok:
            result = self._failure(reply, verdict.reason, gates.failure_output())
            result.gates = gates.statuses()
            return result
        sha = self.commit(paths, context.commit_subject or "green: make the new test pass")
        return AgentResult(
            success=True,
            message=verdict.reason,
            files_modified=sources,
            tests_passed=True,
            commits_made=[sha],
            test_count=len(gates.report.facts),
            gates=gates.statuses(),
            test_output=gates.report.output,
            status=parse_status_block(reply.text),
        )
