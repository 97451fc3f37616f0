"""Which way each mutant is judged, once the baseline is known (pure).

A prior verdict still provably right is reused. A graft mutant with covering
tests is grafted; one without is ``no-coverage``. A fresh mutant in module
data (or in a function the module calls while importing) is rebound in the
collector, the tests reading that data first, unless another file reads that
data while it is imported (``shared``: a value computed from it there would
keep the unmutated data) or the module's data drifted after its import
(``Measured.drifted``: running it again would undo what another module did to
it); any other fresh mutant is imported fresh. A target the collection never imported (its tests import it
inside test functions) needs neither: the collector's child serves the
mutated module to the tests' own import, and only the tests that import it or
run its code can see it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .baseline import Measured
from .observe import Observers
from .protocol import Counts, MutantRecord, PriorVerdict, Reused, WorkerConfig
from .rebind import data_lines
from .request import called
from .reuse import (
    at_collection_fresh,
    is_unchanged,
    looping,
    reusable,
    still_passing,
    timed_out,
)


@dataclass
class Plan:
    """The mutants by the way they are judged."""

    reused: list[tuple[MutantRecord, Reused]] = field(default_factory=list)
    # in the collector: graft, rebind, and any mutant of a target tests import themselves
    graft: list[tuple[MutantRecord, list[str]]] = field(default_factory=list)
    fresh: list[MutantRecord] = field(default_factory=list)
    uncovered: list[MutantRecord] = field(default_factory=list)
    # a fresh mutant's tests when not all can see it (``observe``), fastest first
    seeing: dict[str, list[str]] = field(default_factory=dict)

    def counts(self, fallback: list[MutantRecord]) -> Counts:
        """How many ran by each strategy, ``fallback`` (handed to the fresh path) included."""
        rebound = sum(1 for m, _ in self.graft if m["strategy"] == "fresh")
        rebound_back = sum(1 for m in fallback if m["strategy"] == "fresh")
        return Counts(
            graft=len(self.graft) - rebound - (len(fallback) - rebound_back),
            rebind=rebound - rebound_back,
            fresh=len(self.fresh) + len(fallback),
        )


def rebindable(config: WorkerConfig, sources: dict[str, str]) -> dict[str, str]:
    """The targets (-> their sources) with a mutant on a line ``rebind`` could switch on:
    the baseline checks once whether their data drifted after the import."""
    if not config.get("rebind", True):
        return {}
    found: dict[str, str] = {}
    default = next(iter(sources), "")
    for m in config["mutants"]:
        target = m.get("target") or default
        if target in found or target not in sources or m.get("shared"):
            continue
        if m["line"] in data_lines(sources[target], called(config, target)):
            found[target] = sources[target]
    return found


def plan(config: WorkerConfig, sources: dict[str, str], measured: Measured) -> Plan:
    """Sort the request's mutants by the way they are judged (``sources``: target -> text)."""
    found = Plan()
    mutants = at_collection_fresh(config["mutants"], measured)
    prior = config.get("prior", {})
    unchanged = set(config.get("unchanged_tests", []))
    todo = []
    observers = None
    if any("observe" in m for m in mutants):
        observers = Observers(sources, measured, config.get("test_files", []))
    for m in mutants:
        covering = measured.covering(m)
        seeing = observers.of(m) if observers is not None and m["strategy"] == "fresh" else None
        if seeing is not None:
            covering = found.seeing[m["id"]] = seeing
        verdict = reusable(prior.get(m["id"]), covering, unchanged)
        if verdict is not None:
            found.reused.append((m, verdict))
            continue
        passed = still_passing(prior.get(m["id"]), covering, unchanged)
        looped = looping(prior.get(m["id"]), covering, unchanged)
        if passed or looped:
            done = set(passed)
            rest = [n for n in covering if n not in done]
            if looped:  # the unchanged tests after it: a run would not reach them
                rest = [n for n in rest if not is_unchanged(n, unchanged)]
            if not _can_see(m, rest, measured):  # the new tests cannot reach it
                found.reused.append((m, _unreached(covering, looped, prior.get(m["id"]))))
                continue
            m = m.copy()  # this request's record: the config's stays as the host wrote it
            m["passed"] = passed
            if looped:
                m["looped"] = looped
            covering = rest
            if m["strategy"] == "fresh":
                found.seeing[m["id"]] = covering
        todo.append((m, covering))
    rebind = config.get("rebind", True)
    data: dict[str, dict[int, set[int]]] = {}
    for m, covering in todo:
        target = measured.target(m)
        if rebind and target not in data:
            data[target] = data_lines(sources[target], called(config, target))
        _place(found, m, covering, data.get(target, {}), measured)
    return found


def _place(
    found: Plan,
    m: MutantRecord,
    covering: list[str],
    data: dict[int, set[int]],
    measured: Measured,
) -> None:
    target = measured.target(m)
    if "default" in m and (target in measured.lazy or _called_at_import(m, measured)):
        m = m.copy()  # the default cannot be set in place: the mutant goes another way
        del m["default"]
    if m["strategy"] == "fresh" and target in measured.lazy:
        # served to the tests' own import: only a test that imports the target (or runs its
        # code) can see it, since the collection never imported it
        seeing = _users(target, covering, measured)
        if seeing:
            found.graft.append((m, seeing))
        else:
            found.uncovered.append(m)
    elif m["strategy"] == "fresh" and "default" in m and covering:
        # a literal default, set on the live function in the collector: the tests calling
        # the function first, then every other test, as for a fresh import
        likely = measured.tests_running(target, _body(m))
        found.graft.append((m, _likely_first(covering, likely)))
    elif (
        m["strategy"] == "fresh"
        and m["line"] in data
        and not m.get("shared")
        and target not in measured.drifted
        and covering
    ):
        # switched on by rebind in the collector (data, or a function the module calls to
        # make it); the tests running the functions that read the mutated data first,
        # then every other test
        likely = measured.tests_running(target, data[m["line"]])
        found.graft.append((m, _likely_first(covering, likely)))
    elif m["strategy"] == "fresh":
        found.fresh.append(m)
    elif covering:
        found.graft.append((m, covering))
    else:
        found.uncovered.append(m)


def _unreached(covering: list[str], looped: str | None, prior: PriorVerdict | None) -> Reused:
    """The verdict of a mutant no new or edited test can reach: it survives, or it still
    times out in ``looped``."""
    if looped and prior:
        return timed_out(prior, looped)
    return Reused(verdict="survived", ran=covering, duration=0.0)


def _called_at_import(m: MutantRecord, measured: Measured) -> bool:
    """Whether the function whose default ``m`` changes ran while its module was imported:
    that call used the unmutated default, so only a fresh import shows the mutant."""
    return bool(measured.imported_lines(m).intersection(_body(m)))


def _body(m: MutantRecord) -> range:
    """The lines of the body of the function whose default ``m`` changes."""
    first, last = m["default"]["body"]
    return range(first, last + 1)


def _can_see(m: MutantRecord, nodeids: list[str], measured: Measured) -> bool:
    """Whether any of ``nodeids`` can see ``m``: for a target the tests import themselves,
    only a test that imports it or runs its code can (``_place``)."""
    target = measured.target(m)
    if m["strategy"] == "fresh" and target in measured.lazy:
        return bool(_users(target, nodeids, measured))
    return bool(nodeids)


def _users(target: str, nodeids: list[str], measured: Measured) -> list[str]:
    """Those of ``nodeids`` that import ``target`` or run its code."""
    users = measured.tests_of(target)
    return [n for n in nodeids if n in users]


def _likely_first(nodeids: list[str], likely: set[str]) -> list[str]:
    return [n for n in nodeids if n in likely] + [n for n in nodeids if n not in likely]
