"""What a prior run's results still prove: reusable verdicts and baseline records (pure)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .protocol import BaselineRecord, MutantRecord, PriorVerdict, Reused, WorkerConfig
from .request import reached

if TYPE_CHECKING:
    from .baseline import Measured

_COLLECTION = "collection: "


def reusable(prior: PriorVerdict | None, covering: list[str], unchanged: set[str]) -> Reused | None:
    """A prior verdict that is provably still right, or None (the mutant must run again).

    killed: the killing test is unchanged and still covers the mutant; or no test
    killed it, the mutated module failed to run (``_broke_the_module``).
    survived / no-coverage: every test now covering the mutant is unchanged and
    had already run against it (so no new or edited test can kill it).
    timeout: likewise, every test now covering it is unchanged and was in the run
    that timed out, or the test it timed out in is unchanged and covers it
    (``looping``): the same code under the same tests loops again (a child's
    budget is CPU time, which the machine's load does not change). An edited
    module is a new cache entry, so its timeouts run again.
    Errors always run again.
    """
    if not prior:
        return None
    verdict = prior.get("verdict")
    if verdict == "killed":
        killer = prior.get("killer") or ""
        if (is_unchanged(killer, unchanged) or _broke_the_module(killer, unchanged)) and (
            killer in covering or killer.startswith(_COLLECTION)
        ):
            return Reused(verdict="killed", killer=killer, ran=prior.get("ran", []), duration=0.0)
        return None
    if verdict in ("survived", "no-coverage", "timeout"):
        ran = set(prior.get("ran", []))
        if all(is_unchanged(n, unchanged) and n in ran for n in covering):
            if verdict == "timeout":
                return timed_out(prior, prior.get("killer"))
            return Reused(verdict=verdict, ran=prior.get("ran", []), duration=0.0)
    looped = looping(prior, covering, unchanged)
    if looped and all(is_unchanged(n, unchanged) for n in covering):
        return timed_out(prior, looped)
    return None


def timed_out(prior: PriorVerdict, killer: str | None) -> Reused:
    """A prior timeout that stands, with the test it ran out of time in when known."""
    found = Reused(verdict="timeout", ran=prior.get("ran", []), duration=0.0)
    if killer:
        found["killer"] = killer
    return found


def looping(prior: PriorVerdict | None, covering: list[str], unchanged: set[str]) -> str | None:
    """The test a prior timeout ran out of time in, when it is unchanged and still covers
    the mutant: it loops again. Only the new or edited tests can change the verdict
    now (one may fail first), and only they need to run; the unchanged tests after it
    never ran, and a run in the same order would not reach them either."""
    if not prior or prior.get("verdict") != "timeout":
        return None
    culprit = prior.get("killer")
    if culprit and culprit in covering and is_unchanged(culprit, unchanged):
        return culprit
    return None


def still_passing(
    prior: PriorVerdict | None, covering: list[str], unchanged: set[str]
) -> list[str]:
    """The covering tests a prior survivor is known to pass: unchanged, and run against it
    then. Only the others (new or edited) can kill it now, and only they run. For a
    timeout still ``looping``, those that ran before the test it timed out in; none for
    any other prior verdict (a timeout whose test is unknown or edited runs whole again)."""
    if not prior:
        return []
    ran = prior.get("ran", [])
    if prior.get("verdict") == "timeout":
        looped = looping(prior, covering, unchanged)
        ran = [n for n in ran if n != looped] if looped else []
    elif prior.get("verdict") != "survived":
        return []
    known = set(ran)
    return [n for n in covering if n in known and is_unchanged(n, unchanged)]


def _broke_the_module(killer: str, unchanged: set[str]) -> bool:
    """A kill no test made: the mutated module itself failed to run (``collection:
    TypeError``, from a rebind). Its verdict is kept with the module's text (an edited
    module is a new cache entry); what else could change it, another project file or
    what runs at import, empties ``unchanged`` altogether."""
    return bool(unchanged) and killer[len(_COLLECTION) :].isidentifier()


def is_unchanged(nodeid: str, unchanged: set[str]) -> bool:
    """Whether a test (or a collection-time verdict's file) is provably unchanged.

    Keys as ``fingerprints.file_fingerprints`` makes them: ``path::func``,
    ``path::Class::*`` for any method of a class, ``path::Class::method`` for one
    method on its own (where no class of the file inherits another), ``path`` for a
    file.
    """
    return any(key in unchanged for key in test_keys(nodeid))


def test_keys(nodeid: str) -> tuple[str, ...]:
    """Every fingerprint key a test is known by: ``test_key``'s, and for a method of a
    class also its own (``path::Class::method``)."""
    key = test_key(nodeid)
    parts = nodeid.split("[", 1)[0].split("::")
    if len(parts) == 3 and not nodeid.startswith(_COLLECTION):
        return (key, "::".join(parts))
    return (key,)


def test_key(nodeid: str) -> str:
    """The fingerprint key a test (or a collection-time verdict's file) is known by."""
    if nodeid.startswith(_COLLECTION):
        return nodeid[len(_COLLECTION) :]
    parts = nodeid.split("[", 1)[0].split("::")
    if len(parts) == 2:
        return "::".join(parts)
    if len(parts) > 2:
        return f"{parts[0]}::{parts[1]}::*"
    return nodeid


def reusable_baseline(config: WorkerConfig) -> dict[str, BaselineRecord]:
    """Prior baseline records of tests that are provably unchanged (same module version).

    A passing, unchanged test covers the same lines and takes about the same
    time as before, so it need not run again to rebuild the baseline.
    """
    unchanged = set(config.get("unchanged_tests", []))
    return {
        nodeid: record
        for nodeid, record in config.get("prior_baseline", {}).items()
        if record.get("outcome") == "passed"
        and "imported" in record
        and "writes" in record
        and is_unchanged(nodeid, unchanged)
    }


def at_collection_fresh(mutants: list[MutantRecord], measured: Measured) -> list[MutantRecord]:
    """Graft mutants in code that already ran while its module was imported must be
    imported fresh.

    A function body executed at import time (a module calling its own helper,
    a decorator, parametrize data) has already done its work by the time a
    graft could switch the mutant on.
    """
    return [_as_fresh(m) if _ran_at_import(m, measured) else m for m in mutants]


def _ran_at_import(m: MutantRecord, measured: Measured) -> bool:
    span = reached(m)
    return m["strategy"] == "graft" and bool(measured.imported_lines(m).intersection(span))


def _as_fresh(m: MutantRecord) -> MutantRecord:
    fresh = m.copy()
    fresh["strategy"] = "fresh"
    return fresh
