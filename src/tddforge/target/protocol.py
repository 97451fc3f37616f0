"""The mutation worker's messages, host <-> worker and worker <-> its children, typed.

The host (``tddforge.mutation``) imports these types; the worker writes and
reads them. Every message is one JSON object:

- the host's request: ``WorkerConfig`` (a file, or one stdin line in warm mode);
- the results file: one event per line (``Event``: ``BaselineEvent``,
  ``MutantEvent``, ``SourcesEvent``, ``DoneEvent``, ``ErrorEvent``), told
  apart by ``"event"``;
- warm mode's answer per request on stdout: ``ServeAnswer``;
- inside the worker, on pipes: a child's ``ChildVerdict``, the baseline
  child's ``BaselineResult`` and ``Sources``, a host child's ``Fallback``.
"""

from __future__ import annotations

from typing import Any, List, Literal, Tuple, TypedDict, Union

# the values of an event's "event" key
BASELINE: Literal["baseline"] = "baseline"
MUTANT: Literal["mutant"] = "mutant"
SOURCES: Literal["sources"] = "sources"
DONE: Literal["done"] = "done"
ERROR: Literal["error"] = "error"

VERDICTS = ("killed", "survived", "timeout", "no-coverage", "error")


class _MutantRecordRequired(TypedDict):
    id: str
    operator: str
    line: int
    col: int
    end_line: int
    end_col: int
    original: str
    replacement: str
    strategy: str  # "graft" or "fresh"
    graft_name: str
    graft_firstlineno: int


class MutantRecord(_MutantRecordRequired, total=False):
    """One mutant as the host made it (``Mutant.to_data``), and the file it mutates
    (``target``: one of the request's ``targets``; the first when absent); ``shared``:
    module data another file reads while it is imported (never rebound); ``reach``:
    an operator token's expression, whose lines coverage sees it run by."""

    target: str
    shared: bool
    reach: list[int]  # [first, last]: the lines running it shows in (default: its own)
    observe: Observe  # import-time code: what can see it (absent: every test can)
    passed: list[str]  # tests a prior run found passing against it, unchanged: not run again
    looped: str  # the unchanged test a prior run timed out in (not run again: it loops)
    default: DefaultRecord  # a default of a def run at import: set on the live function


class DefaultRecord(TypedDict):
    """A default argument of a def run at import, and its mutated value (a literal's text):
    ``slot`` is an index into ``__defaults__`` (of ``count``) or a keyword-only name."""

    name: str
    first: int
    slot: int | str
    count: int
    value: str
    body: list[int]  # [first, last]: the body's lines
    original: str  # the unmutated default's text when it is a literal, else ""


class Observe(TypedDict):
    """What can see a mutant of import-time code (``target.observe``): the names the change
    can reach, and the test files that mention one or look names up dynamically."""

    names: list[str]
    files: list[str]  # project-relative, as in test ids


class Replay(TypedDict):
    """A bare call another file makes into a target while it is imported
    (``mutation.import_calls``): rebind runs it again, in that file's namespace."""

    file: str  # the calling file, resolved
    line: int
    source: str  # the statement's text
    name: str  # the target's function it calls


class PriorVerdict(TypedDict, total=False):
    """A cached verdict, as the host stores it."""

    verdict: str
    killer: str | None
    ran: list[str]


class BaselineRecord(TypedDict):
    """One test's baseline: outcome, duration and the lines it ran, per target file."""

    outcome: str
    duration: float
    lines: dict[str, list[int]]  # target -> its lines the test ran (targets it ran only)
    imports: dict[str, list[int]]  # target -> lines run while the test imported a target
    imported: list[str]  # the targets the test imported (``import`` statements and the like)
    writes: list[str]  # the project paths it wrote, removed or made (``project_guard``)


class _ConfigRequired(TypedDict):
    target: str
    tests: list[str]
    mutants: list[MutantRecord]
    results: str


class WorkerConfig(_ConfigRequired, total=False):
    """One scoring request (keys beyond the required four have defaults).

    ``targets``: every file whose mutants the request scores, ``target`` first (a
    request for one module names only ``target``).
    """

    targets: list[str]
    pytest_args: list[str]
    workers: int
    timeout_factor: float
    timeout_floor: float
    prior: dict[str, PriorVerdict]
    prior_baseline: dict[str, BaselineRecord]
    unchanged_tests: list[str]
    config_key: str
    rebind: bool
    test_files: list[str]  # the test files the host read for ``observe`` (project-relative)
    replays: dict[str, list[Replay]]  # target -> other files' import-time calls into it


class Timing(TypedDict):
    """A test's outcome and duration, as the baseline event gives them."""

    duration: float
    outcome: str


class BaselineEvent(TypedDict):
    """What the baseline measured: every test, the lines each ran per target, and the
    lines run while a target was imported (at collection, or by a test), per target."""

    event: Literal["baseline"]
    tests: dict[str, Timing]
    coverage: dict[str, dict[str, list[int]]]  # nodeid -> target -> lines
    imports: dict[str, dict[str, list[int]]]  # nodeid -> target -> lines run importing it
    imported: dict[str, list[str]]  # nodeid -> the targets it imported (those that did)
    writes: dict[str, list[str]]  # nodeid -> the project paths it wrote (those that did)
    collect_lines: dict[str, list[int]]  # target -> lines
    collect_seconds: float
    lazy: list[str]  # targets the collection did not import


class _MutantRequired(TypedDict):
    event: Literal["mutant"]
    id: str
    verdict: str
    ran: list[str]
    duration: float


class MutantEvent(_MutantRequired, total=False):
    """One mutant's verdict (``reused`` when a prior verdict still holds)."""

    killer: str | None
    detail: str | None
    reused: bool
    cpu: float  # its child's CPU seconds: unlike ``duration``, not stretched by a busy machine


class _ReusedRequired(TypedDict):
    verdict: str
    ran: list[str]
    duration: float


class Reused(_ReusedRequired, total=False):
    """A prior verdict still provably right, as a mutant event gives it (``reused``)."""

    killer: str | None


class SourcesEvent(TypedDict):
    """The project files the baseline's collection imported (warm mode keeps them compiled)."""

    event: Literal["sources"]
    modules: list[str]
    tests: list[str]


class Timings(TypedDict, total=False):
    """Seconds per phase, and whether pytest's config was prepared once for all children."""

    prepare: bool
    baseline: float
    mutants: float  # from the plan to the last verdict (graft, rebind and fresh side by side)


class Counts(TypedDict):
    """How many mutants ran by each strategy."""

    graft: int
    rebind: int
    fresh: int


class DoneEvent(TypedDict):
    """The request is scored."""

    event: Literal["done"]
    elapsed: float
    timings: Timings
    counts: Counts


class _ErrorRequired(TypedDict):
    event: Literal["error"]
    kind: str


class ErrorEvent(_ErrorRequired, total=False):
    """The request could not be scored (``kind``: collection, pytest, baseline_failing,
    no_tests, worker; the host adds timeout)."""

    message: str
    failing: list[str]


Event = Union[BaselineEvent, MutantEvent, SourcesEvent, DoneEvent, ErrorEvent]


class ServeAnswer(TypedDict, total=False):
    """Warm mode's reply once a request is scored."""

    done: bool
    elapsed: float
    error: str


# a mutant, the tests its child runs (in order), and when the child began: a pool's key
Key = Tuple[MutantRecord, List[str], float]


class ChildVerdict(TypedDict, total=False):
    """A mutant's child's verdict on its pipe (``ran``: how many tests it ran; a timeout's
    ``killer``: the test it ran out of CPU time in).

    ``"fallback"``, from a graft or rebind child, hands the mutant to the fresh path.
    """

    verdict: str
    killer: str
    ran: int
    detail: str
    wall: float  # seconds from its fork to its verdict (the parent adds it)
    cpu: float  # the CPU seconds it used, its own children's included (the parent adds it)
    reads: dict[str, Any]  # a traced run's (``entries.EntryReads.to_data``)


class Sources(TypedDict):
    """Project files imported without a bytecode cache: modules, and tests pytest rewrote."""

    modules: list[str]
    tests: list[str]


class BaselineResult(TypedDict, total=False):
    """The baseline child's report: the tests' records, or why pytest stopped first."""

    tests: dict[str, BaselineRecord]
    order: list[str]
    collect_lines: dict[str, list[int]]  # target -> lines run while a target was imported
    lazy: list[str]  # targets the collection did not import (tests import them)
    drifted: list[str]  # targets whose data rebind must refuse (``rebind.drifted_targets``)
    checked: list[str]  # the targets checked for drift
    names: dict[str, str]  # target -> the name the collection imported its module by
    late_sources: Sources  # project files first imported while the tests ran
    words: list[list[list[str]]]  # [words, nodeids]: what tests name (``affinity``)
    stdlib: list[str]  # the standard library's modules imported by the end (``preload``)
    collect_seconds: float
    collect_writes: list[str]  # the project paths written before the tests ran
    collect_errors: list[str]
    pytest_exit: int
    stderr: str


class Fallback(TypedDict):
    """The mutant ids a host child hands back to a slower path."""

    fallback: list[str]
