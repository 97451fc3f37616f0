"""The RED stage: spec → test files → sandboxed run → validated, traced artifact.

Order matters for "nothing is written on bad input": the model is asked first
and the run directory exists only once it has answered. Test files are written
only under the configured test directory (or as a root ``conftest.py``), never
over a user's file without keeping a copy in the run directory.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tddforge.agents.red import RedAgent, RedReply
from tddforge.analysis.testsource import list_tests
from tddforge.config import Settings
from tddforge.decisions.red_validation import RedPolicy, RedVerdict, TestFact, validate_red
from tddforge.decisions.spec_conformance import check_tests
from tddforge.decisions.traceability import trace
from tddforge.llm.base import LLMClient
from tddforge.orchestration import red_artifact as out
from tddforge.outcome import Outcome
from tddforge.runner import TestRun, run_pytest
from tddforge.sandbox import Limits, Sandbox
from tddforge.spec import Spec, provided_names
from tddforge.store.rundir import RunDir, dump_data
from tddforge.types import Progress
from tddforge.workspace.confined import ConfinedPath
from tddforge.workspace.fileblocks import FileBlock
from tddforge.workspace.paths import write_blocks

OUTPUT_LIMIT = 20_000


@dataclass(frozen=True)
class RedOptions:
    """How to run the stage, beyond the settings."""

    project: Path
    python: Path
    out: Path | None = None
    json: bool = False
    timeout: float | None = None


@dataclass(frozen=True)
class RedResult:
    """The stage's result: the artifact, where it was written, and the run dir."""

    artifact: out.RedArtifact
    written: tuple[Path, ...]
    run: RunDir
    stopped: str = ""  # why the agent stopped early (the max-cost cap), or ""

    def outcome(self) -> Outcome:
        """The workflow's outcome: the goal is a valid RED."""
        reason = self.stopped.split(":", 1)[0] or ("valid" if self.artifact.valid else "invalid")
        return Outcome(
            "red",
            self.artifact.valid,
            reason,
            self.artifact.model_dump(mode="json"),
            self.run.path,
            self.written,
        )


def run_red(
    spec: Spec, llm: LLMClient, settings: Settings, options: RedOptions, progress: Progress
) -> Outcome:
    """``tddforge red``: the RED stage end to end, as a workflow outcome."""
    return red_stage(spec, llm, settings, options, progress).outcome()


def red_stage(
    spec: Spec, llm: LLMClient, settings: Settings, options: RedOptions, progress: Progress
) -> RedResult:
    """Run the RED stage end to end."""
    config = settings.stages.red
    progress(f"asking the model for tests of {spec.spec_id}")
    reply = RedAgent(llm, config, options.project).generate(spec)
    if reply.sent_mismatches:
        progress(
            f"the tests used {len(reply.sent_mismatches)} name(s) the spec does not declare:"
            " asked the model once to fix them"
        )
    if reply.stopped:
        progress(f"stopping: {reply.stopped}")
    run = RunDir.create(options.project, "red")
    run.event("llm_reply", calls=len(reply.completions), blocks=len(reply.blocks))
    _save_transcript(run, reply)
    files, refused = _write_tests(reply, config.test_directory, run)
    for refusal in refused:
        progress(f"refused {refusal.path}: {refusal.reason}")
    test_run: TestRun | None = None
    if files:
        progress(f"running {len(files)} test file(s) in the sandbox")
        test_run = _run_tests(options, settings, [f.path for f in files])
        run.event("tests_ran", total=test_run.total, timed_out=test_run.timed_out)
    artifact = build_artifact(spec, run.run_id, reply, files, refused, test_run, settings)
    artifact.run_dir = str(run.path)
    return RedResult(artifact, _write_artifact(artifact, options, run), run, reply.stopped)


def _write_tests(
    reply: RedReply, test_dir: str, run: RunDir
) -> tuple[list[out.TestFile], list[out.RefusedFile]]:
    """Write the reply's test files; every file replaced is kept in the run dir first."""
    allowed: list[FileBlock] = []
    refused = [out.RefusedFile(path=r.path, reason=r.reason) for r in reply.refused]
    for block in reply.blocks:
        reason = _outside_tests(block.path, test_dir)
        if reason:
            refused.append(out.RefusedFile(path=block.path.rel, reason=reason))
        else:
            allowed.append(block)
    report = write_blocks(allowed)
    for rel, previous in report.replaced.items():
        run.write_bytes(f"replaced/{rel}", previous)
    refused += [out.RefusedFile(path=r.path, reason=r.reason) for r in report.refused]
    by_path = {b.path.rel: b.content for b in allowed}
    files = [out.TestFile(path=p, content=by_path[p]) for p in report.written]
    run.event("files_written", written=report.written, refused=[r.path for r in refused])
    return files, refused


def _outside_tests(path: ConfinedPath, test_dir: str) -> str:
    """Why RED may not write ``path`` (empty when it may): tests only, under ``test_dir``."""
    prefix = PurePosixPath(test_dir).parts
    if path.parts == ("conftest.py",) or path.parts[: len(prefix)] == prefix:
        return "" if path.rel.endswith(".py") else "RED writes Python test files only"
    return f"RED writes tests only, under {test_dir}/"


def _run_tests(options: RedOptions, settings: Settings, paths: list[str]) -> TestRun:
    timeout = options.timeout or settings.stages.red.timeout_seconds
    sandbox = Sandbox(options.project, Limits.from_config(settings.sandbox, timeout))
    return run_pytest(
        options.project, python=options.python, sandbox=sandbox, paths=paths, timeout=timeout
    )


def facts_from_run(test_run: TestRun, files: Sequence[out.TestFile]) -> list[TestFact]:
    """Per-test facts, including the tests of files that could not be collected."""
    facts = [
        TestFact(o.nodeid, o.outcome, o.failure_kind, o.missing_name, o.message)
        for o in test_run.outcomes
    ]
    sources = {f.path: f.content for f in files}
    for error in test_run.collection_errors:
        path = error.nodeid.split("::", 1)[0]
        names = [t.nodeid for t in list_tests(path, sources.get(path, ""))] or [path]
        facts += [
            TestFact(n, "error", error.failure_kind, error.missing_name, error.message)
            for n in names
        ]
    return facts


def build_artifact(
    spec: Spec,
    request_id: str,
    reply: RedReply,
    files: Sequence[out.TestFile],
    refused: Sequence[out.RefusedFile],
    test_run: TestRun | None,
    settings: Settings,
) -> out.RedArtifact:
    """Assemble the artifact from what was measured."""
    facts = facts_from_run(test_run, files) if test_run else []
    policy = RedPolicy(settings.stages.red.allow_some_passes, settings.stages.red.max_pass_ratio)
    verdict = validate_red(facts, provided_names(spec), policy)
    tests = [t for f in files for t in list_tests(f.path, f.content)]
    traced = trace([c.id for c in spec.test_cases], tests, [f.name for f in facts])
    warnings = list(verdict.warnings)
    if not files:
        warnings.insert(0, "No test files generated")
    warnings += [f"reply problem: {p}" for p in reply.problems]
    warnings += [f"stopped early: {reply.stopped}"] if reply.stopped else []
    if traced.uncovered:
        warnings.append(f"spec cases with no test: {', '.join(traced.uncovered)}")
    if reply.sent_mismatches:
        warnings.append(
            f"the tests used {len(reply.sent_mismatches)} name(s) the spec does not declare:"
            " sent back once for repair"
        )
    mismatches = check_tests(spec, {f.path: f.content for f in files})
    if mismatches:
        warnings.append(
            f"the tests use {len(mismatches)} name(s) the spec does not declare"
            " (see spec_mismatches)"
        )
    return out.RedArtifact(
        spec_id=spec.spec_id,
        request_id=request_id,
        valid=verdict.valid and bool(files),
        test_files=list(files),
        test_results=_results(test_run, facts, verdict),
        failing_tests=list(verdict.failing_tests),
        unexpected_passes=list(verdict.unexpected_passes),
        invalid_red=[out.InvalidRedEntry(**vars(i)) for i in verdict.invalid_red],
        warnings=warnings,
        traceability=out.TraceabilityOut(**vars(traced)),
        spec_mismatches=[out.SpecMismatchOut(**vars(m)) for m in mismatches],
        refused_files=list(refused),
        components=[c.model_dump(mode="json") for c in spec.components],
        acceptance_criteria=[c.model_dump(mode="json") for c in spec.acceptance_criteria],
        llm=_llm_summary(reply),
    )


def _results(
    test_run: TestRun | None, facts: Sequence[TestFact], verdict: RedVerdict
) -> out.TestResults:
    if test_run is None:
        return out.TestResults()
    durations = {o.nodeid: o.duration for o in test_run.outcomes}
    details = [
        out.TestDetail(
            name=f.name,
            status=f.status,
            message=(f.message or "")[:2000],
            failure_kind=f.failure_kind,
            duration=round(durations.get(f.name, 0.0), 4),
            red_reason=verdict.red_reasons.get(f.name),
        )
        for f in facts
    ]
    count = {
        s: sum(1 for f in facts if f.status == s) for s in ("passed", "failed", "error", "skipped")
    }
    return out.TestResults(
        passed=count["passed"],
        failed=count["failed"],
        errors=count["error"],
        skipped=count["skipped"],
        total=len(facts),
        exit_code=test_run.exit_code,
        timed_out=test_run.timed_out,
        duration=round(test_run.duration, 3),
        output=test_run.output[-OUTPUT_LIMIT:],
        test_details=details,
    )


def _llm_summary(reply: RedReply) -> out.LLMSummary:
    done = reply.completions
    return out.LLMSummary(
        model=done[-1].model if done else "",
        calls=len(done),
        prompt_tokens=sum(c.usage.prompt_tokens for c in done),
        completion_tokens=sum(c.usage.completion_tokens for c in done),
        cost=round(sum(c.cost for c in done), 6),
    )


def _save_transcript(run: RunDir, reply: RedReply) -> None:
    lines = [f"## {m.role}\n\n{m.content}\n" for m in reply.transcript]
    run.write_text("transcript.md", "\n".join(lines))


def default_artifact_path(project: Path, spec_id: str) -> Path:
    """Where the RED artifact goes when ``--out`` is not given."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in spec_id)
    return project / ".tddforge" / "artifacts" / safe / "red.yaml"


def _write_artifact(
    artifact: out.RedArtifact, options: RedOptions, run: RunDir
) -> tuple[Path, ...]:
    data = artifact.model_dump(mode="json")
    target = options.out or default_artifact_path(options.project, artifact.spec_id)
    paths = [target] + ([target.with_suffix(".json")] if options.json else [])
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump_data(data, json_format=path.suffix == ".json"), encoding="utf-8")
    run.write_data("red.yaml", data)
    run.event("artifact", valid=artifact.valid, paths=[str(p) for p in paths])
    return tuple(paths)
