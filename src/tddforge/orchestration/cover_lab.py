"""Measuring one candidate suite for the cover loop: static checks, reruns, coverage, mutation.

``SuiteLab`` owns what a cover session keeps between attempts: the sandbox,
the pytest arguments (the project's configuration, or a neutral one), the
coverage rc file, one warm mutation worker and its
verdict cache in the run directory, and the scorings the worker did: a suite
whose verdicts all follow from one of them (``cover_reuse``: the final suite,
pruned from an attempt) is not scored again. It writes the suite only at the test
path, and after every run checks that the module under test still has its
original bytes (a generated test that writes to it is undone and reported).
"""

from __future__ import annotations

import errno
import itertools
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Generic, TypeVar

from tddforge.analysis.static import StaticReport, analyze
from tddforge.config import Settings
from tddforge.cover_contract import CoverTarget
from tddforge.decisions.cover_suite import (
    NOT_RUN,
    Stability,
    polluters,
    stability,
    test_key,
)
from tddforge.errors import BaselineError, RunnerError
from tddforge.mutation import fingerprints as fp
from tddforge.mutation.cache import VerdictCache
from tddforge.mutation.engine import MutationJob, WarmWorker
from tddforge.mutation.report import MutationReport
from tddforge.orchestration.cover_reuse import Scoring, derive
from tddforge.runner import FileCoverage, TestOutcome, TestRun, run_pytest, run_pytest_orders
from tddforge.runner.pytest_config import ConfigCheck, check_config, neutral_args
from tddforge.runner.pytest_run import own_entries
from tddforge.sandbox import Limits, Sandbox
from tddforge.store.rundir import RunDir
from tddforge.target.reuse import test_keys
from tddforge.target.workdir import entries, remove_path
from tddforge.workspace.paths import write_file

# coverage.py settings of our own, so the project's (its omit lists, its contexts) never apply
COVERAGE_RC = "[run]\nbranch = True\n"


T = TypeVar("T")

DEPENDS = "fails when run alone (depends on other tests)"
# the project's own files are read-only to the runs (``own_entries``): a test told so failed
WRITES_PROJECT = "writes the project's own files (refused: read-only to the tests)"
# writing there is refused (EROFS); removing a protected entry, a mount point, is too (EBUSY)
_REFUSED = (f"[Errno {errno.EROFS}]", f"[Errno {errno.EBUSY}]")


@dataclass(frozen=True)
class Noted(Generic[T]):
    """A lab result and the notes taken while getting it (a module restored, a score missing)."""

    value: T
    notes: tuple[str, ...] = ()


class RunFailed(RunnerError):
    """A run that failed, with the notes taken after it (the module restored)."""

    def __init__(self, message: str, notes: tuple[str, ...]) -> None:
        super().__init__(message)
        self.notes = notes


@dataclass
class Measurement:
    """What one suite did: static findings, per-test verdicts, coverage and mutation."""

    code: str
    static: StaticReport
    collected: int = 0
    run_error: str | None = None
    verdicts: dict[str, Stability] = field(default_factory=dict)
    coverage: FileCoverage | None = None
    mutation: MutationReport | None = None
    notes: list[str] = field(default_factory=list)
    # the stable tests' alone check (``SuiteLab.alone``), when it was started with the reruns
    alone: Future[dict[str, str]] | None = None

    def take(self, noted: Noted[T]) -> T:
        """``noted``'s value; its notes join this measurement's."""
        self.notes.extend(noted.notes)
        return noted.value

    @property
    def ran(self) -> bool:
        """True when the suite was run (it parsed and pytest produced results)."""
        return self.static.syntax_ok and self.run_error is None and self.collected > 0

    @property
    def stable(self) -> list[str]:
        """Keys of the tests that passed every run."""
        return [v.key for v in self.stable_verdicts]

    @property
    def stable_verdicts(self) -> list[Stability]:
        """Verdicts of the tests that passed every run."""
        return [v for v in self.verdicts.values() if v.status == "stable"]

    @property
    def coverage_percent(self) -> float | None:
        """coverage.py's figure for the module (lines and branches), or None."""
        return None if self.coverage is None else round(self.coverage.percent_covered, 2)

    @property
    def mutation_score(self) -> float | None:
        """The stable tests' strict mutation score (uncovered mutants count as survivors)."""
        score = None if self.mutation is None else self.mutation.strict_score
        return None if score is None else round(score, 2)


@dataclass(frozen=True)
class Checked:
    """The sandbox a cover session runs the project's tests in, and the project's pytest
    configuration as checked there."""

    sandbox: Sandbox
    config: ConfigCheck

    @classmethod
    def make(cls, project: Path, python: Path, settings: Settings) -> Checked:
        """Check the configuration (it writes nothing the project keeps)."""
        limits = Limits.from_config(settings.sandbox, settings.cover.test_timeout_seconds)
        sandbox = Sandbox(project, limits)
        return cls(sandbox, check_config(project, python, sandbox))


class SuiteLab:
    """Runs candidate suites for one cover session."""

    def __init__(
        self,
        target: CoverTarget,
        python: Path,
        settings: Settings,
        run: RunDir,
        workers: int,
        checked: Checked | None = None,
    ) -> None:
        """``checked``: the project's pytest configuration, when already checked
        (``Checked.make``); checked here otherwise."""
        self.target = target
        self.project = target.project
        self.python = python
        self.settings = settings
        self.cfg = settings.cover
        self.run = run
        self.workers = workers
        self.module = self.project / target.module_rel
        self.original = self.module.read_bytes()
        # the project's entries as it came: read-only to every run, and all that is left
        # when the lab closes (a file a suite's test wrote must not become the project's
        # for the next suite: PyPDF2's tests wrote ``dont_commit_merged.pdf`` in attempt 0,
        # and every test writing it again was refused in attempt 1)
        self.own = own_entries(self.project)
        checked = checked or Checked.make(self.project, python, settings)
        self.sandbox, self.config = checked.sandbox, checked.config
        self.rcfile = run.write_text("coveragerc", COVERAGE_RC)
        self.pytest_args = self._pytest_args(self.config)
        self.cache = VerdictCache(run.path / "mutation-cache")
        self._worker: WarmWorker | None = None
        self._background = ThreadPoolExecutor(max_workers=1)
        self._alone: Future[dict[str, str]] | None = None
        self._alone_seen: dict[str, str | None] = {}  # fingerprint → why not alone (None: it is)
        self._printed: tuple[str | None, dict[str, str]] = (None, {})  # a suite's text, prints
        self._runs = 0
        self._scorings: list[Scoring] = []  # the worker's, oldest first

    def _pytest_args(self, check: ConfigCheck) -> list[str]:
        args = [*check.pytest_args, "-p", "no:randomly"]
        if check.usable:
            return args
        ini = self.run.write_text("neutral-pytest.ini", "[pytest]\n")
        return [*neutral_args(ini, self.project), *args]

    def close(self) -> None:
        """Stop the warm worker and the alone checks still running; remove what the runs'
        tests made beside the project's entries (the suite's own file stays)."""
        self._background.shutdown(wait=True, cancel_futures=True)
        self._close_worker()
        kept = {path.name for path in self.own} | {Path(self.target.test_path).parts[0]}
        for name in entries(str(self.project)):
            if name not in kept:
                remove_path(str(self.project / name))

    def _close_worker(self) -> None:
        if self._worker is not None:
            self._worker.close()
            self._worker = None

    def write(self, code: str) -> None:
        """Put ``code`` at the test path (the only project file the loop writes), once the
        alone check of the suite there is done."""
        if self._alone is not None:
            wait([self._alone])
        write_file(self.project, self.target.test_path, code)

    def analyze(self, code: str) -> StaticReport:
        """Static checks of ``code`` as it would be written at the test path."""
        return analyze(
            code,
            self.target.test_path,
            module_name=self.target.import_name,
            module_source=self.target.source,
            project=self.project,
            mypy=self.cfg.mypy,
        )

    def measure(
        self, code: str, static: StaticReport | None = None, *, alone: bool = True
    ) -> Measurement:
        """Write ``code``, run it ``reruns`` times (shuffled after the first), score the stable tests.

        ``alone``: start the stable tests' alone check too (side by side only).
        """
        found = Measurement(code, static or self.analyze(code))
        if not found.static.syntax_ok:
            return found
        self.write(code)
        path = [self.target.test_path]
        seeds = [f"{self._runs}-{index}" for index in range(1, self.cfg.reruns)]
        # the shuffled reruns share an interpreter: one collection, forked into a run per
        # order. They follow the first run, since tests may write files in the project and
        # parallel runs could race; when the suite's author says its tests rarely touch
        # files, they run beside it (``rerun_groups``). They shuffle the tests themselves,
        # so they need not wait for the first run to learn the ids.
        side_by_side = self.cfg.parallel_reruns
        groups = rerun_groups(seeds, side_by_side=side_by_side, workers=self.workers)
        with ThreadPoolExecutor(max_workers=1 + len(groups) if side_by_side else 1) as pool:

            def rerun(group: list[str]) -> Future[Noted[list[TestRun]]]:
                return pool.submit(self.reruns, path, group)

            covered = pool.submit(self.pytest, path, coverage=True)
            started = [rerun(group) for group in groups] if side_by_side else []
            try:
                first = found.take(covered.result())
            except RunnerError as exc:
                for job in started:
                    job.cancel()
                found.run_error = str(exc)
                found.notes.extend(exc.notes if isinstance(exc, RunFailed) else ())
                return found
            found.collected = len(first.outcomes)
            found.run_error = _collection_error(first)
            found.coverage = first.coverage.file(self.target.module_rel) if first.coverage else None
            if not side_by_side and first.outcomes:
                started = [rerun(group) for group in groups]
            reruns = [run for job in started for run in found.take(job.result())]
            reruns = reruns if first.outcomes else []
        found.verdicts = stability([first, *reruns])
        self.untangle(found, [first, *reruns])
        if side_by_side and alone and found.stable:
            # the alone check runs while the mutants are scored: ready if this suite is the last
            found.alone = self._alone = self._background.submit(self.alone, found.stable_verdicts)
        if found.stable:
            found.mutation = found.take(self.score(found))
        return found

    def pytest(
        self,
        paths: list[str],
        *,
        coverage: bool,
        isolate: bool = False,
        after: Sequence[str] = (),
        shuffle: str | None = None,
    ) -> Noted[TestRun]:
        """One sandboxed pytest run of ``paths``; the module's bytes are checked afterwards.

        ``isolate`` runs each test in its own child forked after collection, where the
        ``after`` tests (node ids among ``paths``) run first, unreported;
        ``shuffle`` runs the tests in an order shuffled with that seed.
        """
        self._runs += 1
        env = {"COVERAGE_RCFILE": str(self.rcfile)}
        if isolate:
            env["TDDFORGE_ISOLATE"] = "1"
            env["TDDFORGE_AFTER"] = "\n".join(after)
        if shuffle is not None:
            env["TDDFORGE_SHUFFLE"] = shuffle
        try:
            run = run_pytest(
                self.project,
                python=self.python,
                sandbox=self.sandbox,
                paths=paths,
                timeout=self.cfg.test_timeout_seconds,
                coverage_source=[str(self.module.parent)] if coverage else None,
                coverage_include=[self.module],
                per_test=coverage,
                extra_args=self.pytest_args,
                env=env,
                protected=self.own,
            )
        except RunnerError as exc:
            raise RunFailed(str(exc), self.guard()) from exc
        finally:  # also when the run raised: the module is restored whatever happened
            notes = self.guard()
        return Noted(run, notes)

    def reruns(self, paths: list[str], seeds: list[str]) -> Noted[list[TestRun]]:
        """Runs of ``paths`` in the orders shuffled with ``seeds``: one sandboxed pytest run
        for one seed, one collection forked into a run per seed for several."""
        if len(seeds) == 1:
            one = self.pytest(paths, coverage=False, shuffle=seeds[0])
            return Noted([one.value], one.notes)
        self._runs += 1
        try:
            runs = run_pytest_orders(
                self.project,
                python=self.python,
                sandbox=self.sandbox,
                orders=seeds,
                paths=paths,
                timeout=self.cfg.test_timeout_seconds,
                extra_args=self.pytest_args,
                env={"COVERAGE_RCFILE": str(self.rcfile)},
                protected=self.own,
            )
        finally:
            notes = self.guard()
        return Noted(runs, notes)

    def guard(self) -> tuple[str, ...]:
        """Undo any change a test made to the module under test; the note saying so, if any."""
        if self.module.read_bytes() == self.original:
            return ()
        self.module.write_bytes(self.original)
        return (f"a test modified {self.target.module_rel}; its bytes were restored",)

    def alone(self, verdicts: list[Stability]) -> dict[str, str]:
        """Why each test cannot be kept when run on its own (fails, or writes the module).

        One run with every test isolated in its own fork (one run, never two side
        by side: a test that writes the module would break the other's collection);
        only when some test wrote the module are the tests run one by one, to find
        which. A test checked in an earlier attempt and unchanged since (its
        fingerprint) is not run again: toolz's final suite waited 1.3 s for the alone
        check of attempt 1, whose 34 tests were 31 of attempt 0's and 3 new.
        """
        marks = self._fingerprints(verdicts)
        known = {
            v.key: self._alone_seen[marks[v.key]]
            for v in verdicts
            if marks.get(v.key) in self._alone_seen
        }
        todo = [v for v in verdicts if v.key not in known]
        found = self._alone_run(todo)
        for v in todo:  # a test unchanged since (same fingerprint) gets the same answer
            if v.key in marks:
                self._alone_seen[marks[v.key]] = found.get(v.key)
        return {key: why for key, why in {**known, **found}.items() if why is not None}

    def _fingerprints(self, verdicts: list[Stability]) -> dict[str, str]:
        """Each test's fingerprint (its source, the file's shared code, the conftests),
        its own as a method before its class's: an alone check's answer holds while it
        is unchanged, the module being unchanged."""
        prints = self._prints()
        found = {}
        for v in verdicts:
            keys = reversed(test_keys(v.nodeids[0])) if v.nodeids else ()
            mark = next((prints[key] for key in keys if key in prints), None)
            if mark is not None:
                found[v.key] = mark
        return found

    def _prints(self) -> dict[str, str]:
        """The fingerprints of the suite at the test path, computed once per suite written
        (the alone check and the scoring both ask)."""
        path = self.project / self.target.test_path
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return {}
        if self._printed[0] != text:
            self._printed = (text, fp.file_fingerprints(self.project, path))
        return self._printed[1]

    def _alone_run(self, verdicts: list[Stability]) -> dict[str, str]:
        nodeids = [n for v in verdicts for n in v.nodeids]
        if not nodeids:
            return {}
        run = self.pytest(nodeids, coverage=False, isolate=True)
        if run.notes:
            return {v.key: why for v in verdicts if (why := self._alone_one(v)) is not None}
        passed = {o.nodeid for o in run.value.outcomes if o.outcome == "passed"}
        refused = {o.nodeid for o in run.value.outcomes if _refused_write(o)}
        return {
            v.key: WRITES_PROJECT if refused.intersection(v.nodeids) else DEPENDS
            for v in verdicts
            if not all(n in passed for n in v.nodeids)
        }

    def _alone_one(self, verdict: Stability) -> str | None:
        run = self.pytest(list(verdict.nodeids), coverage=False)
        if run.notes:
            return f"modifies the module under test ({self.target.module_rel})"
        outcomes = run.value.outcomes
        passed = len(outcomes) == len(verdict.nodeids) and all(
            o.outcome == "passed" for o in outcomes
        )
        if passed:
            return None
        return WRITES_PROJECT if any(_refused_write(o) for o in outcomes) else DEPENDS

    def untangle(self, found: Measurement, runs: list[TestRun]) -> None:
        """Mark a test that makes others fail by running before them (``polluters``'
        suspects) as polluting, and those others stable, when they pass alone, fail right
        after it (each in a child forked after collection), are several or never ran at all,
        and pass right after all the other stable tests but it. A test that
        leaves state behind, or breaks the process, then costs itself, not every test after
        it. One victim is not worth its polluter, which exercises more; and when another
        test breaks them too, nothing is marked.
        """
        suspects = polluters(runs, found.verdicts)
        if not suspects:
            return
        verdicts = dict(found.verdicts)
        flaky = sorted({k for _, victims in suspects for k in victims})
        alone = self._isolated(_nodeids(verdicts, flaky))
        if alone is None:
            return
        alone_passed = _passed(alone, flaky)
        marked: list[tuple[str, list[str]]] = []
        for suspect, victims in suspects:  # each victim is one suspect's (``polluters``)
            victims = tuple(
                k for k in victims if k in alone_passed and verdicts[k].status != "pollutes"
            )
            if not victims:
                continue
            first = verdicts[suspect].nodeids
            after = self._isolated([*first, *_nodeids(verdicts, victims)], after=first)
            if after is None:
                continue
            passed = _passed(after, victims)
            failed = [k for k in victims if k not in passed]
            never_ran = any(verdicts[k].kind == NOT_RUN[1] for k in failed)
            if len(failed) < 2 and not never_ran:
                continue
            message = f"makes {', '.join(failed)} fail when it runs before them"
            verdicts[suspect] = replace(
                verdicts[suspect], status="pollutes", kind=None, message=message
            )
            for key in failed:
                verdicts[key] = replace(verdicts[key], status="stable", kind=None, message="")
            marked.append((suspect, failed))
        if marked and self._hold(verdicts, [k for _, failed in marked for k in failed]):
            found.verdicts = verdicts
            for suspect, failed in marked:
                message = verdicts[suspect].message
                found.notes.append(f"{suspect} {message}; it is dropped, they are kept")
                self.run.event("polluter", test=suspect, victims=failed)

    def _isolated(self, nodeids: list[str], after: Sequence[str] = ()) -> TestRun | None:
        """A run of ``nodeids``, each in its own fork (``after`` the given tests there);
        None when it failed or a test wrote the module."""
        try:
            run = self.pytest(nodeids, coverage=False, isolate=True, after=after)
        except RunnerError:
            return None
        return None if run.notes else run.value

    def _hold(self, verdicts: Mapping[str, Stability], victims: Collection[str]) -> bool:
        """Whether each of ``victims`` passes right after every other stable test ran."""
        others = [k for k, v in verdicts.items() if v.status == "stable" and k not in victims]
        first = _nodeids(verdicts, others)
        run = self._isolated([*first, *_nodeids(verdicts, victims)], after=first)
        return run is not None and _passed(run, victims) == set(victims)

    def score(self, found: Measurement) -> Noted[MutationReport | None]:
        """The mutation score of the stable tests (the others deselected): from an earlier
        scoring when that decides every verdict (``cover_reuse.derive``), else in the warm
        worker. Either way, one ``mutation`` event says how many mutants ran."""
        started = time.monotonic()
        prints = self._prints()
        tests = [n for v in found.stable_verdicts for n in v.nodeids]
        for before in reversed(self._scorings):
            derived = derive(before, tests, prints)
            if derived is not None:
                self._scored(derived, started, derived=True)
                return Noted(derived)
        scored = self._score_in_worker(found)
        if scored.value is not None:
            self._scorings.append(Scoring(scored.value, prints))
            self._scored(scored.value, started, derived=False)
        return scored

    def _scored(self, report: MutationReport, started: float, *, derived: bool) -> None:
        reused = sum(r.reused for r in report.results)
        self.run.event(
            "mutation",
            mutants=len(report.results),
            ran=len(report.results) - reused,
            reused=reused,
            derived=derived,
            seconds=round(time.monotonic() - started, 3),
        )

    def _score_in_worker(self, found: Measurement) -> Noted[MutationReport | None]:
        unstable = [v for v in found.verdicts.values() if v.status != "stable"]
        deselect = [f"--deselect={n}" for v in unstable for n in v.nodeids]
        job = MutationJob(
            project=self.project,
            module=self.module,
            tests=(self.target.test_path,),
            python=self.python,
            workers=self.workers,
            timeout=self.cfg.mutation_timeout_seconds,
            extra_pytest_args=(*self.pytest_args, *deselect),
        )
        notes: tuple[str, ...] = ()
        report: MutationReport | None = None
        try:
            if self._worker is None:
                self._worker = WarmWorker(
                    self.project,
                    self.python,
                    self.settings,
                    timeout=self.cfg.mutation_timeout_seconds,
                )
            report = self._worker.score(job, cache=self.cache)
        except (BaselineError, RunnerError) as exc:
            notes = (f"mutation score unavailable: {exc}",)
            self._close_worker()  # a worker that failed is not reused
        finally:
            notes += self.guard()
        return Noted(report, notes)


def rerun_groups(seeds: Sequence[str], *, side_by_side: bool, workers: int) -> list[list[str]]:
    """The shuffled reruns' seeds, by interpreter: all in one after the first run; beside
    it, spread over the ``workers`` it leaves, one interpreter each. An interpreter
    collects once for all its seeds, and starting one costs about what running a small
    suite does: on two cores, two interpreters of two orders each took 1.0 s each one
    after the other, beside a first run of 1.6 s (mwparserfromhell's 31 generated tests)."""
    if not seeds:
        return []
    count = max(1, min(len(seeds), workers - 1)) if side_by_side else 1
    size, more = divmod(len(seeds), count)  # the first ``more`` interpreters take one more
    starts = [i * size + min(i, more) for i in range(count + 1)]
    return [list(seeds[a:b]) for a, b in itertools.pairwise(starts)]


def _collection_error(run: TestRun) -> str | None:
    if not run.collection_errors:
        return None
    error = run.collection_errors[0]
    message = (error.message or "").strip().splitlines()
    first = message[-1] if message else ""
    return f"{error.failure_kind or 'error'} while collecting {error.nodeid}: {first}"[:300]


def _nodeids(verdicts: Mapping[str, Stability], keys: Iterable[str]) -> list[str]:
    return [n for k in keys for n in verdicts[k].nodeids]


def _passed(run: TestRun, keys: Iterable[str]) -> set[str]:
    """Those of ``keys`` that ran and passed in ``run``, every node of them."""
    outcomes: dict[str, list[bool]] = {}
    for o in run.outcomes:
        outcomes.setdefault(test_key(o.nodeid), []).append(o.outcome == "passed")
    return {k for k in keys if outcomes.get(k) and all(outcomes[k])}


def _refused_write(outcome: TestOutcome) -> bool:
    """Whether ``outcome`` failed writing or removing where the run may only read."""
    message = outcome.message or ""
    return outcome.outcome != "passed" and any(code in message for code in _REFUSED)
