"""``tddforge build``: the spec pipeline RED → GREEN → REFACTOR, one commit and one artifact per stage.

RED is the existing stage (``red_stage.red_stage``). GREEN runs the kata's
Implementer until every RED test passes with the tests byte-identical; REFACTOR
runs the kata's Refactorer (reverted unless still green and no weaker). The
artifacts ``green.yaml`` and ``refactor.yaml`` are written next to ``red.yaml``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from tddforge.agents.base import AgentContext, AgentResult, AttemptsExhausted, execute_with_retry
from tddforge.agents.implementer import ImplementerAgent
from tddforge.agents.kata import KataAgent
from tddforge.agents.refactorer import RefactorerAgent
from tddforge.config import Settings
from tddforge.decisions.kata import Action, after_refactor_failure
from tddforge.decisions.spec_conformance import check_signatures, signature_request
from tddforge.errors import BudgetExceeded
from tddforge.languages.base import LanguageRunner
from tddforge.llm.base import LLMClient
from tddforge.orchestration.kata_session import exclude_state_dir
from tddforge.orchestration.red_stage import RedOptions, default_artifact_path, red_stage
from tddforge.outcome import BUDGET, Outcome
from tddforge.spec import Spec
from tddforge.store.rundir import RunDir, dump_data
from tddforge.types import Progress
from tddforge.workspace.git import Git

OUTPUT_IN_PROMPT = 4_000  # the tail of the last test run shown to GREEN and REFACTOR


@dataclass(frozen=True)
class BuildOptions:
    """Where to build, with which interpreter."""

    project: Path
    python: Path
    timeout: float | None = None


@dataclass
class BuildOutcome:
    """Each stage's artifact (as data and where it was written) and whether GREEN was reached."""

    stages: dict[str, dict[str, Any]] = field(default_factory=dict)
    paths: dict[str, Path] = field(default_factory=dict)
    green: bool = False
    stopped: str = ""  # why a stage stopped early (the max-cost cap), or ""
    run: RunDir | None = None

    def outcome(self) -> Outcome:
        """The workflow's outcome: the goal is GREEN; ``files`` are the artifacts, by stage."""
        if self.stopped:
            reason = BUDGET
        elif "refactor" in self.stages:
            reason = "refactored" if self.stages["refactor"]["valid"] else "green"
        else:
            reason = "not_green" if "green" in self.stages else "invalid_red"
        return Outcome(
            "build",
            self.green,
            reason,
            self.stages,
            self.run.path if self.run else None,
            tuple(self.paths[stage] for stage in self.stages),
        )


def run_build(
    spec: Spec,
    llm: LLMClient,
    settings: Settings,
    options: BuildOptions,
    runner: LanguageRunner,
    progress: Progress,
) -> Outcome:
    """``tddforge build``: RED, then GREEN and REFACTOR when the RED is valid, as an outcome."""
    return build_stages(spec, llm, settings, options, runner, progress).outcome()


def build_stages(
    spec: Spec,
    llm: LLMClient,
    settings: Settings,
    options: BuildOptions,
    runner: LanguageRunner,
    progress: Progress,
) -> BuildOutcome:
    """Run RED, then GREEN and REFACTOR when the RED is valid; commit after each stage."""
    project = options.project
    git = Git(project)
    git.init()
    exclude_state_dir(project)
    red = red_stage(spec, llm, settings, RedOptions(project, options.python), progress)
    outcome = BuildOutcome(stopped=red.stopped, run=red.run)
    red_data = red.artifact.model_dump(mode="json")
    red_data["commit"] = None
    if red.artifact.valid:
        git.add([f.path for f in red.artifact.test_files])
        red_data["commit"] = git.commit(f"red({spec.spec_id}): failing tests for {spec.title}")
    outcome.stages["red"], outcome.paths["red"] = red_data, red.written[0]
    if not red.artifact.valid:
        progress("RED is invalid: GREEN and REFACTOR are not run")
        return outcome
    context = _context(spec, red_data, settings)
    green, green_output = _green(spec, llm, settings, runner, project, context, progress)
    green["signature_mismatches"] = (
        _signature_mismatches(spec, runner, project, progress) if green["valid"] else None
    )
    _store(outcome, "green", green, spec, red.run, project)
    outcome.green = bool(green["valid"])
    outcome.stopped = green.get("stopped", "")
    if outcome.green:
        # REFACTOR starts from GREEN's passing run, the latest one, not from RED's failures
        context = replace(context, last_test_output=green_output[-OUTPUT_IN_PROMPT:])
        refactor = _refactor(spec, llm, settings, runner, project, context, progress)
        _store(outcome, "refactor", refactor, spec, red.run, project)
        outcome.stopped = refactor.get("stopped", "")
    return outcome


def _context(spec: Spec, red: dict[str, Any], settings: Settings) -> AgentContext:
    described = yaml.safe_dump(spec.model_dump(mode="json"), sort_keys=False, allow_unicode=True)
    results = red["test_results"]
    return AgentContext(
        kata_description=f"Implement this specification:\n\n{described}",
        last_test_output=str(results.get("output", ""))[-OUTPUT_IN_PROMPT:],
        known_tests=frozenset(d["name"] for d in results["test_details"]),
        max_cycles=1,
    )


def _green(
    spec: Spec,
    llm: LLMClient,
    settings: Settings,
    runner: LanguageRunner,
    project: Path,
    context: AgentContext,
    progress: Progress,
) -> tuple[dict[str, Any], str]:
    """GREEN's artifact, and the output of its passing run ("" when it did not pass)."""
    progress("GREEN: implementing until the RED tests pass")
    agent = ImplementerAgent(
        llm, project, runner, conventions=_conventions(settings, runner, project), task="spec"
    )
    context = replace(
        context,
        codebase_files=runner.read_files(project, runner.project_files(project)),
        recent_commits=_recent_commits(agent.git),
        commit_subject=f"green({spec.spec_id}): make the RED tests pass",
    )
    started = time.monotonic()
    try:
        result: AgentResult | None = execute_with_retry(
            agent, context, settings.kata.implementer_attempts
        )
        reason, attempts = (result.message, result.attempts) if result else ("", 1)
    except AttemptsExhausted as exc:
        result, reason, attempts = exc.result, str(exc), exc.attempts
    except BudgetExceeded as exc:  # a clean stop: the stage's artifact says why
        progress(f"stopping: {exc}")
        stopped = f"{BUDGET}: {exc}"
        data = _artifact(spec, agent, None, stopped, started, attempts=0)
        return {**data, "stopped": stopped}, ""
    data = _artifact(spec, agent, result, reason, started, attempts=attempts)
    return data, result.test_output if result and result.success else ""


def _refactor(
    spec: Spec,
    llm: LLMClient,
    settings: Settings,
    runner: LanguageRunner,
    project: Path,
    context: AgentContext,
    progress: Progress,
) -> dict[str, Any]:
    progress("REFACTOR: one improvement while green")
    agent = RefactorerAgent(
        llm, project, runner, conventions=_conventions(settings, runner, project), task="spec"
    )
    context = replace(
        context,
        codebase_files=runner.read_files(project, runner.project_files(project)),
        recent_commits=_recent_commits(agent.git),
        commit_subject=f"refactor({spec.spec_id})",
        last_error=None,
    )
    started = time.monotonic()
    result: AgentResult | None = None
    attempts = settings.kata.refactor_attempts
    stopped = ""
    for attempt in range(1, attempts + 1):
        try:
            result = agent.execute(replace(context, retry_attempt=attempt - 1))
        except BudgetExceeded as exc:  # the attempts so far were reverted; stop cleanly
            progress(f"stopping: {exc}")
            stopped, result = f"{BUDGET}: {exc}", None
            break
        if result.success:
            break
        context = replace(context, last_error=result.error_details or result.message)
        if after_refactor_failure(attempt, attempts) is Action.SKIP:
            break
    data = _artifact(spec, agent, result, result.message if result else stopped, started, attempt)
    if not data["commit"]:
        # One commit per stage, also when the code was left as it was (reverted or clean).
        kept = "no changes needed" if result and result.no_changes else "skipped, reverted"
        data["commit"] = agent.git.commit(f"refactor({spec.spec_id}): {kept}", allow_empty=True)
    data["applied"] = bool(result and result.success and not result.no_changes)
    return {**data, "stopped": stopped} if stopped else data


def _signature_mismatches(
    spec: Spec, runner: LanguageRunner, project: Path, progress: Progress
) -> list[dict[str, str]] | None:
    """How GREEN's public signatures differ from the spec, read under the project's interpreter
    (None when the language cannot read them). Reported, never a reason to fail GREEN."""
    request = signature_request(spec)
    found = runner.read_signatures(project, request) if request else {}
    if found is None:
        return None
    mismatches = check_signatures(spec, found)
    if mismatches:
        progress(f"GREEN's public signatures differ from the spec in {len(mismatches)} place(s)")
    return [vars(m) for m in mismatches]


def _conventions(settings: Settings, runner: LanguageRunner, project: Path) -> str:
    """What GREEN and REFACTOR are told about the tests and the code: the RED stage's tests as
    they are (not the kata's one-function-at-a-time tests), and the formatting rules RED was
    told too."""
    tests = settings.stages.red.test_directory
    return (
        f"The tests are the RED stage's pytest tests under {tests}/, committed before GREEN;"
        " read them in the codebase below. Put each component in the module its spec"
        " `file_path` names; the project root (and its src/, when it has one) is on the"
        f" import path. {runner.format_rules(project)}"
    )


def _recent_commits(git: Git) -> list[str]:
    """The last commits as the kata shows them: short SHA and subject, newest first."""
    return [f"{c.sha[:8]} {c.subject}" for c in git.log(5)]


def _artifact(
    spec: Spec,
    agent: KataAgent,
    result: AgentResult | None,
    reason: str,
    started: float,
    attempts: int,
) -> dict[str, Any]:
    calls = agent.drain_exchanges()
    return {
        "spec_id": spec.spec_id,
        "stage": "green" if isinstance(agent, ImplementerAgent) else "refactor",
        "valid": bool(result and result.success),
        "reason": reason,
        "attempts": attempts,
        "files_modified": list(result.files_modified) if result else [],
        "tests_passed": bool(result and result.tests_passed),
        "test_count": result.test_count if result else 0,
        "gates": dict(result.gates) if result else {},
        "commit": result.commits_made[-1] if result and result.commits_made else None,
        "seconds": round(time.monotonic() - started, 3),
        "llm": {
            "calls": len(calls),
            "prompt_tokens": sum(c.completion.usage.prompt_tokens for c in calls),
            "completion_tokens": sum(c.completion.usage.completion_tokens for c in calls),
            "cost": round(sum(c.completion.cost for c in calls), 6),
        },
    }


def _store(
    outcome: BuildOutcome, stage: str, data: dict[str, Any], spec: Spec, run: RunDir, project: Path
) -> None:
    path = default_artifact_path(project, spec.spec_id).with_name(f"{stage}.yaml")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump_data(data, json_format=False), encoding="utf-8")
    run.write_data(f"{stage}.yaml", data)
    run.event("artifact", stage=stage, valid=data["valid"], path=str(path))
    outcome.stages[stage], outcome.paths[stage] = data, path
