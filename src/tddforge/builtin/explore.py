"""Exploration: run planned calls in the sandbox and keep those that reach new code.

``run_calls`` ships the call runner (:mod:`tddforge.target.calls`, stdlib
only) with the target package into a scratch directory and runs the same calls twice under the project's interpreter, with two hash
seeds. A call's result is *deterministic* when both runs saw the same outcome
(timeouts and crashes never are), so only those values are fit to assert on.
A large batch can instead run once (``confirm=False``, split between two
processes): its results are then *unconfirmed*, presumed deterministic while
the search chooses, and ``confirm_calls`` runs the second seed only on the few
a caller is about to keep; only confirmed results are ever written.

``plan_calls`` (pure) turns discovery and input synthesis into calls: per
callable, one base call with the first candidate of each required parameter,
then one variant per other candidate of one parameter at a time.
``keep_new_coverage`` (pure) keeps, in order, the deterministic results that
reach an arc no earlier kept result reached.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

from tddforge.analysis.project import import_name
from tddforge.builtin.constants import Constant, constants_for
from tddforge.builtin.discover import CallableInfo, ClassInfo, ModuleInfo, Param
from tddforge.builtin.naming import instance_name
from tddforge.builtin.values import (
    Expr,
    Hint,
    Value,
    candidates,
    file_contents,
    parse_hint,
    unique_values,
    wants_bytes,
    wants_file,
)
from tddforge.errors import InputError
from tddforge.runner.pytest_run import own_entries, project_paths
from tddforge.runner.ship import entry_argv, ship
from tddforge.sandbox import Sandbox, SandboxResult
from tddforge.target.clock import SHIFT as CLOCK_SHIFT
from tddforge.target.probe import ATTRIBUTE_METHODS, IN_PLACE, ROUND_TRIPS
from tddforge.target.workdir import entries

_HASH_SEEDS = ("1", "2")
_PARALLEL = 2  # runner processes side by side (this machine has two cores)
EXTRA_KEYWORD = "unexpected"  # what a call passes to **kwargs
Arc = tuple[int, int]


class Step(NamedTuple):
    """A method call run on the instance before the call under test (``cache.put("a", 1)``)."""

    method: str
    args: tuple[str, ...] = ()
    kwargs: tuple[tuple[str, str], ...] = ()
    #: the exception it raises, as its type's qualname and module (``cb.call(f)`` counting
    #: a failure): its test expects it (``with pytest.raises(...)``); empty: it returns
    raises: tuple[str, ...] = ()


@dataclass(frozen=True)
class Call:
    """One call of the module: the target's qualname, and arguments as literal sources."""

    target: str
    args: tuple[str, ...] = ()
    kwargs: tuple[tuple[str, str], ...] = ()
    init_args: tuple[str, ...] | None = None  # an instance method: the constructor's arguments
    init_kwargs: tuple[tuple[str, str], ...] = ()
    consume: bool = False  # a generator function: collect what it yields
    #: what it returns is a context manager: entered (``with f() as result``), and left,
    #: and the value asserted is what it gave the ``with``
    enter: bool = False
    attribute: bool = False  # not a call: the value of the module's data ``target``
    #: what runs first: on the instance, for a method; for a function of the module,
    #: functions of the module that change its state (``create_entity(1)``)
    before: tuple[Step, ...] = ()
    via: str | None = None  # an instance method on what this expression returns (``parse(t)``)
    env: tuple[tuple[str, str | None], ...] = ()  # variables set (None: unset) for the call
    #: variables its test unsets besides, unnamed: it read them, and they were unset where
    #: it ran (``environ.isolated``); written only, never sent to the runner
    unset: tuple[str, ...] = ()
    #: variables its test sets to the values they held where it ran: it read them at run
    #: time (``HOME`` for ``expanduser``), and its test must not depend on the machine's
    #: (``environ.pinned``); written only, never sent to the runner
    pinned: tuple[tuple[str, str], ...] = ()
    #: module globals it rebinds, put back after its test (``module_state.restoring``);
    #: written only, never sent to the runner
    restore: tuple[str, ...] = ()
    #: the module's containers it changes in place (``REGISTRY``, ``Monitor.breakers``),
    #: which its test gives a copy of (``module_state.restoring``); written only
    copied: tuple[str, ...] = ()
    #: the module's iterators it advances (``_entity_count``), each with the source that
    #: builds it afresh, which its test gives it (``module_state.advanced_iterators``);
    #: written only
    rebuilt: tuple[tuple[str, str], ...] = ()
    #: it reads ``sys.argv`` or standard input: the program name its test sets ``sys.argv``
    #: to (``[argv]``), with an empty ``sys.stdin`` (as the runner has them) and a
    #: ``sys.stdout`` of its own (a ``with sys.stdout:`` closes it); written only
    argv: str = ""
    #: it wrote where it ran (a lock file, a log): it runs, and its test too, in an empty
    #: directory of its own (``target/workdir.py``; ``monkeypatch.chdir(tmp_path)``)
    workdir: bool = False

    @property
    def module_data(self) -> bool:
        """The module's data read (``PLURALS``): not a call, nor an instance's property."""
        return self.attribute and not self.on_instance

    @property
    def on_instance(self) -> bool:
        """A method called on an instance (built by its class, or returned by ``via``)."""
        return self.init_args is not None or self.via is not None

    def to_json(self, ident: int) -> dict[str, Any]:
        """The call as the runner reads it."""
        init = None
        if self.init_args is not None:
            init = {"args": list(self.init_args), "kwargs": dict(self.init_kwargs)}
        return {
            "id": ident,
            "target": self.target,
            "args": list(self.args),
            "kwargs": dict(self.kwargs),
            "init": init,
            "consume": self.consume,
            "enter": self.enter,
            "attribute": self.attribute,
            "via": self.via,
            "env": [list(pair) for pair in self.env],
            "workdir": self.workdir,
            "before": [
                {
                    "method": s.method,
                    "args": list(s.args),
                    "kwargs": dict(s.kwargs),
                    **({"raises": list(s.raises)} if s.raises else {}),
                }
                for s in self.before
            ],
        }


@dataclass(frozen=True)
class Outcome:
    """What a call did: returned (``repr``, literal or not), raised, timed out or crashed."""

    kind: str
    type: str = ""
    type_module: str = ""
    repr: str = ""
    literal: bool = False
    message: str = ""
    state: tuple[tuple[str, str], ...] = ()  # a non-literal value's public literal attributes
    after: tuple[tuple[str, str], ...] = ()  # a method's instance: its public literal attributes
    #: a method's instance: its repr when the call changed it (``d["a"] = 1``), when both
    #: runs agree on it (``_merged``); else ""
    after_repr: str = ""
    taken: int = 0  # a generator that yields more: only its first ``taken`` items were taken
    #: the value varied between the two runs (``random()``, ``now()``), its type did not:
    #: only the type is asserted, and only the type tells a mutant apart
    varies: bool = False
    #: the system refused a file operation (read-only, not permitted): the sandbox's
    #: answer to a write outside the project, never a test's to assert (run elsewhere,
    #: the write would be made)
    denied: bool = False
    #: the value is a context manager (its type has ``__enter__`` and ``__exit__``): a
    #: ``contextlib.contextmanager`` function's body runs only once it is entered
    context: bool = False

    def typed(self) -> Outcome:
        """The value asserted through its type only (it varies, or holds here and now only)."""
        return Outcome("return", self.type, self.type_module, varies=True)

    def same_as(self, other: Outcome | None) -> bool:
        """The same behaviour; a non-literal value's repr (``<X at 0x…>``) does not count."""
        if other is None or self.literal or other.literal:
            return self == other
        return replace(self, repr="") == replace(other, repr="")


@dataclass(frozen=True)
class CallResult:
    """A call, the arcs it executed in the module, and its outcome (as seen in both runs)."""

    call: Call
    arcs: frozenset[Arc]
    outcome: Outcome
    deterministic: bool
    other: Outcome | None = field(default=None, compare=False)  # the second run's, when it differs
    stable_repr: bool = False  # a non-literal value whose repr was the same in both runs
    confirmed: bool = True  # False: one run only, ``deterministic`` is presumed (see confirm_calls)
    #: the environment variables the call read at run time, with the value each held
    #: (None: unset), as the runner saw them (``target/environ_reads.py``)
    environ: tuple[tuple[str, str | None], ...] = field(default=(), compare=False)
    #: the call asked who runs it (its user or group id): see ``_whoever``
    identity: bool = field(default=False, compare=False)
    #: the arcs of building its instance (``Box(1)``, or ``via``), not counted as its own:
    #: its test runs them too (``module_state.restoring``)
    setup: frozenset[Arc] = field(default=frozenset(), compare=False)
    #: the call looked up a host or opened a connection: see ``_machine_read``
    network: bool = field(default=False, compare=False)
    #: the call opened a file descriptor it did not make (``open(7)``): see ``_machine_read``
    descriptor: bool = field(default=False, compare=False)
    #: the call left a thread running, not a daemon: see ``_machine_read``
    threads: bool = field(default=False, compare=False)
    #: the call asked to write a file of the machine's (``/etc/hosts``): see ``_machine_read``
    outside: bool = field(default=False, compare=False)

    @property
    def readable_repr(self) -> bool:
        """A non-literal value's repr fit to assert on: stable, and no address in it."""
        text = self.outcome.repr
        return (
            self.stable_repr
            and not (self.outcome.literal or self.outcome.varies)  # a type asserted: no repr
            and "0x" not in text
            and len(text) < 2000
        )


def run_calls(
    project: Path,
    module: Path,
    calls: Sequence[Call],
    *,
    python: Path,
    sandbox: Sandbox,
    timeout: float = 60.0,
    call_timeout: float = 2.0,
    confirm: bool = True,
) -> list[CallResult]:
    """Run ``calls`` twice in the sandbox, side by side (each run is one process, so two
    cores finish both in the time of one); results of the calls the first run finished.

    With ``confirm=False`` the calls run once, with the first seed, half in each
    of two processes: the results are unconfirmed (see ``confirm_calls``).
    """
    project = project.resolve()
    if not confirm:
        first = _run_split(project, module, calls, python, sandbox, timeout, call_timeout, "1")
        merged = merge_runs(calls, first, first)
        return [replace(r, confirmed=False) for r in placeless(merged, project)]
    config = _config(project, module, calls, call_timeout)
    with _runner_dir(sandbox, config) as private, ThreadPoolExecutor(len(_HASH_SEEDS)) as pool:
        run_once = partial(_run_once, private, project, python, sandbox, timeout)
        runs = list(pool.map(run_once, _HASH_SEEDS))
    return placeless(merge_runs(calls, *runs), project)


def placeless(results: Sequence[CallResult], project: Path) -> list[CallResult]:
    """``results`` with nothing asserted that holds where the project lives.

    ``Path()`` in django-environ is the working directory, and an ``open`` of a
    directory says its name: asserted literally, such a value holds in that
    checkout only, and the test fails in any other (9 of 62 tests did so, found on
    the eighth held-out set). A returned value holding the project's path gets its
    type asserted, an exception's message is not matched, and an attribute
    holding it is left out.
    """
    places = {str(p) for root in (project, project.resolve()) for p in _places(root)}
    alternatives = "|".join(re.escape(p) for p in sorted(places, key=len, reverse=True))
    pattern = re.compile(f"(?:{alternatives})(?![\\w.-])")
    return [_placeless(r, pattern) for r in results]


def _places(root: Path) -> list[Path]:
    """The project's directory and its ancestors two deep or more (``~path`` is the parent;
    ``/home/alice`` is this machine's too, ``/tmp`` is anyone's)."""
    return [root, *(p for p in root.parents if len(p.parts) > 2)]


def _placeless(result: CallResult, pattern: re.Pattern[str]) -> CallResult:
    outcome = result.outcome

    def holds(text: str) -> bool:
        return bool(pattern.search(text))

    def kept(pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        return tuple((name, value) for name, value in pairs if not holds(value))

    state, after = kept(outcome.state), kept(outcome.after)
    after_repr = "" if holds(outcome.after_repr) else outcome.after_repr
    if outcome.kind == "return" and holds(outcome.repr):
        typed = Outcome(
            "return",
            outcome.type,
            outcome.type_module,
            after=after,
            after_repr=after_repr,
            taken=outcome.taken,
            varies=True,
        )
        return replace(result, outcome=typed, stable_repr=False)
    cleaned = replace(
        outcome,
        state=state,
        after=after,
        after_repr=after_repr,
        message="" if holds(outcome.message) else outcome.message,
        repr="" if holds(outcome.repr) else outcome.repr,
    )
    return result if cleaned == outcome else replace(result, outcome=cleaned)


def confirm_calls(
    project: Path,
    module: Path,
    results: Sequence[CallResult],
    *,
    python: Path,
    sandbox: Sandbox,
    timeout: float = 60.0,
    call_timeout: float = 2.0,
) -> list[CallResult]:
    """``results`` confirmed: their calls run again with the second seed, and each is
    deterministic only when both runs agree (a call the run did not reach is not)."""
    todo = [r for r in results if not r.confirmed]
    if not todo:
        return list(results)
    calls = [r.call for r in todo]
    second = _run_split(
        project.resolve(), module, calls, python, sandbox, timeout, call_timeout, _HASH_SEEDS[1]
    )
    again = {r.call: second.get(i) for i, r in enumerate(todo)}
    merged = [r if r.confirmed else _remerged(r, again[r.call]) for r in results]
    return placeless(merged, project)


def _remerged(result: CallResult, second: dict[str, Any] | None) -> CallResult:
    """An unconfirmed result judged again with its second run's row."""
    merged = replace(
        _merged(result.call, result.arcs, result.outcome, second),
        environ=result.environ,
        setup=result.setup,
    )
    return _machine_read(merged, **{name: getattr(result, name) for name in _MACHINE})


_SPLIT_FROM = 40  # fewer calls than this run in one process (a second one costs its start-up)


def calls_per_process(calls: int, *, confirm: bool = False) -> int:
    """How many of ``calls`` one runner process runs: a share of a split run (a round,
    a confirmation), or all of them (``confirm``: each seed's process runs every call)."""
    if confirm or calls < _SPLIT_FROM:
        return calls
    return -(-calls // _PARALLEL)


def _run_split(
    project: Path,
    module: Path,
    calls: Sequence[Call],
    python: Path,
    sandbox: Sandbox,
    timeout: float,
    call_timeout: float,
    seed: str,
) -> dict[int, dict[str, Any]]:
    """Every call run once with ``seed``, split between processes side by side; by index."""
    parts = _PARALLEL if len(calls) >= _SPLIT_FROM else 1
    shares = [list(range(start, len(calls), parts)) for start in range(parts)]

    def one_run(share: list[int]) -> dict[int, dict[str, Any]]:
        config = _config(project, module, [calls[i] for i in share], call_timeout)
        with _runner_dir(sandbox, config) as private:
            found = _run_once(private, project, python, sandbox, timeout, seed)
        return {share[local]: row for local, row in found.items()}

    with ThreadPoolExecutor(parts) as pool:
        return {i: row for run in pool.map(one_run, shares) for i, row in run.items()}


def run_against_mutants(
    project: Path,
    module: Path,
    calls: Sequence[Call],
    mutants: Sequence[tuple[str, str, Sequence[int]]],
    *,
    python: Path,
    sandbox: Sandbox,
    timeout: float = 60.0,
    call_timeout: float = 2.0,
) -> dict[str, dict[int, Outcome]]:
    """Each call's outcome with each mutant switched on: ``(id, mutated source, call indexes)``.

    The mutants are split between two runs side by side; in each, every mutant
    gets its own child of the imported module. A mutant a run did not reach
    within ``timeout`` is missing from the result.
    """
    project = project.resolve()
    shares = [list(mutants[start::_PARALLEL]) for start in range(_PARALLEL)]

    def one_run(share: Sequence[tuple[str, str, Sequence[int]]]) -> list[str]:
        config = _config(project, module, calls, call_timeout)
        config["mutants"] = [{"id": m, "source": src, "calls": list(ids)} for m, src, ids in share]
        with _runner_dir(sandbox, config) as private:
            out = private / "mutants.jsonl"
            _start_runner(private, out, project, python, sandbox, timeout, seed="1")
            return out.read_text(encoding="utf-8").splitlines() if out.exists() else []

    with ThreadPoolExecutor(_PARALLEL) as pool:
        lines = [line for run in pool.map(one_run, [s for s in shares if s]) for line in run]
    found: dict[str, dict[int, Outcome]] = {}
    for row in map(json.loads, lines):
        found[row["mutant"]] = {int(k): _outcome(v) for k, v in row["outcomes"].items()}
    return found


def capture_calls(
    project: Path,
    module: Path,
    drivers: Sequence[Call],
    *,
    python: Path,
    sandbox: Sandbox,
    timeout: float = 30.0,
    call_timeout: float = 2.0,
) -> list[Call]:
    """The module's calls made while ``drivers`` run: calls of other code, their target a
    dotted path (``hjson.loads``), such as the project's tests make of its package's API
    (see ``target/capture.py``). Only what one run finished within ``timeout`` is kept."""
    project = project.resolve()
    config = _config(project, module, [], call_timeout)
    config["capture"] = [
        {"path": d.target, "args": list(d.args), "kwargs": [list(kw) for kw in d.kwargs]}
        for d in drivers
    ]
    with _runner_dir(sandbox, config) as private:
        out = private / "captured.jsonl"
        _start_runner(private, out, project, python, sandbox, timeout, seed=_HASH_SEEDS[0])
        lines = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
    found: list[Call] = []
    for row in map(json.loads, lines):
        init = row.get("init_args")
        found.append(
            Call(
                row["target"],
                tuple(row["args"]),
                tuple((k, v) for k, v in row["kwargs"]),
                None if init is None else tuple(init),
                tuple((k, v) for k, v in row.get("init_kwargs", [])),
            )
        )
    return list(dict.fromkeys(found))


def _config(
    project: Path, module: Path, calls: Sequence[Call], call_timeout: float
) -> dict[str, Any]:
    """What the runner reads: the module to import, the per-call timeout and the calls."""
    return {
        "module": import_name(project, module.resolve()),
        "call_timeout": call_timeout,
        # the project's own files: a call that writes where it runs never removes them
        "entries": sorted(entries(str(project))),
        "calls": [call.to_json(i) for i, call in enumerate(calls)],
    }


@contextmanager
def _runner_dir(sandbox: Sandbox, config: dict[str, Any]) -> Iterator[Path]:
    """A scratch directory holding the target package (the call runner) and its config."""
    with sandbox.scratch() as private:
        ship(private)
        (private / "calls.json").write_text(json.dumps(config), encoding="utf-8")
        yield private


def _start_runner(
    private: Path,
    out: Path,
    project: Path,
    python: Path,
    sandbox: Sandbox,
    timeout: float,
    seed: str,
) -> SandboxResult:
    calls = str(private / "calls.json")
    argv = entry_argv(python, private, "calls", calls, str(out), *project_paths(project))
    env = {"PYTHONHASHSEED": seed}
    # the second run's wall clock is later: a value of the moment differs
    if seed == _HASH_SEEDS[1]:
        env["TDDFORGE_CLOCK_SHIFT"] = repr(CLOCK_SHIFT)
    # the project's own files are read-only to the calls: ``LocalFileSystem().rm("fsspec",
    # recursive=True)`` removed the package it tested; refused, such a call is not kept
    own = own_entries(project)
    return sandbox.run(argv, cwd=project, timeout=timeout, extra_env=env, protected=own)


def _run_once(
    private: Path, project: Path, python: Path, sandbox: Sandbox, timeout: float, seed: str
) -> dict[int, dict[str, Any]]:
    out = private / f"results-{seed}.jsonl"
    run = _start_runner(private, out, project, python, sandbox, timeout, seed)
    if not out.exists() and not run.timed_out:
        tail = (run.stderr.strip().splitlines() or ["no output"])[-1]
        raise InputError(f"cannot run calls of {project.name}: {tail}")
    lines = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
    return {row["id"]: row for row in map(json.loads, lines)}


def merge_runs(
    calls: Sequence[Call], first: Mapping[int, dict[str, Any]], second: Mapping[int, dict[str, Any]]
) -> list[CallResult]:
    """One result per call the first run finished; deterministic when both runs agree."""
    results = []
    for ident, call in enumerate(calls):
        if ident not in first:
            continue
        row, again = first[ident], second.get(ident)
        if row.get("writes") or (again or {}).get("writes"):
            # it wrote where it ran: the runner ran it again in a directory of its own
            call = replace(call, workdir=True)
        arcs = frozenset((a, b) for a, b in row["arcs"])
        merged = _merged(call, arcs, _outcome(row["outcome"]), again)
        if row.get("setup"):
            merged = replace(merged, setup=frozenset((a, b) for a, b in row["setup"]))
        environ = tuple(sorted(row.get("environ", {}).items()))
        merged = replace(merged, environ=environ) if environ else merged
        results.append(_machine_read(merged, **{name: row.get(name, False) for name in _MACHINE}))
    return results


#: what a call read of the machine, as the runner reports it and ``CallResult`` keeps it
_MACHINE = ("identity", "network", "descriptor", "threads", "outside")


def _machine_read(
    result: CallResult,
    *,
    identity: bool,
    network: bool,
    descriptor: bool,
    threads: bool,
    outside: bool,
) -> CallResult:
    """``result`` judged by what its call read of the machine: who runs it (``_whoever``),
    the network, the process's open files. A call that reached for the network
    (``create_connection("wss://...")``) saw what the machine's network gave (the sandbox
    has none), and a unit test must not reach a host; one that opened a file descriptor
    it did not make (``open(7)``, a number given for a path) did what that descriptor is
    in the process that ran it (in pytest, the capture's file, which closing breaks the
    tests after it); one that left a thread running (``threads``: pykka's
    ``ThreadingActor().start()``) would keep pytest from ending; one that asked to write
    a file of the machine's (``outside``: python-hosts' ``Hosts().write()``, to
    ``/etc/hosts``) was refused by the sandbox, and its test would overwrite the file
    where the suite runs as root. None is ever written."""
    result = _whoever(result) if identity else result
    if network or descriptor or threads or outside:
        result = replace(
            result,
            deterministic=False,
            network=network,
            descriptor=descriptor,
            threads=threads,
            outside=outside,
        )
    return result


def _whoever(result: CallResult) -> CallResult:
    """A call that asked who runs it (``os.getuid()``): its value holds for the sandbox's
    user only (``/tmp/runtime-65534``), so only its type is asserted, and an exception
    it raised is not kept."""
    outcome = result.outcome
    if result.deterministic and outcome.kind == "return" and outcome.type:
        return replace(result, outcome=outcome.typed(), identity=True)
    return replace(result, deterministic=False, identity=True)


def _merged(
    call: Call, arcs: frozenset[Arc], outcome: Outcome, second: dict[str, Any] | None
) -> CallResult:
    """One call's result from its first run's outcome and the second run's row (if any)."""
    again = _outcome(second["outcome"]) if second is not None else None
    if again is not None and again.after_repr != outcome.after_repr:  # hash order, a clock
        outcome, again = replace(outcome, after_repr=""), replace(again, after_repr="")
    if again is not None and (again.after, again.state) != (outcome.after, outcome.state):
        outcome, again = _agreed(outcome, again)  # an attribute that is a set of strings
    stable = outcome.same_as(again) and outcome.kind in ("return", "raise") and not outcome.denied
    if not stable and typed_alike(outcome, again):
        return CallResult(call, arcs, outcome.typed(), True)
    if not stable and raised_alike(outcome, again):  # the message names a time, an address
        return CallResult(call, arcs, replace(outcome, message=""), True)
    same_repr = again is not None and again.repr == outcome.repr
    return CallResult(call, arcs, outcome, stable, None if stable else again, same_repr)


def _agreed(first: Outcome, second: Outcome) -> tuple[Outcome, Outcome]:
    """Both runs' outcomes without the attributes (``after``, ``state``) that hold one
    value printed in two orders: a set of strings prints in each run's hash order.
    flashtext's ``KeywordProcessor`` holds a set of characters, and that one attribute
    made every value its calls returned (``len(kp) == 0``) a type to assert, never the
    value; a set printed in an order of the moment is no assertion to write either. An
    attribute whose value differs still tells the runs apart."""

    def reordered(name: str, text: str, theirs: Pairs) -> bool:
        other = dict(theirs).get(name)
        return other is not None and other != text and _equal_literals(text, other)

    def kept(mine: Pairs, theirs: Pairs) -> Pairs:
        return tuple((n, t) for n, t in mine if not reordered(n, t, theirs))

    one = replace(
        first, after=kept(first.after, second.after), state=kept(first.state, second.state)
    )
    two = replace(
        second, after=kept(second.after, first.after), state=kept(second.state, first.state)
    )
    return one, two


Pairs = tuple[tuple[str, str], ...]


def _equal_literals(first: str, second: str) -> bool:
    """Whether two reprs are literals of one value (``{'a', 'b'}`` and ``{'b', 'a'}``):
    the same characters in another order, first (cheap, and most texts that differ fail it)."""
    if len(first) != len(second) or sorted(first) != sorted(second):
        return False
    try:
        return bool(ast.literal_eval(first) == ast.literal_eval(second))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def typed_alike(first: Outcome, second: Outcome | None) -> bool:
    """Two runs returned values of one type that differ (a random string, a timestamp):
    what a test can assert is the type."""
    return (
        second is not None
        and first.kind == second.kind == "return"
        and (first.type, first.type_module, first.taken)
        == (second.type, second.type_module, second.taken)
        and bool(first.type)
    )


def raised_alike(first: Outcome, second: Outcome | None) -> bool:
    """Two runs raised one exception type with messages that differ (``OPEN until
    17:55:20``): what a test can assert is the type."""
    return (
        second is not None
        and first.kind == second.kind == "raise"
        and (first.type, first.type_module) == (second.type, second.type_module)
        and bool(first.type)
        and not (first.denied or second.denied)
        and replace(first, message="", repr="") == replace(second, message="", repr="")
    )


def _outcome(raw: dict[str, Any]) -> Outcome:
    fields = (
        "kind",
        "type",
        "type_module",
        "repr",
        "literal",
        "message",
        "taken",
        "after_repr",
        "denied",
        "context",
    )
    state = tuple(sorted(raw.get("state", {}).items()))
    after = tuple(sorted(raw.get("after", {}).items()))
    return Outcome(**{k: raw[k] for k in fields if k in raw}, state=state, after=after)


def keep_new_coverage(
    results: Iterable[CallResult], covered: frozenset[Arc] = frozenset()
) -> tuple[list[CallResult], frozenset[Arc]]:
    """The deterministic results that reach new arcs, in order, and all arcs reached."""
    kept = []
    for result in results:
        if result.deterministic and not result.arcs <= covered:
            kept.append(result)
            covered |= result.arcs
    return kept, covered


def working_instances(built: Iterable[CallResult]) -> dict[str, list[Call]]:
    """Class → the constructor calls seen returning, deterministically: the first, then
    those that ran something no earlier one of its class ran, then the rest.

    Their first few become the objects other calls are given. runstats' ``Statistics()``
    and ``Statistics(iterable=[])`` build the same empty summary; ``Statistics(iterable=
    [1, 2, 3])``, which pushes values, comes second, so ``a + b`` meets one with data.
    """
    results: dict[str, list[CallResult]] = {}
    for r in built:
        if r.deterministic and r.outcome.kind == "return":
            results.setdefault(r.call.target, []).append(r)
    ordered = {}
    for target, found in results.items():
        novel, _ = keep_new_coverage(found[1:], found[0].arcs)
        first = [found[0], *novel]
        ordered[target] = [r.call for r in [*first, *(r for r in found if r not in first)]]
    return ordered


def without_subsumed(
    results: Sequence[CallResult], protected: Collection[Call] = (), source: str | None = None
) -> list[CallResult]:
    """``results`` without each unprotected one whose every arc others reach too (the
    later first: a later call is the likelier repeat). With the module's ``source``,
    what counts is what coverage.py reports: statements run and branches taken.
    Calls that reach nothing of the module (a read of its data) stay."""
    count = _units(source, branches=True) if source is not None else lambda arcs: arcs
    reach = [count(r.arcs) for r in results]
    counts = Counter(unit for units in reach for unit in units)
    dropped: set[Call] = set()
    for result, units in zip(reversed(results), reversed(reach), strict=True):
        if result.call in protected or not units:
            continue
        if all(counts[unit] > 1 for unit in units):
            dropped.add(result.call)
            counts.subtract(units)
    return [r for r in results if r.call not in dropped]


def smallest_cover(results: Sequence[CallResult], source: str | None = None) -> list[CallResult]:
    """A subset reaching everything ``results`` reach together, in their order.

    Chosen greedily: most new coverage first, the earlier call on a tie. A call
    the search kept early, whose coverage later finds all reach, would add a
    test that adds nothing (it still stays in the mutant phase's pool). With
    the module's ``source``, coverage is what coverage.py measures: its
    statements and the arcs it counts (an exception's way out of a function is
    not one of them). Each way a callable was seen to end (returning a value of
    some type, raising some exception) is kept once as well: those are the
    tests most likely to tell mutants apart.
    """
    count = _units(source, branches=False) if source is not None else lambda arcs: arcs
    reach = [
        count(r.arcs) | {("ends", r.call.target, r.outcome.kind, r.outcome.type)} for r in results
    ]
    left: set[Any] = set().union(*reach) if reach else set()
    chosen: set[int] = set()
    while left:
        best = max(range(len(results)), key=lambda i: (len(reach[i] & left), -i))
        gain = reach[best] & left
        if not gain:
            break
        chosen.add(best)
        left -= gain
    return [r for i, r in enumerate(results) if i in chosen]


def _units(source: str, *, branches: bool) -> Callable[[frozenset[Arc]], frozenset[Any]]:
    """Arcs to what coverage.py makes of them: statements run, and the arcs it knows, or
    with ``branches`` only those it reports (out of a line with more than one way out)."""
    from coverage.parser import PythonParser

    parser = PythonParser(text=source)
    parser.parse_source()
    statements = parser.statements
    branching = {line for line, exits in parser.exit_counts().items() if exits > 1}
    possible = parser.arcs()

    def counted(arc: Arc) -> bool:
        return arc[0] in branching if branches else arc in possible

    def count(arcs: frozenset[Arc]) -> frozenset[Any]:
        lines = {("line", n) for arc in arcs for n in arc if n in statements}
        return frozenset(lines | {a for a in arcs if counted(a)})

    return count


def plan_calls(
    info: ModuleInfo,
    mined: Mapping[str, tuple[Constant, ...]],
    *,
    per_param: int = 8,
    working: Mapping[str, Sequence[Call]] | None = None,
) -> list[Call]:
    """Calls for every callable that can be called with literals (async ones are skipped).

    A parameter hinted with one of the module's classes gets instances built by
    that class's constructor (``Money(5000)``) as candidates. ``working`` (class
    name → constructor calls seen to return) supplies the instances methods are
    called on and those candidates; without it, the first planned ones are used.
    """
    working = working or {}
    objects = object_sources(info, mined, working=working)
    calls: list[Call] = []
    for func in info.functions:
        calls += _variants(func, mined, per_param, objects)
    for cls in info.classes:
        if cls.hidden:  # reached through the module's instances of it only
            calls += _calls_on(cls, mined, per_param, objects, info.held(cls.name))
        else:
            calls += _class_calls(cls, mined, per_param, objects, working.get(cls.name, ()))
    return calls


def constructor_calls(info: ModuleInfo, mined: Mapping[str, tuple[Constant, ...]]) -> list[Call]:
    """The planned calls of every class's constructor (run first, to find working instances),
    given the objects their hints name (``Limiter(RequestRate(0, 0))``)."""
    objects = object_sources(info, mined)
    return [
        call
        for cls in info.classes
        if cls.constructor is not None and not cls.is_abstract and not cls.hidden
        for call in _variants(cls.constructor, mined, 8, objects)
    ]


def object_sources(
    info: ModuleInfo,
    mined: Mapping[str, tuple[Constant, ...]],
    per_class: int = 2,
    working: Mapping[str, Sequence[Call]] | None = None,
) -> dict[str, list[str]]:
    """Class name → constructor calls written as source, from literal arguments only
    (those seen to work first, when known), and those of its implementations."""
    found: dict[str, list[str]] = {}
    for cls in info.classes:
        if cls.hidden:  # never built by name: the module's own instances are the objects
            found[cls.name] = info.held(cls.name)
            continue
        if cls.is_abstract:
            found[cls.name] = implementation_sources(cls, [], mined)
            continue
        if cls.constructor is None:
            found[cls.name] = implementation_sources(cls, [f"{cls.name}()"], mined)
            continue
        known = list((working or {}).get(cls.name, ()))
        ctor = (known or _variants(cls.constructor, mined, per_class, {}))[:per_class]
        own = [f"{cls.name}({_arguments(c)})" for c in ctor]
        found[cls.name] = implementation_sources(cls, own, mined)
    for cls in info.imported:  # the package's classes a hint names: the module binds them
        if cls.name in found:
            continue
        if cls.is_abstract:
            own = []
        elif cls.constructor is None:
            own = [f"{cls.name}()"]
        else:
            planned = _variants(cls.constructor, mined, per_class, {})[:per_class]
            own = [f"{cls.name}({_arguments(c)})" for c in planned]
        found[cls.name] = implementation_sources(cls, own, mined)
    for enum in info.enums:  # ``GCB.CR``: its members first, then any call of the class
        members = [f"{enum.path}.{member}" for member in enum.members]
        found[enum.name] = list(dict.fromkeys([*members, *found.get(enum.name, [])]))
    for cls in info.classes:
        found[callback_key(cls.name)] = callback_sources(cls, mined)
    return {name: sources for name, sources in found.items() if sources}


def implementation_sources(
    cls: ClassInfo, own: list[str], mined: Mapping[str, tuple[Constant, ...]]
) -> list[str]:
    """``own``, the class's constructor calls, with one call of each implementation: all of
    them first when the class looks like an interface (text2num's ``Language``, whose
    parsers need ``English()``'s tables), else after its own first call."""
    built = []
    for implementation in cls.implementations:
        ctor = implementation.constructor
        planned = [Call(implementation.path)] if ctor is None else _variants(ctor, mined, 1, {})
        built += [f"{implementation.path}({_arguments(c)})" for c in planned[:1]]
    if cls.interface:
        return [*built, *own]
    return [*own[:1], *built, *own[1:]]


CALLBACKS_PER_CLASS = 4


CALLBACKS = "callback:"  # the prefix of ``callback_key``'s keys


def callback_key(class_name: str) -> str:
    """Where ``object_sources`` keeps the callbacks handed an instance of ``class_name``."""
    return f"{CALLBACKS}{class_name}"


def callback_sources(
    cls: ClassInfo, mined: Mapping[str, tuple[Constant, ...]], limit: int = CALLBACKS_PER_CLASS
) -> list[str]:
    """Callbacks a ``Callable[[cls], ...]`` parameter is given: each calls one public method
    of the instance it is handed, with the method's first planned arguments (inject's
    ``configure(lambda binder: binder.bind(int, 0))``), as a configuration hook does."""
    name = instance_name(cls.name)
    found: list[str] = []
    for method in cls.methods:
        if method.kind != "method" or method.name.startswith("_") or len(found) >= limit:
            continue
        planned = _variants(method, mined, 1, {})
        if planned:
            found.append(f"lambda {name}: {name}.{method.name}({_arguments(planned[0])})")
    return found


def _arguments(call: Call) -> str:
    """A call's arguments as written between its parentheses (``1, strict=True``)."""
    return ", ".join([*call.args, *(f"{k}={v}" for k, v in call.kwargs)])


def param_options(
    func: CallableInfo,
    mined: Mapping[str, tuple[Constant, ...]],
    per_param: int,
    objects: Mapping[str, list[str]],
) -> dict[str, tuple[Value, ...]]:
    """Each parameter's candidates: the module's objects its hint names, then literals."""
    constants = constants_for(dict(mined), func.qualname)
    # a file is read by whatever parses it: every scope's composed texts may fill it
    texts = tuple(c for found in mined.values() for c in found if c.kind == "text")
    options = {}
    for p in func.parameters:
        hint = parse_hint(p.annotation)
        named = _hint_names(hint)
        handed = [callback_key(n) for n in _handed_names(hint)]  # Callable[[Binder], ...]
        built = [
            *(Value(Expr(src), "callback") for key in handed for src in objects.get(key, ())),
            *(Value(Expr(src), "object") for name in named for src in objects.get(name, ())),
            *(Value(Expr(src), "object") for src in held_in_lists(hint, objects)),
            *(Value(Expr(src), "object") for src in any_objects(hint, objects)),
        ]
        files = wants_file(hint)
        if files:
            pool = (*texts, *constants)
        elif wants_bytes(hint):  # bytes are parsed by whatever reads them: every header
            pool = (*(t for t in texts if isinstance(t.value, bytes)), *constants)
        else:
            pool = constants
        planned = (*built, *candidates(p, pool, limit=per_param))[:per_param]
        if files:  # each composed content is a shape its parser was written for
            planned = unique_values([*planned, *file_contents(hint, texts)])
        options[p.name] = planned
    if func.name in ATTRIBUTE_METHODS and func.parameters:  # ``box.size``: names, not values
        first = func.parameters[0].name
        options[first] = attribute_names(constants)[:per_param]
    return options


def attribute_names(constants: Sequence[Constant]) -> tuple[Value, ...]:
    """Names to read, set or delete as attributes: the module's identifier strings (the
    keys it knows), then a plain one and one nothing sets."""
    found = [
        c.value
        for c in constants
        if isinstance(c.value, str) and c.value.isidentifier() and not c.value.startswith("__")
    ]
    names = dict.fromkeys([*found, "a", "missing"])
    return tuple(Value(name, "attribute") for name in names)


def held_in_lists(hint: Hint | None, objects: Mapping[str, list[str]], depth: int = 0) -> list[str]:
    """Lists of the module's objects, written as source, for a hint of lists of one of its
    classes, nested or not: openskill's ``rate(teams: List[List[Rating]])`` is given
    ``[[Rating(...)], [Rating(...), Rating(...)]]``, two teams, where a literal list
    can only be empty or hold plain values its checks reject. One holding one object and
    one holding two, each of the first two objects built; none when no object is."""
    if hint is None or depth > 2:
        return []
    if hint.name == "Union":
        return [s for arg in hint.args for s in held_in_lists(arg, objects, depth)]
    if hint.name != "list" or len(hint.args) != 1:
        return []
    (inner,) = hint.args
    if inner.name == "list":
        elements = held_in_lists(inner, objects, depth + 1)
    else:
        elements = list(objects.get(inner.name, ()))
    if not elements:
        return []
    first, second = elements[0], elements[1] if len(elements) > 1 else elements[0]
    return [f"[{first}]", f"[{first}, {second}]"]


ANY_OBJECTS = 2  # the module's objects an ``object`` hint is given, one per class


def any_objects(hint: Hint | None, objects: Mapping[str, list[str]]) -> list[str]:
    """For a parameter hinted ``object`` (any object at all: pluggy's ``register(plugin:
    _Plugin)``, ``_Plugin`` being ``object``), the first built object of the module's first
    ``ANY_OBJECTS`` classes: an object with methods and attributes, which no literal is."""
    if "object" not in _hint_names(hint):
        return []
    built = [srcs[0] for name, srcs in objects.items() if not name.startswith(CALLBACKS)]
    return built[:ANY_OBJECTS]


def _handed_names(hint: Hint | None) -> list[str]:
    """The classes a callable hint hands its first argument as (``Callable[[Binder], X]``)."""
    if hint is None:
        return []
    if hint.name == "Union":
        return [n for arg in hint.args for n in _handed_names(arg)]
    if hint.name == "Callable" and hint.args:
        return _hint_names(hint.args[0])
    return []


def _hint_names(hint: Hint | None) -> list[str]:
    if hint is None:
        return []
    if hint.name == "Union":
        return [n for arg in hint.args for n in _hint_names(arg)]
    return [hint.name]


def _class_calls(
    cls: ClassInfo,
    mined: Mapping[str, tuple[Constant, ...]],
    per_param: int,
    objects: Mapping[str, list[str]],
    working: Sequence[Call] = (),
) -> list[Call]:
    if cls.is_abstract:  # pykka's ``Actor``: built only as ``pykka.ThreadingActor()``
        return _calls_on(cls, mined, per_param, objects, implementation_sources(cls, [], mined))
    calls: list[Call] = []
    init: tuple[tuple[str, ...], tuple[tuple[str, str], ...]] | None = ((), ())
    if cls.constructor is not None:
        ctor = _variants(cls.constructor, mined, per_param, objects)
        calls += ctor
        built = [*working, *ctor]  # an instance seen to build beats the first planned one
        init = (built[0].args, built[0].kwargs) if built else None
    for method in cls.methods:
        variants = _variants(method, mined, per_param, objects)
        if method.kind == "method":
            if init is None:
                continue  # no instance can be built from literals
            variants = [_on_instance(v, *init) for v in variants]
        calls += variants
    if init is not None:  # its properties, read: ``entry.key``
        reads = [Call(f"{cls.name}.{name}", attribute=True) for name in cls.properties]
        calls += [_on_instance(read, *init) for read in reads]
    return calls


def _calls_on(
    cls: ClassInfo,
    mined: Mapping[str, tuple[Constant, ...]],
    per_param: int,
    objects: Mapping[str, list[str]],
    held: Sequence[str],
) -> list[Call]:
    """Every method of a class not built by its own name, called on the instances ``held``
    names (the module's own, ``countries.get("AF")``; or an abstract class's package
    implementations, ``pykka.ThreadingActor()``, class methods too), and each property
    read; the variants take turns among the instances. Not an in-place operator:
    ``countries += other`` in a test would make the module's name a local of the test."""
    if not held:
        return []
    calls: list[Call] = []
    for method in cls.methods:
        if method.name in IN_PLACE:
            continue
        variants = _variants(method, mined, per_param, objects)
        calls += [replace(v, via=held[i % len(held)]) for i, v in enumerate(variants)]
    calls += [Call(f"{cls.name}.{name}", attribute=True, via=held[0]) for name in cls.properties]
    return calls


def _on_instance(call: Call, args: tuple[str, ...], kwargs: tuple[tuple[str, str], ...]) -> Call:
    return replace(call, init_args=args, init_kwargs=kwargs)


def method_variants(
    func: CallableInfo,
    mined: Mapping[str, tuple[Constant, ...]],
    objects: Mapping[str, list[str]],
    per_param: int = 8,
) -> list[Call]:
    """A callable's planned calls, arguments only (no instance): see ``_variants``."""
    return _variants(func, mined, per_param, objects)


def _variants(
    func: CallableInfo,
    mined: Mapping[str, tuple[Constant, ...]],
    per_param: int,
    objects: Mapping[str, list[str]],
) -> list[Call]:
    """The base call, then each parameter's other candidates, one parameter at a time."""
    if func.is_async:
        return []
    if func.kind == "method" and func.name in ROUND_TRIPS:  # ``copy.copy(box)``: no arguments
        return [Call(func.qualname)]
    constants = constants_for(dict(mined), func.qualname)
    options = param_options(func, mined, per_param, objects)
    needed = [p for p in func.parameters if required(p)]
    if any(not options[p.name] for p in needed):
        return []
    base = {p.name: options[p.name][0] for p in needed}
    calls = [_call(func, base)]
    calls += _star_calls(func, calls[0], constants, per_param, options)
    calls += _keyword_calls(func, calls[0])
    calls += _together(func, base, options)
    for param in func.parameters:
        first = 1 if required(param) else 0
        if param.kind == "positional_only" and not required(param):
            continue  # would need every positional before it
        for value in options[param.name][first:]:
            if value.origin != "default":  # passing the default says nothing new
                calls.append(_call(func, {**base, param.name: value}))
    return list(dict.fromkeys(calls))


def _star_calls(
    func: CallableInfo,
    base: Call,
    constants: Sequence[Constant],
    per_param: int,
    options: Mapping[str, Sequence[Value]],
) -> list[Call]:
    """``*args`` given one, then two values (when every positional before it is required):
    the objects its hint names first (``*rates: RequestRate``), then literals."""
    star = next((p for p in func.parameters if p.kind == "var_positional"), None)
    if star is None:
        return []
    before = [p for p in func.parameters if p.kind in ("positional_only", "positional_or_keyword")]
    if any(not required(p) for p in before):
        return []  # extra values would fill the optional parameters first
    element = star.model_copy(update={"kind": "positional_only"})
    built = [v.source for v in options.get(star.name, ())]
    literal = [v.source for v in candidates(element, constants, limit=per_param)]
    values = list(dict.fromkeys([*built, *literal]))[:per_param]
    calls = [replace(base, args=(*base.args, value)) for value in values]
    calls += [replace(base, args=(*base.args, a, b)) for a, b in itertools.pairwise(values)]
    if len(values) >= 2:  # the values as one list: ``merge([d1, d2])`` style APIs
        calls.append(replace(base, args=(*base.args, f"[{values[0]}, {values[1]}]")))
    return calls


def _together(
    func: CallableInfo, base: Mapping[str, Value], options: Mapping[str, Sequence[Value]]
) -> list[Call]:
    """Each pair of options that act together (``func.together``) given two of its
    candidates each, other than their defaults, in one call."""
    calls = []
    for one, other in func.together:
        firsts = [
            [v for v in options.get(name, ()) if v.origin != "default"][:2] for name in (one, other)
        ]
        for a, b in itertools.product(*firsts):
            calls.append(_call(func, {**base, one: a, other: b}))
    return calls


def _keyword_calls(func: CallableInfo, base: Call) -> list[Call]:
    """``**kwargs`` given a keyword nothing else takes (its error path, when it checks)."""
    names = {p.name for p in func.parameters}
    if not any(p.kind == "var_keyword" for p in func.parameters) or EXTRA_KEYWORD in names:
        return []
    return [replace(base, kwargs=(*base.kwargs, (EXTRA_KEYWORD, "1")))]


def required(param: Param) -> bool:
    """Whether a call must give ``param`` an argument: no default, not ``*args`` or ``**kwargs``."""
    return not param.has_default and param.kind not in ("var_positional", "var_keyword")


def _call(func: CallableInfo, chosen: Mapping[str, Value]) -> Call:
    """Required positional parameters by position; everything else by keyword."""
    args: list[str] = []
    kwargs: list[tuple[str, str]] = []
    for param in func.parameters:
        if param.name not in chosen:
            continue
        positional = param.kind == "positional_only" or (
            param.kind == "positional_or_keyword" and required(param)
        )
        if positional:
            args.append(chosen[param.name].source)
        else:
            kwargs.append((param.name, chosen[param.name].source))
    return Call(func.qualname, tuple(args), tuple(kwargs), consume=func.is_generator)


def explore(
    project: Path,
    module: Path,
    info: ModuleInfo,
    mined: Mapping[str, tuple[Constant, ...]],
    *,
    python: Path,
    sandbox: Sandbox,
    timeout: float = 60.0,
) -> list[CallResult]:
    """One round: plan calls, run them, keep those that reach new arcs."""
    results = run_calls(
        project, module, plan_calls(info, mined), python=python, sandbox=sandbox, timeout=timeout
    )
    return keep_new_coverage(results)[0]
