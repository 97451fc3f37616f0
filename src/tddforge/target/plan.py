"""Which way each mutant is judged, once the baseline is known (pure).

A prior verdict still provably right is reused. A graft mutant with covering
tests is grafted; one without is ``no-coverage``. A fresh mutant in module
data (or in a function the module calls while importing) is rebound in the
collector, the tests reading that data first; any other fresh mutant is
imported fresh.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .baseline import Measured
from .protocol import Counts, MutantRecord, Reused, WorkerConfig
from .rebind import data_lines
from .reuse import at_collection_fresh, reusable


@dataclass
class Plan:
    """The mutants by the way they are judged."""

    reused: list[tuple[MutantRecord, Reused]] = field(default_factory=list)
    graft: list[tuple[MutantRecord, list[str]]] = field(default_factory=list)  # and rebind
    fresh: list[MutantRecord] = field(default_factory=list)
    uncovered: list[MutantRecord] = field(default_factory=list)

    def counts(self, fallback: list[MutantRecord]) -> Counts:
        """How many ran by each strategy, ``fallback`` (handed to the fresh path) included."""
        rebound = sum(1 for m, _ in self.graft if m["strategy"] == "fresh")
        rebound_back = sum(1 for m in fallback if m["strategy"] == "fresh")
        return Counts(
            graft=len(self.graft) - rebound - (len(fallback) - rebound_back),
            rebind=rebound - rebound_back,
            fresh=len(self.fresh) + len(fallback),
        )


def plan(config: WorkerConfig, source: str, measured: Measured) -> Plan:
    """Sort the request's mutants by the way they are judged."""
    found = Plan()
    mutants = at_collection_fresh(config["mutants"], set(measured.collect_lines))
    prior = config.get("prior", {})
    unchanged = set(config.get("unchanged_tests", []))
    todo = []
    for m in mutants:
        covering = measured.covering(m)
        verdict = reusable(prior.get(m["id"]), covering, unchanged)
        if verdict is None:
            todo.append((m, covering))
        else:
            found.reused.append((m, verdict))
    data = data_lines(source) if config.get("rebind", True) else {}
    for m, covering in todo:
        _place(found, m, covering, data, measured)
    return found


def _place(
    found: Plan,
    m: MutantRecord,
    covering: list[str],
    data: dict[int, set[int]],
    measured: Measured,
) -> None:
    if m["strategy"] == "fresh" and m["line"] in data:
        # switched on by rebind in the collector (data, or a function the module calls to
        # make it); the tests running the functions that read the mutated data first,
        # then every other test
        likely = measured.tests_running(data[m["line"]])
        first = [n for n in covering if n in likely]
        found.graft.append((m, first + [n for n in covering if n not in likely]))
    elif m["strategy"] == "fresh":
        found.fresh.append(m)
    elif covering:
        found.graft.append((m, covering))
    else:
        found.uncovered.append(m)
