"""Drive the mutation worker: validate inputs, generate mutants, reuse verdicts, run, report.

The worker (``tddforge.target``'s ``worker`` entry, shipped by ``runner.ship``)
runs confined (``sandbox``) under the project's interpreter. A run
is *cold* (``score``: one worker process per run) or *warm* (``WarmWorker``:
one long-lived worker that keeps the interpreter and pytest loaded between
re-scorings). Either way the same cache decides which verdicts are provably
still valid, and the worker re-runs everything else.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO

from tddforge.config import Settings
from tddforge.errors import BaselineError, InputError, PytestStartError, RunnerError
from tddforge.mutation import fingerprints as fp
from tddforge.mutation.cache import CacheEntry, VerdictCache, cache_key
from tddforge.mutation.channel import (
    ResultsFile,
    baseline_event,
    done_event,
    error_event,
    follow,
    in_thread,
    mutant_events,
)
from tddforge.mutation.generate import find_mutants
from tddforge.mutation.mutant import Mutant
from tddforge.mutation.report import MutantResult, MutationReport
from tddforge.runner import project_paths
from tddforge.runner.pytest_config import NEUTRAL_INI, neutral_args
from tddforge.runner.ship import entry_argv, ship
from tddforge.sandbox import Limits, Sandbox
from tddforge.target.protocol import (
    ERROR,
    BaselineEvent,
    BaselineRecord,
    ErrorEvent,
    Event,
    MutantEvent,
    PriorVerdict,
    ServeAnswer,
    WorkerConfig,
)
from tddforge.types import Tally
from tddforge.workspace.git import Git


@dataclass(frozen=True)
class MutationJob:
    """What to mutate and how to run its tests."""

    project: Path
    module: Path
    tests: tuple[str, ...]
    python: Path
    workers: int = 2
    since_ref: str | None = None
    timeout: float = 3600.0
    use_cache: bool = True
    extra_pytest_args: tuple[str, ...] = ()


@dataclass
class Prepared:
    """A validated job with its mutants and cache state."""

    job: MutationJob
    source: str
    mutants: list[Mutant]
    pytest_args: list[str]
    key: str
    fingerprints: dict[str, str]
    prior: CacheEntry = field(default_factory=CacheEntry)


def prepare(job: MutationJob, cache: VerdictCache | None) -> Prepared:
    """Check the inputs and build the mutants; raise InputError with one line on bad input."""
    module = inside_project(job.project, job.module, "module")
    test_files = [inside_project(job.project, job.project / t, "test path") for t in job.tests]
    try:
        source = module.read_text(encoding="utf-8")
        mutants = find_mutants(source)
    except UnicodeDecodeError as exc:
        raise InputError(f"{job.module}: not UTF-8 text") from exc
    except SyntaxError as exc:
        raise InputError(f"{job.module}: syntax error at line {exc.lineno}: {exc.msg}") from exc
    if job.since_ref:
        lines = changed_lines(job.project, module, job.since_ref)
        mutants = [m for m in mutants if lines.intersection(m.lines)]
    # --tb=native: a killed mutant's failure report costs a traceback.format_exception,
    # not pytest's source-range analysis (which dominated a graft run's time).
    args = ["-p", "no:cacheprovider", "-p", "no:randomly", "-q", "--tb=native"]
    args += [f"--rootdir={job.project}", *job.extra_pytest_args]
    key = cache_key(source, str(job.python), args)
    prints = fp.fingerprints(job.project, _test_files(test_files))
    prior = cache.load(key) if cache is not None and job.use_cache else CacheEntry()
    return Prepared(job, source, mutants, args, key, prints, prior)


def inside_project(project: Path, path: Path, what: str) -> Path:
    """``path`` resolved; InputError when it does not exist or lies outside ``project``."""
    resolved = path.resolve()
    if not resolved.exists():
        raise InputError(f"{what} not found: {path}")
    if resolved != project.resolve() and project.resolve() not in resolved.parents:
        raise InputError(f"{what} {path} is outside the project {project}")
    return resolved


def _test_files(paths: Sequence[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(
                p
                for p in path.rglob("*.py")
                if p.name.startswith("test") or p.name.endswith("_test.py")
            )
        else:
            found.append(path)
    return found


def changed_lines(project: Path, module: Path, ref: str) -> set[int]:
    """Lines of ``module`` added or changed since git ``ref``."""
    out = Git(project).run("diff", "--unified=0", ref, "--", str(module))
    lines: set[int] = set()
    for row in out.splitlines():
        if row.startswith("@@"):
            added = row.split("+", 1)[1].split(" ", 1)[0]
            start, _, count = added.partition(",")
            lines.update(range(int(start), int(start) + int(count or 1)))
    return lines


def worker_config(prep: Prepared, results: Path) -> WorkerConfig:
    """The JSON the worker reads."""
    job = prep.job
    unchanged = fp.unchanged(prep.prior.fingerprints, prep.fingerprints)
    return WorkerConfig(
        target=str(job.module.resolve()),
        tests=list(job.tests),
        pytest_args=prep.pytest_args,
        mutants=[m.to_data() for m in prep.mutants],
        workers=job.workers,
        timeout_factor=TIMEOUT_FACTOR,
        timeout_floor=TIMEOUT_FLOOR,
        results=str(results),
        prior=prep.prior.verdicts,
        prior_baseline=prep.prior.baseline,
        unchanged_tests=unchanged,
        config_key=config_key(job, prep.pytest_args),
    )


def config_key(job: MutationJob, pytest_args: Sequence[str]) -> str:
    """What pytest's prepared config depends on: arguments, ini files and conftests.

    The warm worker keeps one prepared config while this key stays the same.
    """
    parts = [json.dumps([*pytest_args, *job.tests]), str(job.python)]
    names = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
    files = [job.project / n for n in names if (job.project / n).is_file()]
    files += sorted(
        {c for test in job.tests for c in _startup_conftests(job.project, job.project / test)}
    )
    for path in files:
        try:
            parts.append(f"{path}\0{path.read_text(encoding='utf-8', errors='replace')}")
        except OSError:
            parts.append(str(path))
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:24]


def _startup_conftests(project: Path, test_path: Path) -> list[Path]:
    """Conftests pytest loads at start-up for ``test_path``: its ancestors' and, for a
    directory, those below it (not the whole project, whose venvs ship many)."""
    root = project.resolve()
    target = test_path.resolve()
    folder = target if target.is_dir() else target.parent
    below = (
        [p for p in folder.rglob("conftest.py") if not _hidden(p, folder)]
        if target.is_dir()
        else []
    )
    return [*fp.conftest_paths(root, folder), *below]


def _hidden(path: Path, base: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(base).parts)


def _sandbox(job: MutationJob, settings: Settings) -> Sandbox:
    limits = Limits.from_config(settings.sandbox, job.timeout)
    return Sandbox(job.project, limits)


def _env(job: MutationJob) -> dict[str, str]:
    return {"PYTHONPATH": ":".join(project_paths(job.project.resolve()))}


@contextmanager
def _workspace(sandbox: Sandbox) -> Iterator[Path]:
    with sandbox.scratch() as private:
        ship(private)
        yield private


def _worker_argv(python: Path, private: Path, *args: str) -> list[str]:
    return entry_argv(python, private, "worker", *args)


def score(
    job: MutationJob,
    settings: Settings,
    progress: Tally | None = None,
    *,
    cache: VerdictCache | None = None,
) -> MutationReport:
    """Score ``job`` with a fresh worker process (a cold run)."""
    return with_neutral_fallback(job, lambda j: _score_cold(j, settings, progress, cache))


def with_neutral_fallback(
    job: MutationJob, run: Callable[[MutationJob], MutationReport]
) -> MutationReport:
    """Run; if pytest cannot start with the project's configuration, run again with a neutral one.

    The project's configuration is used whenever it works. When it cannot (say,
    ``addopts = --cov`` without pytest-cov), the run uses an empty ini with the
    project as rootdir and its conftests kept, and the report says why.
    """
    try:
        return run(job)
    except PytestStartError as exc:
        if "-c" in job.extra_pytest_args:
            raise
        first = exc
    neutral = job.project / ".tddforge" / "neutral-pytest.ini"
    neutral.parent.mkdir(parents=True, exist_ok=True)
    neutral.write_text(NEUTRAL_INI, encoding="utf-8")
    args = (*job.extra_pytest_args, *neutral_args(neutral, job.project))
    try:
        report = run(replace(job, extra_pytest_args=args))
    except PytestStartError:
        raise first from None  # the neutral configuration does not help: the first reason stands
    report.warnings.append(f"{first}; ran with a neutral pytest configuration instead")
    return report


def _score_cold(
    job: MutationJob, settings: Settings, progress: Tally | None, cache: VerdictCache | None
) -> MutationReport:
    prep = prepare(job, cache)
    started = time.monotonic()
    sandbox = _sandbox(job, settings)
    with _workspace(sandbox) as private:
        results = ResultsFile(private / "results.jsonl")
        config = private / "config.json"
        config.write_text(json.dumps(worker_config(prep, results.path)), encoding="utf-8")
        argv = _worker_argv(job.python, private, str(config))
        run = in_thread(
            lambda: sandbox.run(argv, cwd=job.project, timeout=job.timeout, extra_env=_env(job))
        )
        follow(results, len(prep.mutants), run, progress)
        outcome = run.result
        lines = results.finish()
    sandbox.close()
    if outcome is not None and outcome.timed_out:
        message = f"mutation run exceeded {job.timeout:g} s"
        lines.append(ErrorEvent(event=ERROR, kind="timeout", message=message))
    return _finish(
        prep, lines, time.monotonic() - started, cache, (outcome.stderr if outcome else "")
    )


class WarmWorker:
    """A long-lived worker for one project: re-scoring skips interpreter start-up and imports."""

    def __init__(self, project: Path, python: Path, settings: Settings, *, timeout: float = 3600.0):
        self.project = project
        self.python = python
        self.timeout = timeout
        job = MutationJob(project, project, (), python, timeout=timeout)
        self._sandbox = _sandbox(job, settings)
        self._private_cm = _workspace(self._sandbox)
        self._private = self._private_cm.__enter__()
        argv = _worker_argv(python, self._private, "--serve")
        self._proc = self._sandbox.start(argv, cwd=project, extra_env=_env(job))
        self._requests = 0

    def score(
        self,
        job: MutationJob,
        progress: Tally | None = None,
        *,
        cache: VerdictCache | None = None,
    ) -> MutationReport:
        """Score ``job`` in the warm worker."""
        return with_neutral_fallback(job, lambda j: self._score(j, progress, cache))

    def _score(
        self, job: MutationJob, progress: Tally | None, cache: VerdictCache | None
    ) -> MutationReport:
        prep = prepare(job, cache)
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
        return _finish(prep, lines, time.monotonic() - started, cache, "")

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


def _finish(
    prep: Prepared,
    lines: list[Event],
    elapsed: float,
    cache: VerdictCache | None,
    stderr: str,
) -> MutationReport:
    baseline = _checked_baseline(lines, stderr)
    verdicts = mutant_events(lines)
    done = done_event(lines)
    phases = done["timings"] if done is not None else {}
    results = [_result(m, verdicts.get(m.id)) for m in prep.mutants]
    if cache is not None:
        merged = {
            **prep.prior.verdicts,
            **{r.mutant.id: _cached(r) for r in results if r.verdict != "error"},
        }
        records = _baseline_records(baseline)
        cache.save(prep.key, CacheEntry(prep.fingerprints, merged, records))
    rel = prep.job.module.resolve().relative_to(prep.job.project.resolve()).as_posix()
    tests = baseline["tests"]
    seconds = {n: t["duration"] for n, t in tests.items() if t.get("outcome") == "passed"}
    covered = {n: tuple(found) for n, found in baseline["coverage"].items()}
    return MutationReport(
        rel,
        prep.source,
        results,
        len(tests),
        elapsed,
        baseline_seconds=sum(seconds.values()),
        collect_seconds=baseline["collect_seconds"],
        test_seconds=seconds,
        test_lines=covered,
        collect_lines=frozenset(baseline["collect_lines"]),
        mutant_seconds=phases.get("graft", 0.0) + phases.get("fresh", 0.0),
    )


def _one_line(text: object) -> str:
    return " | ".join(part.strip() for part in str(text).splitlines() if part.strip())


def _baseline_records(baseline: BaselineEvent) -> dict[str, BaselineRecord]:
    """Per-test baseline records (outcome, duration, covered lines) for the cache."""
    coverage = baseline["coverage"]
    return {
        nodeid: BaselineRecord(
            duration=test["duration"], outcome=test["outcome"], lines=coverage.get(nodeid, [])
        )
        for nodeid, test in baseline["tests"].items()
    }


def _checked_baseline(lines: list[Event], stderr: str) -> BaselineEvent:
    """The worker's baseline; the first error it reported, raised, when it reported one."""
    error = error_event(lines)
    baseline = baseline_event(lines)
    if error is None and baseline is not None:
        return baseline
    if error is None:
        tail = stderr.strip().splitlines()[-1:] or ["no output"]
        raise RunnerError(f"the mutation worker produced no baseline: {tail[0]}")
    if error["kind"] == "baseline_failing":
        failing = error.get("failing", [])
        shown = ", ".join(failing[:5]) + (
            f" and {len(failing) - 5} more" if len(failing) > 5 else ""
        )
        raise BaselineError(f"the tests must pass before mutation; failing: {shown}")
    if error["kind"] == "pytest":
        raise PytestStartError(f"the tests cannot run: {_one_line(error.get('message'))}")
    if error["kind"] in ("collection", "no_tests"):
        raise BaselineError(f"the tests cannot run: {_one_line(error.get('message'))}")
    raise RunnerError(f"mutation run failed: {_one_line(error.get('message'))}")


def _result(mutant: Mutant, row: MutantEvent | None) -> MutantResult:
    if row is None:
        return MutantResult(mutant, "error", detail="the worker gave no verdict")
    return MutantResult(
        mutant,
        row.get("verdict", "error"),
        killer=row.get("killer"),
        ran=tuple(row.get("ran") or ()),
        duration=float(row.get("duration") or 0.0),
        reused=bool(row.get("reused")),
        detail=row.get("detail"),
    )


def _cached(result: MutantResult) -> PriorVerdict:
    return PriorVerdict(verdict=result.verdict, killer=result.killer, ran=list(result.ran))


# The worker's timeout rule (target.baseline.Measured): floor + factor x the covering tests' baseline time.
TIMEOUT_FLOOR = 2.0
TIMEOUT_FACTOR = 5.0
STARTUP_ALLOWANCE = 3.0  # a fresh interpreter: start-up, pytest import, collection


def ground_truth_timeout(report: MutationReport, mutant: Mutant) -> tuple[float, str]:
    """The CPU budget of ``mutant``'s reference run by the engine's own rule, and the phase
    it counts from: ``"tests"`` (the tests start) or ``"session"`` (collection starts).

    A mutant the engine switches on in live functions gets ``TIMEOUT_FLOOR +
    TIMEOUT_FACTOR x`` its covering tests' baseline time for those tests; the
    reference, which runs every test, gets that plus the other tests' own time
    (twice over, for noise). A mutant the engine imports fresh (import-time code,
    or a function the collection already ran) gets the whole suite's budget plus
    three collections, counted from collection on, in both. Otherwise --verify
    would report a difference in timeout policy instead of one in execution.
    """
    lines = set(mutant.lines)
    fresh = (
        mutant.strategy != "graft" or not report.test_lines or bool(lines & report.collect_lines)
    )
    if fresh:
        everything = sum(report.test_seconds.values())
        budget = TIMEOUT_FLOOR + TIMEOUT_FACTOR * everything + 3 * report.collect_seconds
        return budget, "session"
    covering = {n for n, run in report.test_lines.items() if lines.intersection(run)}
    slow = sum(t for n, t in report.test_seconds.items() if n in covering)
    rest = sum(t for n, t in report.test_seconds.items() if n not in covering)
    return 2 * rest + TIMEOUT_FLOOR + TIMEOUT_FACTOR * slow, "tests"


def ground_truth_startup(report: MutationReport) -> float:
    """CPU seconds for a reference run's start-up before its budget starts: the
    interpreter, pytest and its configuration, and for a ``"tests"`` budget the collection
    (a mutant that hangs at import time runs out of them)."""
    return STARTUP_ALLOWANCE + 3 * report.collect_seconds


def run_ground_truth(
    job: MutationJob,
    settings: Settings,
    mutants: Sequence[Mutant],
    progress: Tally | None = None,
    *,
    report: MutationReport | None = None,
) -> dict[str, str]:
    """Each mutant in a fresh interpreter, every test in file order: the reference verdicts.

    With the engine's ``report``, slowness is a timeout by the engine's rule: each
    mutant gets ``ground_truth_timeout`` CPU seconds, ``ground_truth_startup``
    before them; the wall-clock limit is a roomy backstop for a mutant that
    blocks without using CPU.
    """
    prep = prepare(job, None)
    start_up = ground_truth_startup(report) if report is not None else 0.0
    verdicts: dict[str, str] = {}
    sandbox = _sandbox(job, settings)
    with _workspace(sandbox) as private:
        config = private / "config.json"
        config.write_text(
            json.dumps(worker_config(prep, private / "unused.jsonl")), encoding="utf-8"
        )

        def judge(indexed: tuple[int, Mutant]) -> tuple[str, str]:
            index, mutant = indexed
            out = private / f"gt-{index}.json"
            args = (str(config), mutant.id, str(out))
            argv = entry_argv(job.python, private, "reference", *args)
            wall = 60.0
            if report is not None:
                limit, phase = ground_truth_timeout(report, mutant)
                argv += [str(limit), str(start_up), phase]
                wall = max(wall, 3 * (limit + start_up))
            result = sandbox.run(argv, cwd=job.project, timeout=wall, extra_env=_env(job))
            return mutant.id, _ground_verdict(result.timed_out, out)

        with ThreadPoolExecutor(max_workers=job.workers) as pool:
            for mutant_id, verdict in pool.map(judge, enumerate(mutants)):
                verdicts[mutant_id] = verdict
                if progress is not None:
                    progress(len(verdicts), len(mutants))
    return verdicts


def _ground_verdict(timed_out: bool, out: Path) -> str:
    if timed_out:
        return "timeout"
    try:
        return str(json.loads(out.read_text(encoding="utf-8"))["verdict"])
    except (OSError, ValueError, KeyError):
        return "error"


def verdict_differences(
    report: MutationReport, truth: dict[str, str]
) -> list[tuple[str, str, str]]:
    """(mutant id, ours, ground truth) wherever they disagree; no-coverage counts as survived."""
    diffs = []
    for result in report.results:
        ours = "survived" if result.verdict == "no-coverage" else result.verdict
        theirs = truth.get(result.mutant.id)
        if theirs is not None and ours != theirs:
            diffs.append((result.mutant.id, result.verdict, theirs))
    return diffs


__all__ = [
    "MutationJob",
    "WarmWorker",
    "changed_lines",
    "prepare",
    "run_ground_truth",
    "score",
    "verdict_differences",
]
