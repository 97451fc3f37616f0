"""The Tester: one new failing test per cycle, red for the right reason, staged (never committed)."""

from __future__ import annotations

from dataclasses import replace

from tddforge.agents.base import (
    KATA_COMPLETE,
    AgentContext,
    AgentResult,
    AgentRole,
    parse_status_block,
    says,
)
from tddforge.agents.kata import KataAgent, Reply
from tddforge.decisions.kata import RedJudgement, judge_red, judge_red_lint


class TesterAgent(KataAgent):
    """Writes ONE small failing test for the next behaviour and stages it."""

    template = "tester"

    @property
    def role(self) -> AgentRole:
        """Tester."""
        return AgentRole.TESTER

    def execute(self, context: AgentContext) -> AgentResult:
        """Ask for a test, run it, and keep it only if it is red for the right reason."""
        reply = self._ask(context)
        blocks = reply.parsed.blocks
        refused = self._refused(reply)
        if refused is not None:
            return refused
        asked = self._asked_back(reply)
        if asked is not None:
            return asked
        if not blocks and says(reply.text, KATA_COMPLETE):
            status = parse_status_block(reply.text)
            return AgentResult(True, KATA_COMPLETE, kata_complete=True, status=status)
        if not blocks:
            problems = self._parse_problems(reply)
            return self._failure(reply, f"no test file was written ({problems})")
        not_tests = [b.path.rel for b in blocks if not self.runner.is_test_file(b.path.rel)]
        if not_tests:
            return self._failure(reply, f"the Tester writes test files only, not {not_tests}")
        return self._try_test(context, reply)

    def _try_test(self, context: AgentContext, reply: Reply) -> AgentResult:
        written = self._write(reply)
        refused = self._refused(reply, written)
        if refused is not None:
            return refused
        # what tools can fix is fixed, not held against the test: ruff's safe fixes, format
        lint = self.runner.lint_code(self.work_dir, written.written)
        self.runner.format_code(self.work_dir, written.written)
        report = self.runner.run_tests(self.work_dir)
        sources = self.runner.read_files(
            self.work_dir,
            [p for p in self.runner.project_files(self.work_dir) if self.runner.is_source_file(p)],
        )
        names = self.runner.missing_kata_names(report.failing, sources)
        judged = judge_red(
            context.known_tests,
            report.facts,
            names,
            self.runner.test_function,
            kata_sources=frozenset(sources),
        )
        linted = judge_red_lint(judged, lint.ok)  # only the lint no fix could remove
        if linted is not judged:
            judged, report = linted, replace(report, output=lint.output)
        if judged.verdict != "red":
            written.undo()
            return self._rejected(reply, judged, report.output)
        self.git.add(written.written)
        fixed = f" (ruff fixed lint in {', '.join(lint.changed)})" if lint.changed else ""
        return AgentResult(
            success=True,
            message=f"RED: {judged.reason}{fixed}",
            files_modified=list(written.written),
            tests_passed=False,
            new_tests=list(judged.new_tests),
            test_count=len(report.facts),
            test_output=report.output,
            status=parse_status_block(reply.text),
        )

    def _rejected(self, reply: Reply, judged: RedJudgement, output: str) -> AgentResult:
        result = self._failure(reply, judged.reason, output)
        result.new_tests = list(judged.new_tests)
        if judged.verdict == "overshoot":
            result.overshoot_detected = True
            result.tests_passed = True
        return result
