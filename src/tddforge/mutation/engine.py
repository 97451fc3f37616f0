"""Drive the mutation worker: validate inputs, generate mutants, reuse verdicts, run, report.

The worker (``tddforge.target``'s ``worker`` entry, shipped by ``runner.ship``)
runs confined (``sandbox``) under the project's interpreter. A run
is *cold* (``score``: one worker process per run) or *warm* (``WarmWorker``:
one long-lived worker that keeps the interpreter and pytest loaded between
re-scorings). Either way the same cache decides which verdicts are provably
still valid, and the worker re-runs everything else. One run scores one
module (``score``) or many against one suite (``score_project``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import IO, Any, TypeVar

from tddforge.config import Settings
from tddforge.errors import PytestStartError, RunnerError
from tddforge.mutation.assemble import assemble
from tddforge.mutation.cache import VerdictCache
from tddforge.mutation.channel import ResultsFile, follow, in_thread
from tddforge.mutation.ground_truth import run_ground_truth, verdict_differences, verify_project
from tddforge.mutation.job import MutationJob, Prepared, prepare, worker_config
from tddforge.mutation.project import ProjectReport
from tddforge.mutation.report import MutationReport
from tddforge.mutation.running import sandbox_for, worker_env, workspace
from tddforge.runner.plugin_cache import warm_plugins
from tddforge.runner.pytest_config import (
    NEUTRAL_INI,
    block_args,
    blocked_note,
    neutral_args,
    unloadable_plugins,
)
from tddforge.runner.ship import entry_argv
from tddforge.sandbox import Sandbox
from tddforge.target.protocol import ERROR, ErrorEvent, ServeAnswer
from tddforge.types import Tally
from tddforge.workspace.paths import atomic_write

R = TypeVar("R", bound=MutationReport | ProjectReport)


def score(
    job: MutationJob,
    settings: Settings,
    progress: Tally | None = None,
    *,
    cache: VerdictCache | None = None,
) -> MutationReport:
    """Score ``job``'s module with a fresh worker process (a cold run)."""
    return with_neutral_fallback(
        job, lambda j: _score_cold(j, settings, progress, cache).single(), _plugins(settings)
    )


def score_project(
    job: MutationJob,
    settings: Settings,
    progress: Tally | None = None,
    *,
    cache: VerdictCache | None = None,
) -> ProjectReport:
    """Score every module of ``job`` against its suite in one cold run."""
    return with_neutral_fallback(
        job, lambda j: _score_cold(j, settings, progress, cache), _plugins(settings)
    )


def _plugins(settings: Settings) -> Callable[[MutationJob], tuple[str, ...]]:
    """The installed pytest plugins a job's project cannot import, found in its sandbox."""

    def unloadable(job: MutationJob) -> tuple[str, ...]:
        sandbox = sandbox_for(job, settings)
        try:
            return unloadable_plugins(job.project, job.python, sandbox)
        finally:
            sandbox.close()

    return unloadable


def with_neutral_fallback(
    job: MutationJob,
    run: Callable[[MutationJob], R],
    unloadable: Callable[[MutationJob], tuple[str, ...]],
) -> R:
    """Run; if pytest cannot start with the project's configuration, run again without
    the installed plugins it cannot import, then with a neutral configuration.

    The project's configuration is used whenever it works. When it cannot (say,
    ``addopts = --cov`` without pytest-cov), the run uses an empty ini with the
    project as rootdir and its conftests kept, and the report says why.
    ``unloadable`` names the installed plugins the project cannot import.
    """
    try:
        return run(job)
    except PytestStartError as exc:
        if "-c" in job.extra_pytest_args:
            raise
        first = exc
    blocked = unloadable(job)
    if blocked:
        job = replace(job, extra_pytest_args=(*job.extra_pytest_args, *block_args(blocked)))
        try:
            report = run(job)
        except PytestStartError:
            pass
        else:
            report.warnings.append(blocked_note(blocked))
            return report
    neutral = job.project / ".tddforge" / "neutral-pytest.ini"
    neutral.parent.mkdir(parents=True, exist_ok=True)
    neutral.write_text(NEUTRAL_INI, encoding="utf-8")
    args = (*job.extra_pytest_args, *neutral_args(neutral, job.project))
    try:
        report = run(replace(job, extra_pytest_args=args))
    except PytestStartError:
        raise first from None  # the neutral configuration does not help: the first reason stands
    report.warnings.append(f"{first}; ran with a neutral pytest configuration instead")
    if blocked:
        report.warnings.append(blocked_note(blocked))
    return report


def _score_cold(
    job: MutationJob, settings: Settings, progress: Tally | None, cache: VerdictCache | None
) -> ProjectReport:
    sandbox = sandbox_for(job, settings)
    with workspace(sandbox) as private:
        results = ResultsFile(private / "results.jsonl")
        config = private / "config.json"
        argv = entry_argv(job.python, private, "worker", str(config))
        warm_plugins(job.python, job.project)
        # the worker starts (interpreter, pytest's imports) while the mutants are made;
        # it waits for its config, or for word that there is none (bad input)
        run = in_thread(
            lambda: sandbox.run(
                argv, cwd=job.project, timeout=job.timeout, extra_env=worker_env(job)
            )
        )
        try:
            prep = prepare(job, cache)
        except BaseException:
            _publish(config, {"abort": True})
            run.join()
            sandbox.close()
            raise
        started = time.monotonic()
        _publish(config, worker_config(prep, results.path))
        follow(results, len(prep.mutants), run, progress)
        outcome = run.result
        lines = results.finish()
    sandbox.close()
    if outcome is not None and outcome.timed_out:
        message = f"mutation run exceeded {job.timeout:g} s"
        lines.append(ErrorEvent(event=ERROR, kind="timeout", message=message))
    stderr = outcome.stderr if outcome else ""
    return assemble(prep, lines, time.monotonic() - started, cache, stderr)


def _publish(path: Path, config: Mapping[str, Any]) -> None:
    """The worker's config, written whole: the worker waiting for it never reads half."""
    atomic_write(path, json.dumps(config).encode("utf-8"))


class WarmWorker:
    """A long-lived worker for one project: re-scoring skips interpreter start-up and imports."""

    def __init__(self, project: Path, python: Path, settings: Settings, *, timeout: float = 3600.0):
        self.project = project
        self.python = python
        self.timeout = timeout
        job = MutationJob(project, project, (), python, timeout=timeout)
        self._sandbox = sandbox_for(job, settings)
        self._private_cm = workspace(self._sandbox)
        self._private = self._private_cm.__enter__()
        argv = entry_argv(python, self._private, "worker", "--serve")
        warm_plugins(python, project)
        self._proc = self._sandbox.start(argv, cwd=project, extra_env=worker_env(job))
        self._requests = 0

    def score(
        self,
        job: MutationJob,
        progress: Tally | None = None,
        *,
        cache: VerdictCache | None = None,
    ) -> MutationReport:
        """Score ``job``'s module in the warm worker."""
        return with_neutral_fallback(
            job, lambda j: self._score(j, progress, cache).single(), self._unloadable
        )

    def score_project(
        self,
        job: MutationJob,
        progress: Tally | None = None,
        *,
        cache: VerdictCache | None = None,
    ) -> ProjectReport:
        """Score every module of ``job`` in the warm worker."""
        return with_neutral_fallback(
            job, lambda j: self._score(j, progress, cache), self._unloadable
        )

    def _unloadable(self, job: MutationJob) -> tuple[str, ...]:
        return unloadable_plugins(job.project, job.python, self._sandbox)

    def _score(
        self, job: MutationJob, progress: Tally | None, cache: VerdictCache | None
    ) -> ProjectReport:
        prep: Prepared = prepare(job, cache)
        started = time.monotonic()
        self._requests += 1
        results = ResultsFile(self._private / f"results-{self._requests}.jsonl")
        stdin, stdout = self._streams()
        stdin.write((json.dumps(worker_config(prep, results.path)) + "\n").encode())
        stdin.flush()
        answer = in_thread(stdout.readline)
        follow(results, len(prep.mutants), answer, progress)
        reply = answer.result
        if not reply:
            raise RunnerError("the warm mutation worker stopped unexpectedly")
        lines = results.finish()
        status: ServeAnswer = json.loads(reply)
        if not status.get("done"):
            message = status.get("error", "worker failed")
            lines.append(ErrorEvent(event=ERROR, kind="worker", message=message))
        return assemble(prep, lines, time.monotonic() - started, cache, "")

    def _streams(self) -> tuple[IO[bytes], IO[bytes]]:
        if self._proc.poll() is not None or self._proc.stdin is None or self._proc.stdout is None:
            raise RunnerError("the warm mutation worker is not running")
        return self._proc.stdin, self._proc.stdout

    def close(self) -> None:
        """Stop the worker and remove its private directory."""
        Sandbox.stop(self._proc)
        self._private_cm.__exit__(None, None, None)
        self._sandbox.close()

    def __enter__(self) -> WarmWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = [
    "MutationJob",
    "WarmWorker",
    "prepare",
    "run_ground_truth",
    "score",
    "score_project",
    "verdict_differences",
    "verify_project",
]
