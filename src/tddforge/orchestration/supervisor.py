"""The kata Supervisor: Tester → Implementer → Refactorer cycles, failures, state.

Each agent judges its own attempt (``decisions.kata``'s judges) and stages,
commits or undoes it; the supervisor reads the ``AgentResult``, asks
``decisions.kata`` for the next action (``after_*``, ``stop_reason``) and acts on
it: hints for the next prompt, a reset to the last commit, the saved state.
It is language-agnostic: everything about the language goes through the
``LanguageRunner``. After every completed phase the session state is saved, so a
killed session resumes from its last completed phase.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

from tddforge.agents.base import (
    Agent,
    AgentContext,
    AgentResult,
    AttemptsExhausted,
    Exchange,
    execute_with_retry,
)
from tddforge.agents.implementer import ImplementerAgent
from tddforge.agents.refactorer import RefactorerAgent
from tddforge.agents.tester import TesterAgent
from tddforge.config import KataConfig
from tddforge.decisions.kata import (
    CLARIFICATION_STOP,
    Action,
    after_implementer_failure,
    after_overshoot,
    after_refactor_failure,
    behaviour_of,
    stop_reason,
)
from tddforge.errors import BudgetExceeded, LLMError, TddforgeError
from tddforge.languages.base import LanguageRunner
from tddforge.orchestration.kata_state import (
    CycleState,
    PhaseMetrics,
    SessionState,
    TDDPhase,
    save_session,
)
from tddforge.outcome import BUDGET
from tddforge.store.rundir import RunDir
from tddforge.types import Progress
from tddforge.workspace.git import Git
from tddforge.workspace.paths import write_file

OUTPUT_IN_CONTEXT = 4_000


@dataclass(frozen=True)
class SupervisorConfig:
    """What the supervisor needs besides its agents: the kata, the limits, where state goes."""

    kata: KataConfig
    kata_description: str
    max_cycles: int
    state_path: Path | None = None


class SupervisorAgent:
    """Orchestrates TDD cycles and handles failures (not an ``Agent``: a different interface)."""

    def __init__(
        self,
        tester: TesterAgent,
        implementer: ImplementerAgent,
        refactorer: RefactorerAgent,
        runner: LanguageRunner,
        config: SupervisorConfig,
        *,
        session_state: SessionState | None = None,
        run: RunDir | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.tester = tester
        self.implementer = implementer
        self.refactorer = refactorer
        self.runner = runner
        self.config = config
        self.work_dir = tester.work_dir
        self.git = Git(self.work_dir)
        self.run = run
        self.progress = progress or (lambda _message: None)
        self.session_state = session_state or SessionState(
            kata_path="",
            work_dir=str(self.work_dir),
            run_id=run.run_id if run else "",
            max_cycles=config.max_cycles,
        )
        if not self.session_state.head and self.git.has_commits():
            self.session_state.head = self.git.head()

    # -- the session -------------------------------------------------------------

    def run_session(self) -> SessionState:
        """Run cycles until a stop reason: max_cycles, KATA_COMPLETE, overshoot_limit, a failure."""
        state = self.session_state
        while True:
            reason = stop_reason(state.cycles_done, self.config.max_cycles, state.stop_reason)
            if reason:
                state.stop_reason = reason
                break
            try:
                self.run_cycle()
            except BudgetExceeded as exc:
                # a clean stop: the phase in progress asked nothing it kept (each agent
                # undoes a failed attempt), the state is saved at the last completed phase,
                # and --resume with a larger cap goes on from there
                self._event("budget", error=str(exc))
                self.progress(f"stopping: {exc}")
                state.stop_reason = BUDGET
                break
        self._event("session_stop", reason=state.stop_reason, cycles=state.cycles_done)
        self._save()
        return state

    def run_cycle(self) -> CycleState:
        """Run (or finish) one cycle, phase by phase, saving the state after each phase."""
        cycle = self.session_state.get_current_cycle_state()
        self.progress(f"cycle {cycle.cycle_number}")
        if not cycle.done(TDDPhase.TESTING) and not self._testing(cycle):
            self._save()
            return cycle
        if not cycle.done(TDDPhase.IMPLEMENTING) and not self._implementing(cycle):
            self._save()
            return cycle
        if not cycle.done(TDDPhase.REFACTORING) and not self._refactoring(cycle):
            self._save()
            return cycle
        cycle.mark_complete("green")
        self._save()
        return cycle

    def restore_workspace(self) -> None:
        """Put the work dir back at the last completed phase (after a kill): resume from there."""
        self._reset()
        cycles = self.session_state.cycles
        if not cycles or cycles[-1].complete:
            self._event("resume", cycle=len(cycles) + 1, completed=[])
            return
        cycle = cycles[-1]
        if cycle.done(TDDPhase.TESTING) and not cycle.done(TDDPhase.IMPLEMENTING):
            for path, text in cycle.test_files.items():
                write_file(self.work_dir, path, text)
            self.git.add(sorted(cycle.test_files))
        self._event(
            "resume", cycle=cycle.cycle_number, completed=[p.value for p in cycle.completed_phases]
        )

    # -- failure handling (decisions are pure; these apply them) ------------------

    def handle_tester_overshoot(self, result: AgentResult) -> Action:
        """The new test passed at once: tell the Tester which behaviour works; maybe stop."""
        state = self.session_state
        state.overshoot_streak += 1
        for test in result.new_tests:
            state.hints.append(
                f"Already works, do not test it again: {behaviour_of(test)} ({test} passed"
                " as soon as it was written). Write a test for a behaviour that does not work yet."
            )
        return after_overshoot(state.overshoot_streak, self.config.kata.max_consecutive_overshoots)

    def handle_implementer_failure(self, result: AgentResult | None, attempt: int) -> Action:
        """No green after every attempt: drop the test and ask for a smaller step, or stop."""
        state = self.session_state
        state.implementer_failure_streak += 1
        cycle = state.get_current_cycle_state()
        why = (result.message if result else "") or "it kept failing"
        state.hints.append(
            f"The previous test ({behaviour_of(cycle.new_tests[0]) if cycle.new_tests else '?'})"
            f" could not be made to pass in {attempt} attempts ({why}). It was dropped:"
            " write a smaller, simpler step."
        )
        self._reset()
        return after_implementer_failure(
            state.implementer_failure_streak, self.config.kata.max_implementer_failures
        )

    def handle_refactorer_failure(self, result: AgentResult, attempt: int) -> Action:
        """The refactoring was reverted: try again, or skip refactoring this cycle."""
        self._event("refactor_reverted", attempt=attempt, reason=result.message)
        return after_refactor_failure(attempt, self.config.kata.refactor_attempts)

    # -- phases ---------------------------------------------------------------------

    def _testing(self, cycle: CycleState) -> bool:
        cycle.phase = TDDPhase.TESTING
        state = self.session_state
        while True:
            context = replace(
                self._context(cycle, last_output=state.last_output),
                last_refactor=state.last_refactor,
            )
            started = time.monotonic()
            try:
                result = execute_with_retry(self.tester, context, self.config.kata.tester_attempts)
            except AttemptsExhausted as exc:
                self._metrics(cycle, "tester", self.tester, started, "failed")
                return self._stop(cycle, "tester_failed", f"agent_failure: {exc}")
            if result.clarification:
                self._metrics(cycle, "tester", self.tester, started, "question")
                return self._ask_person(cycle, "tester", result.clarification)
            outcome = "overshoot" if result.overshoot_detected else "red"
            self._metrics(cycle, "tester", self.tester, started, outcome)
            if result.kata_complete:
                return self._stop(cycle, "kata_complete", "kata_complete")
            if not result.overshoot_detected:
                break
            cycle.overshoots += 1
            self._event("overshoot", cycle=cycle.cycle_number, tests=result.new_tests)
            self.progress(f"overshoot: {', '.join(result.new_tests)} passed at once")
            if self.handle_tester_overshoot(result) is Action.STOP:
                return self._stop(cycle, "overshoot_limit", "overshoot_limit")
        state.overshoot_streak = 0
        state.hints = []
        cycle.new_tests = result.new_tests
        cycle.behaviour = behaviour_of(result.new_tests[0]) if result.new_tests else ""
        cycle.test_files = self.runner.read_files(self.work_dir, result.files_modified)
        cycle.red_output = result.test_output[-OUTPUT_IN_CONTEXT:]
        cycle.test_count = result.test_count
        state.next_step = result.status.next if result.status else ""
        cycle.finish_phase(TDDPhase.TESTING)
        self._event("red", cycle=cycle.cycle_number, tests=result.new_tests, reason=result.message)
        self.progress(f"red: {cycle.behaviour} ({result.message})")
        self._save()
        return True

    def _implementing(self, cycle: CycleState) -> bool:
        cycle.phase = TDDPhase.IMPLEMENTING
        state = self.session_state
        context = self._context(
            cycle,
            extra_known=cycle.new_tests,
            commit_subject=f"green(cycle {cycle.cycle_number}): {cycle.behaviour}",
        )
        started = time.monotonic()
        try:
            result = execute_with_retry(
                self.implementer, context, self.config.kata.implementer_attempts
            )
        except AttemptsExhausted as exc:
            self._metrics(cycle, "implementer", self.implementer, started, "failed")
            action = self.handle_implementer_failure(exc.result, exc.attempts)
            self.progress(f"implementer failed {exc.attempts} times; test dropped")
            reason = "implementer_failed" if action is Action.STOP else None
            return self._stop(cycle, "implementer_failed", reason)
        if result.clarification:
            self._metrics(cycle, "implementer", self.implementer, started, "question")
            return self._ask_person(cycle, "implementer", result.clarification)
        self._metrics(cycle, "implementer", self.implementer, started, "green")
        state.implementer_failure_streak = 0
        self._committed(cycle, result)
        cycle.gates = dict(result.gates)
        cycle.green_output = state.last_output = result.test_output[-OUTPUT_IN_CONTEXT:]
        cycle.finish_phase(TDDPhase.IMPLEMENTING)
        self.progress(f"green: {cycle.behaviour} ({result.commits_made[0][:8]})")
        self._save()
        return True

    def _refactoring(self, cycle: CycleState) -> bool:
        cycle.phase = TDDPhase.REFACTORING
        context = self._context(
            cycle,
            commit_subject=f"refactor(cycle {cycle.cycle_number}): after {cycle.behaviour}",
            last_output=cycle.green_output,
        )
        started = time.monotonic()
        attempts = self.config.kata.refactor_attempts
        outcome = "skipped"
        for attempt in range(1, attempts + 1):
            result = self._refactor_once(replace(context, retry_attempt=attempt - 1))
            if result.clarification:
                self._metrics(cycle, "refactorer", self.refactorer, started, "question")
                self._reset()
                return self._ask_person(cycle, "refactorer", result.clarification)
            if result.success:
                outcome = "no_changes" if result.no_changes else "committed"
                self._committed(cycle, result)
                self._refactor_kept(cycle, result)
                break
            context = replace(context, last_error=result.error_details or result.message)
            if self.handle_refactorer_failure(result, attempt) is Action.SKIP:
                self._reset()
                self.session_state.last_refactor = (
                    f"cycle {cycle.cycle_number}: reverted after {attempt} attempt(s), the code"
                    f" is as the green commit left it ({result.message})"
                )
                break
        cycle.refactor = outcome
        self._metrics(cycle, "refactorer", self.refactorer, started, outcome)
        cycle.finish_phase(TDDPhase.REFACTORING)
        self.progress(f"refactor: {outcome}")
        return True

    def _refactor_kept(self, cycle: CycleState, result: AgentResult) -> None:
        state = self.session_state
        if result.no_changes:
            state.last_refactor = f"cycle {cycle.cycle_number}: none needed (NO_CHANGES)"
            return
        subject = self.git.log(1)[0].subject if result.commits_made else "the refactoring"
        state.last_refactor = f"cycle {cycle.cycle_number}: kept, committed as {subject!r}"
        if result.test_output:
            state.last_output = result.test_output[-OUTPUT_IN_CONTEXT:]

    def _refactor_once(self, context: AgentContext) -> AgentResult:
        try:
            return self.refactorer.execute(context)
        except LLMError:
            raise
        except TddforgeError as exc:
            return AgentResult(False, f"{type(exc).__name__}: {exc}", error_details=str(exc))

    # -- helpers --------------------------------------------------------------------

    def _context(
        self,
        cycle: CycleState,
        extra_known: list[str] | None = None,
        commit_subject: str = "",
        last_output: str | None = None,
    ) -> AgentContext:
        """What every agent is told; ``last_output`` is the latest run the phase starts from
        (default: the cycle's RED run)."""
        state = self.session_state
        files = self.runner.project_files(self.work_dir)
        return AgentContext(
            kata_description=self.config.kata_description,
            codebase_files=self.runner.read_files(self.work_dir, files),
            recent_commits=[f"{c.sha[:8]} {c.subject}" for c in self.git.log(5)],
            last_test_output=cycle.red_output if last_output is None else last_output,
            cycle_number=cycle.cycle_number,
            max_cycles=self.config.max_cycles,
            hints=tuple(state.hints),
            clarifications=tuple(state.clarifications),
            known_tests=frozenset(state.test_ids) | frozenset(extra_known or ()),
            commit_subject=commit_subject,
        )

    def _committed(self, cycle: CycleState, result: AgentResult) -> None:
        if not result.commits_made:
            return
        cycle.commits += result.commits_made
        self.session_state.head = result.commits_made[-1]
        cycle.test_count = result.test_count or cycle.test_count
        self.session_state.test_ids = sorted(
            set(self.session_state.test_ids) | set(cycle.new_tests)
        )
        self._event("commit", cycle=cycle.cycle_number, sha=result.commits_made[-1])

    def _ask_person(self, cycle: CycleState, agent: str, question: str) -> bool:
        """Stop the session, the cycle left open at its phase, until a person answers."""
        state = self.session_state
        state.pending_question = question
        state.stop_reason = CLARIFICATION_STOP
        self._event(
            "clarification_needed", cycle=cycle.cycle_number, agent=agent, question=question
        )
        self.progress(f"the {agent} asks: {question}")
        return False

    def _stop(self, cycle: CycleState, outcome: str, reason: str | None) -> bool:
        cycle.mark_complete(outcome)
        if reason:
            self.session_state.stop_reason = reason
        self._event("cycle_end", cycle=cycle.cycle_number, outcome=outcome)
        return False

    def _reset(self) -> None:
        """Back to the last commit of the session: the work dir is the session's own."""
        head = self.session_state.head
        if head:
            self.git.reset_hard(head)

    def _metrics(
        self,
        cycle: CycleState,
        name: str,
        agent: Agent,
        started: float,
        outcome: str,
    ) -> None:
        exchanges = agent.drain_exchanges()
        seconds = time.monotonic() - started
        llm_seconds = sum(e.seconds for e in exchanges)
        metrics = cycle.phases.setdefault(name, PhaseMetrics())
        metrics.seconds = round(metrics.seconds + seconds, 4)
        metrics.llm_calls += len(exchanges)
        metrics.prompt_tokens += sum(e.completion.usage.prompt_tokens for e in exchanges)
        metrics.completion_tokens += sum(e.completion.usage.completion_tokens for e in exchanges)
        metrics.cost = round(metrics.cost + sum(e.completion.cost for e in exchanges), 6)
        metrics.attempts += len(exchanges)
        metrics.outcome = outcome
        cycle.retries[name] = cycle.retries.get(name, 0) + max(0, len(exchanges) - 1)
        cycle.tool_seconds = round(cycle.tool_seconds + max(0.0, seconds - llm_seconds), 4)
        self._transcript(cycle, name, exchanges)

    def _transcript(self, cycle: CycleState, name: str, exchanges: list[Exchange]) -> None:
        if self.run is None or not exchanges:
            return
        path = self.run.path / "transcripts" / f"cycle-{cycle.cycle_number:03d}-{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            for exchange in exchanges:
                for message in exchange.messages:
                    handle.write(f"## {message.role}\n\n{message.content}\n\n")
                handle.write(f"## assistant\n\n{exchange.completion.text}\n\n")

    def _event(self, name: str, **data: object) -> None:
        if self.run is not None:
            self.run.event(name, **data)

    def _save(self) -> None:
        if self.config.state_path is not None:
            save_session(self.session_state, self.config.state_path)
        if self.run is not None:
            self.run.write_data(
                "metrics.json", [c.model_dump(mode="json") for c in self.session_state.cycles]
            )
