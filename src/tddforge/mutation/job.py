"""A mutation job, checked and made ready for the worker: its modules, mutants and cache state.

One job scores one or many modules against one test suite, in one worker
request: one collection, one traced baseline, one pool of children. Each
module's mutants go to the worker with the module they belong to; their ids
are qualified with the module's path there, so two modules' mutants never clash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from tddforge.errors import InputError
from tddforge.mutation import fingerprints as fp
from tddforge.mutation.cache import CacheEntry, VerdictCache, cache_key, unchanged_tests
from tddforge.mutation.gates import read_interpreter
from tddforge.mutation.generate import mutants_of
from tddforge.mutation.import_calls import calls_into
from tddforge.mutation.import_reads import project_import_code, read_by_others, shared_lines
from tddforge.mutation.layout import (
    find_test_files,
    inside,
    module_name,
    python_files,
    star_imported,
)
from tddforge.mutation.mutant import Mutant
from tddforge.mutation.observers import observe, read_project
from tddforge.pysource import read_python, syntax_error
from tddforge.target.protocol import (
    BaselineRecord,
    MutantRecord,
    Observe,
    PriorVerdict,
    Replay,
    WorkerConfig,
)
from tddforge.workspace.git import Git

# The worker's timeout rule (target.baseline.Measured): floor + factor x the covering tests' time.
TIMEOUT_FLOOR = 1.0  # at most: lower for a suite of fast tests (target.baseline.timeout_floor)
TIMEOUT_FACTOR = 5.0


@dataclass(frozen=True)
class MutationJob:
    """What to mutate and how to run its tests (``modules``: every module, when more than
    ``module`` alone)."""

    project: Path
    module: Path
    tests: tuple[str, ...]
    python: Path
    workers: int = 2
    since_ref: str | None = None
    timeout: float = 3600.0
    use_cache: bool = True
    extra_pytest_args: tuple[str, ...] = ()
    modules: tuple[Path, ...] = ()
    scope: str = "all"  # or "functions": only code that runs inside functions

    @property
    def targets(self) -> tuple[Path, ...]:
        """Every module the job mutates."""
        return self.modules or (self.module,)


@dataclass
class Target:
    """One module of a job: its text as read now, its mutants, the lines changed since a ref."""

    path: Path  # resolved
    rel: str  # relative to the project
    source: str
    mutants: list[Mutant]
    changed: set[int] | None = None  # with --since-ref
    shared: set[int] = field(default_factory=set)  # data lines another file reads at import
    replays: list[Replay] = field(default_factory=list)  # other files' import-time calls into it
    # per line of an import-time mutant, what can see a change there (None: every test)
    observed: dict[int, Observe | None] = field(default_factory=dict)
    # mutants not made: interpreter gates that keep their value here, branches never taken
    same_here: int = 0

    def qualified(self, mutant_id: str) -> str:
        """The id the worker knows the mutant by."""
        return f"{self.rel}::{mutant_id}"


@dataclass
class Prepared:
    """A validated job with its modules' mutants and the cache state."""

    job: MutationJob
    targets: list[Target]
    pytest_args: list[str]
    key: str
    fingerprints: dict[str, str]
    prior: CacheEntry = field(default_factory=CacheEntry)
    unchanged: list[str] = field(default_factory=list)
    others: str = ""  # the project's other Python files, hashed
    test_files: list[str] = field(default_factory=list)  # project-relative
    python_version: str = ""  # the interpreter's, when a module's gates were read with it

    @property
    def mutants(self) -> list[Mutant]:
        """Every mutant of every module."""
        return [m for t in self.targets for m in t.mutants]


def prepare(job: MutationJob, cache: VerdictCache | None) -> Prepared:
    """Check the inputs and build the mutants; raise InputError with one line on bad input."""
    root = job.project.resolve()
    starred = star_imported(root)
    targets = [_target(job, inside(root, m, "module"), starred) for m in job.targets]
    reads, calls = project_import_code(root)
    for target in targets:
        target.shared = shared_lines(target.source, read_by_others(reads, target.path))
        target.replays = calls_into(calls, target.path, target.source)
    test_files = [inside(root, job.project / t, "test path") for t in job.tests]
    # --tb=native: a killed mutant's failure report costs a traceback.format_exception,
    # not pytest's source-range analysis (which dominated a graft run's time).
    args = ["-p", "no:cacheprovider", "-p", "no:randomly", "-q", "--tb=native"]
    args += [f"--rootdir={job.project}", *job.extra_pytest_args]
    key = cache_key(str(job.python), keyed_args(args), [t.rel for t in targets])
    found = find_test_files(root, test_files)
    _observed(root, targets, found)
    prints = fp.fingerprints(job.project, found)
    others = fp.others(root, [t.path for t in targets], found)
    prior = cache.load(key) if cache is not None and job.use_cache else CacheEntry()
    sources = {t.rel: t.source for t in targets}
    unchanged = unchanged_tests(prior, prints, sources, others)
    rels = [p.resolve().relative_to(root).as_posix() for p in found]
    known = read_interpreter(str(job.python)) if any(t.same_here for t in targets) else None
    version = known.version if known is not None else ""
    return Prepared(job, targets, args, key, prints, prior, unchanged, others, rels, version)


def keyed_args(args: list[str]) -> list[str]:
    """The pytest arguments a cache entry is kept under: all but ``--deselect``. Which
    tests run is what the verdicts themselves record (a kill by its test, a survivor by
    the tests it passed), and a deselected test is not in the baseline a verdict is
    checked against, so a verdict it decided is not reused; ``cover`` deselects the
    tests an attempt found unstable, and each attempt would otherwise start cold."""
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--deselect":
            skip = True
        elif not arg.startswith("--deselect="):
            kept.append(arg)
    return kept


def _observed(root: Path, targets: list[Target], test_files: list[Path]) -> None:
    """What can see each import-time mutant (``observers``): one read of the project."""
    lines = {t.rel: sorted({m.line for m in t.mutants if m.strategy == "fresh"}) for t in targets}
    if not any(lines.values()):
        return
    text = read_project(root, list(python_files(root)), test_files, [t.path for t in targets])
    for target in targets:
        if lines[target.rel]:
            target.observed = observe(target.source, target.rel, lines[target.rel], text)


def _target(job: MutationJob, path: Path, starred: set[str]) -> Target:
    rel = path.relative_to(job.project.resolve()).as_posix()
    try:
        source = read_python(path)
        interpreter = partial(read_interpreter, str(job.python))
        found = mutants_of(source, module_name(path) in starred, interpreter)
    except UnicodeDecodeError as exc:
        raise InputError(f"{rel}: not {exc.encoding} text") from exc
    except SyntaxError as exc:
        raise InputError(f"{rel}: {syntax_error(exc)}") from exc
    changed = changed_lines(job.project, path, job.since_ref) if job.since_ref else None

    def kept(mutants: list[Mutant]) -> list[Mutant]:
        if job.scope == "functions":  # code run at import (module, class bodies, defaults) out
            mutants = [m for m in mutants if m.strategy == "graft"]
        if changed is not None:
            mutants = [m for m in mutants if changed.intersection(m.lines)]
        return mutants

    same_here = len(kept(found.same_here))
    return Target(path, rel, source, kept(found.made), changed, same_here=same_here)


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
    return WorkerConfig(
        target=str(prep.targets[0].path),
        targets=[str(t.path) for t in prep.targets],
        tests=list(job.tests),
        pytest_args=prep.pytest_args,
        mutants=[_record(t, m) for t in prep.targets for m in t.mutants],
        workers=job.workers,
        timeout_factor=TIMEOUT_FACTOR,
        timeout_floor=TIMEOUT_FLOOR,
        results=str(results),
        prior=_prior_verdicts(prep),
        prior_baseline=_prior_baseline(prep),
        unchanged_tests=prep.unchanged,
        config_key=config_key(job, prep.pytest_args),
        test_files=prep.test_files,
        replays={str(t.path): t.replays for t in prep.targets if t.replays},
    )


def _record(target: Target, mutant: Mutant) -> MutantRecord:
    record = mutant.to_data()
    record["id"] = target.qualified(mutant.id)
    record["target"] = str(target.path)
    if mutant.line in target.shared:
        record["shared"] = True  # rebind cannot switch it on: see import_reads
    seen = target.observed.get(mutant.line) if mutant.strategy == "fresh" else None
    if seen is not None:
        record["observe"] = seen
    return record


def _prior_verdicts(prep: Prepared) -> dict[str, PriorVerdict]:
    """The cached verdicts of every module whose text is the one they were made from."""
    found: dict[str, PriorVerdict] = {}
    for target in prep.targets:
        for mutant_id, verdict in prep.prior.verdicts_for(target.rel, target.source).items():
            found[target.qualified(mutant_id)] = verdict
    return found


def _prior_baseline(prep: Prepared) -> dict[str, BaselineRecord]:
    """The cached baseline records, their lines keyed by the targets' paths as the worker
    knows them (a record of an older shape is left out)."""
    paths = {t.rel: str(t.path) for t in prep.targets}
    found = {}
    for nodeid, record in prep.prior.baseline.items():
        try:
            found[nodeid] = BaselineRecord(
                outcome=record["outcome"],
                duration=record["duration"],
                lines={paths[r]: lines for r, lines in record["lines"].items() if r in paths},
                imports={paths[r]: lines for r, lines in record["imports"].items() if r in paths},
                imported=[paths[r] for r in record["imported"] if r in paths],
                writes=list(record["writes"]),
            )
        except (KeyError, TypeError, AttributeError):
            continue
    return found


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
