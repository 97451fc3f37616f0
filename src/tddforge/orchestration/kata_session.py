"""``tddforge kata``: check the inputs, scaffold the work dir, run or resume the session, summarise.

Inputs are checked before anything is written. A new session that fails before
its first phase completes (an unreachable endpoint, a refused key) removes what
it created, so bad input still leaves nothing behind.
"""

from __future__ import annotations

import os
import shutil
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tddforge.agents.implementer import ImplementerAgent
from tddforge.agents.refactorer import RefactorerAgent
from tddforge.agents.tester import TesterAgent
from tddforge.config import Settings
from tddforge.decisions.kata import exit_code
from tddforge.errors import InputError, TddforgeError, WorkspaceError
from tddforge.languages.base import LanguageRunner
from tddforge.languages.python import PythonRunner
from tddforge.llm.base import LLMClient
from tddforge.orchestration.kata_state import (
    SessionState,
    load_session,
    session_path,
)
from tddforge.orchestration.supervisor import SupervisorAgent, SupervisorConfig
from tddforge.outcome import BUDGET, Outcome
from tddforge.runner import interpreter_for
from tddforge.store.rundir import STATE_DIR, RunDir
from tddforge.types import Progress
from tddforge.workspace.git import Git


@dataclass(frozen=True)
class KataOptions:
    """The command's inputs."""

    kata: Path
    work_dir: Path
    max_cycles: int | None = None
    resume: bool = False
    force: bool = False
    python: str | None = None
    #: A person's answer to the question the session stopped on (with ``resume``).
    answer: str | None = None


@dataclass(frozen=True)
class Inputs:
    """Checked inputs: the kata text and, when resuming, the saved state."""

    kata_text: str
    saved: SessionState | None


def check_inputs(options: KataOptions) -> Inputs:
    """Validate the kata file and the work dir; write nothing; ``InputError`` on a problem."""
    kata = options.kata
    if not kata.is_file():
        raise InputError(f"kata file not found: {kata}")
    try:
        text = kata.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read kata file {kata}: {exc}") from exc
    if not text.strip():
        raise InputError(f"kata file is empty: {kata}")
    work = options.work_dir
    if work.exists() and not work.is_dir():
        raise InputError(f"work dir is not a directory: {work}")
    state_file = session_path(work)
    if options.answer is not None and not options.resume:
        raise InputError("--answer goes with --resume: it answers a stopped session's question")
    if options.answer is not None and not options.answer.strip():
        raise InputError("the answer is empty")
    if options.resume:
        saved = load_session(state_file)
        if saved.pending_question and options.answer is None:
            raise InputError(
                f"the session waits for an answer to: {saved.pending_question}"
                " (resume with --answer TEXT or --answers FILE)"
            )
        return Inputs(text, saved)
    busy = work.is_dir() and any(work.iterdir())
    if busy and not state_file.is_file() and not options.force:
        raise InputError(
            f"work dir {work} is not empty and holds no tddforge session; use --force to use it anyway"
        )
    return Inputs(text, None)


def make_runner(work_dir: Path, settings: Settings, python: str | None) -> LanguageRunner:
    """The language runner for the session (Python for now)."""
    return PythonRunner(
        interpreter_for(work_dir, python),
        settings.sandbox,
        test_timeout=settings.kata.test_timeout_seconds,
        gate_timeout=settings.kata.gate_timeout_seconds,
    )


def run_kata(
    options: KataOptions,
    settings: Settings,
    llm: LLMClient,
    progress: Progress,
    runner: LanguageRunner | None = None,
) -> Outcome:
    """Run a new session or resume a stopped one; its outcome's data is the session summary."""
    inputs = check_inputs(options)
    work = options.work_dir.resolve()
    runner = runner or make_runner(work, settings, options.python)
    created = _Created.before(work)
    try:
        state, run = _open(options, inputs, settings, runner, work, progress)
        supervisor = _supervisor(options, inputs, settings, llm, runner, state, run, progress)
        if inputs.saved is not None:
            progress(f"resuming {state.run_id} at cycle {len(state.cycles) or 1}")
            supervisor.restore_workspace()
        state = supervisor.run_session()
    except TddforgeError:
        if inputs.saved is None and not session_path(work).is_file():
            created.undo()
        raise
    summary = summarize(state, run)
    run.write_data("summary.json", summary)
    return Outcome(
        "kata",
        summary["exit_code"] == 0,
        state.stop_reason or "",
        summary,
        run.path,
        question=state.pending_question,
    )


def _open(
    options: KataOptions,
    inputs: Inputs,
    settings: Settings,
    runner: LanguageRunner,
    work: Path,
    progress: Progress,
) -> tuple[SessionState, RunDir]:
    saved = inputs.saved
    if saved is not None:
        saved.resumed += 1
        if options.max_cycles:
            saved.max_cycles = options.max_cycles
            if saved.stop_reason == "max_cycles":
                saved.stop_reason = None
        if saved.stop_reason == BUDGET:  # resumed, presumably with a larger cap
            saved.stop_reason = None
        run = RunDir.at(work, saved.run_id)
        run.path.mkdir(parents=True, exist_ok=True)
        if saved.pending_question and options.answer is not None:
            saved.clarifications.append((saved.pending_question, options.answer.strip()))
            run.event("clarified", question=saved.pending_question, answer=options.answer)
            saved.pending_question, saved.stop_reason = "", None
        return saved, run
    head = scaffold(work, runner, inputs.kata_text)
    run = RunDir.create(work, "kata")
    state = SessionState(
        kata_path=str(options.kata.resolve()),
        work_dir=str(work),
        run_id=run.run_id,
        max_cycles=options.max_cycles or settings.kata.max_cycles,
        model=settings.model or "",
        head=head,
        test_ids=sorted(_baseline(work, runner)),
    )
    run.event("session_start", kata=state.kata_path, max_cycles=state.max_cycles)
    progress(f"new session, run {run.run_id}")
    return state, run


def _supervisor(
    options: KataOptions,
    inputs: Inputs,
    settings: Settings,
    llm: LLMClient,
    runner: LanguageRunner,
    state: SessionState,
    run: RunDir,
    progress: Progress,
) -> SupervisorAgent:
    work = Path(state.work_dir)
    config = SupervisorConfig(
        kata=settings.kata,
        kata_description=inputs.kata_text,
        max_cycles=state.max_cycles,
        state_path=session_path(work),
    )
    return SupervisorAgent(
        TesterAgent(llm, work, runner),
        ImplementerAgent(llm, work, runner),
        RefactorerAgent(llm, work, runner),
        runner,
        config,
        session_state=state,
        run=run,
        progress=progress,
    )


def scaffold(work: Path, runner: LanguageRunner, kata_text: str) -> str:
    """Make ``work`` a git repo with the runner's project files and the kata; return HEAD."""
    work.mkdir(parents=True, exist_ok=True)
    runner.initialize_project(work)
    kata_copy = work / "KATA.md"
    if not kata_copy.exists():
        kata_copy.write_text(kata_text, encoding="utf-8")
    git = Git(work)
    git.init()
    exclude_state_dir(work)
    if git.status() or not git.has_commits():
        git.add()
        git.commit("chore: scaffold the kata work dir", allow_empty=True)
    return git.head()


def exclude_state_dir(work: Path) -> None:
    """Keep ``.tddforge/`` out of git (``.git/info/exclude``) without editing any tracked file."""
    exclude = work / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    text = exclude.read_text(encoding="utf-8") if exclude.is_file() else ""
    if f"/{STATE_DIR}/" not in text.splitlines():
        exclude.write_text(
            text + ("" if text.endswith("\n") or not text else "\n") + f"/{STATE_DIR}/\n"
        )


def _baseline(work: Path, runner: LanguageRunner) -> frozenset[str]:
    """The tests already there (a reused work dir); they must pass before the session starts."""
    if not any(runner.is_test_file(p) for p in runner.project_files(work)):
        return frozenset()
    report = runner.run_tests(work)
    if report.facts and not report.all_passed:
        failing = ", ".join(f.name for f in report.failing[:5])
        raise WorkspaceError(f"the work dir's existing tests must pass before a session: {failing}")
    return report.ids


@dataclass
class _Created:
    """What existed before, so a session that fails at once can remove what it added."""

    work: Path
    existed: bool
    entries: frozenset[str]

    @classmethod
    def before(cls, work: Path) -> _Created:
        if not work.is_dir():
            return cls(work, False, frozenset())
        return cls(work, True, frozenset(os.listdir(work)))

    def undo(self) -> None:
        if not self.existed:
            shutil.rmtree(self.work, ignore_errors=True)
            return
        for name in set(os.listdir(self.work)) - self.entries:
            target = self.work / name
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target, ignore_errors=True)
            else:
                target.unlink(missing_ok=True)


def stop_note(state: SessionState) -> str:
    """What the stop means for the kata, in words (a max_cycles stop is not a finished kata)."""
    if state.stop_reason != "max_cycles":
        return ""
    note = (
        f"stopped at max_cycles ({state.max_cycles}): the kata may be unfinished; the Tester"
        " never said KATA_COMPLETE"
    )
    next_step = f"; its next step would have been: {state.next_step}" if state.next_step else ""
    return note + next_step + " (--resume --max-cycles N goes on)"


def summarize(state: SessionState, run: RunDir) -> dict[str, Any]:
    """The session summary printed by ``--json`` and stored as the run's summary.json."""
    cycles = state.cycles
    by_agent: dict[str, dict[str, float]] = {}
    for cycle in cycles:
        for name, m in cycle.phases.items():
            agent = by_agent.setdefault(
                name, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost": 0.0}
            )
            agent["calls"] += m.llm_calls
            agent["prompt_tokens"] += m.prompt_tokens
            agent["completion_tokens"] += m.completion_tokens
            agent["cost"] = round(agent["cost"] + m.cost, 6)
    green = [c for c in cycles if c.outcome == "green"]
    overhead = [c.tool_seconds for c in green]
    return {
        "kata": state.kata_path,
        "work_dir": state.work_dir,
        "run_id": state.run_id,
        "run_dir": str(run.path),
        "stop_reason": state.stop_reason,
        "exit_code": exit_code(state.stop_reason),
        "kata_complete": state.stop_reason == "kata_complete",
        "note": stop_note(state),
        "question": state.pending_question or None,
        "clarifications": [{"question": q, "answer": a} for q, a in state.clarifications],
        "cycles": state.cycles_done,
        "green_cycles": len(green),
        "tests": len(state.test_ids),
        "commits": [sha for c in cycles for sha in c.commits],
        "overshoots": sum(c.overshoots for c in cycles),
        "resumed": state.resumed,
        "llm": {
            "calls": sum(int(a["calls"]) for a in by_agent.values()),
            "cost": round(sum(a["cost"] for a in by_agent.values()), 6),
            "by_agent": by_agent,
        },
        "overhead_seconds_median": round(statistics.median(overhead), 3) if overhead else None,
        "cycle_metrics": [
            c.model_dump(mode="json", exclude={"test_files", "red_output"}) for c in cycles
        ],
    }
