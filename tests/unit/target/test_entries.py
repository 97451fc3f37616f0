"""Which entries of a module's dicts a test reads, and which tests can see a rebound table."""

from __future__ import annotations

import copy
import json
import pickle
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tddforge.target.entries import (
    EntryReads,
    Reads,
    Snapshot,
    TracedDict,
    readers,
    trace_dicts,
)

TABLE = """\
UNITS = {"m": 1.0, "km": 1000.0, "cm": 0.01}
NAMES = ["metre"]
LIMIT = 3


def to_metres(value, unit, table=UNITS):
    return value * table[unit]
"""


def _module(name: str, source: str) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = f"{name}.py"
    exec(compile(source, module.__file__, "exec"), vars(module))
    return module


@pytest.fixture
def installed() -> Iterator[Callable[[str, str], types.ModuleType]]:
    """Modules put in ``sys.modules`` for the test, taken out after it."""
    names: list[str] = []

    def install(name: str, source: str) -> types.ModuleType:
        sys.modules[name] = module = _module(name, source)
        names.append(name)
        return module

    yield install
    for name in names:
        sys.modules.pop(name, None)


def _traced(reads: Reads, table: dict[Any, Any]) -> TracedDict:
    traced = TracedDict(table)
    from tddforge.target.entries import _Note

    traced._note = _Note("t::D", {k: i for i, k in enumerate(table)}, reads)
    return traced


@pytest.mark.parametrize(
    ("read", "entries", "missed"),
    [
        (lambda d: d["b"], [1], []),
        (lambda d: "b" in d, [1], []),
        (lambda d: "z" in d, [], ["t::D"]),
        (lambda d: d.get("a"), [0], []),
        (lambda d: d.get("z", 0), [], ["t::D"]),
        (lambda d: d.setdefault("a", 9), [0], []),
        (lambda d: d.pop("b"), [1], []),
        (lambda d: list(d), [-1], []),
        (lambda d: len(d), [-1], []),
        (lambda d: d == {"a": 1}, [-1], []),
        (lambda d: repr(d), [-1], []),
        (lambda d: dict(d), [-1, 0, 1], []),  # keys(), then each item
        (lambda d: {**d}, [-1, 0, 1], []),
        (lambda d: sorted(d.items()), [-1], []),
        (lambda d: d.copy(), [-1], []),
        (lambda d: json.dumps(d), [-1], []),
        (lambda d: d.__setitem__("c", 3), [], []),  # a write reads nothing
    ],
)
def test_a_traced_dict_notes_each_read(
    read: Callable[[dict[str, int]], Any], entries: list[int], missed: list[str]
) -> None:
    reads = Reads()
    traced = _traced(reads, {"a": 1, "b": 2})
    read(traced)
    found, miss = reads.take()
    assert found == ({"t::D": entries} if entries else {})
    assert miss == missed
    assert reads.take() == ({}, [])  # taken: the next test starts afresh


def test_a_missing_key_is_noted_and_still_raises() -> None:
    reads = Reads()
    traced = _traced(reads, {"a": 1})
    with pytest.raises(KeyError):
        traced["z"]
    assert reads.take() == ({}, ["t::D"])


def test_a_traced_dict_copies_and_pickles_as_a_plain_dict() -> None:
    traced = _traced(Reads(), {"a": 1})
    for made in (pickle.loads(pickle.dumps(traced)), copy.copy(traced), copy.deepcopy(traced)):
        assert type(made) is dict and made == {"a": 1}


def test_every_reference_to_a_dict_is_traced(
    installed: Callable[[str, str], types.ModuleType],
) -> None:
    table = installed("table_mod", TABLE)
    user = installed("user_mod", "from table_mod import UNITS\n")
    reads = Reads()
    sizes = trace_dicts({"table.py": table}, reads)
    assert sizes == {"table.py::UNITS": 3}
    assert type(table.UNITS) is TracedDict
    assert user.UNITS is table.UNITS  # the other module's name too
    assert table.to_metres.__defaults__[0] is table.UNITS  # and the function's default
    assert table.to_metres(2, "km") == 2000.0
    assert reads.take() == ({"table.py::UNITS": [1]}, [])


def test_a_dict_held_where_it_cannot_be_replaced_is_left_alone(
    installed: Callable[[str, str], types.ModuleType],
) -> None:
    table = installed("held_mod", TABLE + "HOLDERS = [UNITS]\n")
    sizes = trace_dicts({"table.py": table}, Reads())
    assert sizes == {}
    assert type(table.UNITS) is dict


def _reads(**by_entry: Any) -> EntryReads:
    reads = EntryReads(sizes={"t::UNITS": 3})
    reads.add("test_m", {"t::UNITS": [0]}, [])
    reads.add("test_km", {"t::UNITS": [1]}, [])
    reads.add("test_all", {"t::UNITS": [-1]}, [])
    reads.add("test_miss", {}, ["t::UNITS"])
    reads.add("test_none", {}, [])
    return reads


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda ns: None, set()),  # nothing changed: no test can see it
        (lambda ns: ns["UNITS"].update(km=1001.0), {"test_km", "test_all"}),
        (lambda ns: ns["UNITS"].update(cm=0.02), {"test_all"}),  # nobody reads cm alone
        (lambda ns: ns["UNITS"].pop("m"), {"test_m", "test_all"}),
        (lambda ns: ns["UNITS"].update(mm=0.001), {"test_miss", "test_all"}),  # a key added
        (lambda ns: ns.update(LIMIT=4), None),  # not a table: every test
        (lambda ns: ns["NAMES"].append("x"), None),
        (lambda ns: ns.update(UNITS=dict(ns["UNITS"])), None),  # another dict object
        (lambda ns: ns.update(EXTRA=1), None),
        (lambda ns: setattr(ns["to_metres"], "__defaults__", (None,)), None),
        (lambda ns: ns.update(LIMIT=3), set()),  # the same value again
    ],
)
def test_only_the_readers_of_changed_entries_can_see_a_rebound_table(
    change: Callable[[dict[str, Any]], Any], expected: set[str] | None
) -> None:
    namespace = vars(_module("t", TABLE))
    before = Snapshot(namespace)
    change(namespace)
    assert readers(before, namespace, "t", _reads()) == expected


def test_a_table_whose_size_is_not_the_traced_one_is_not_narrowed() -> None:
    namespace = vars(_module("t", TABLE))
    namespace["UNITS"]["mm"] = 0.001
    before = Snapshot(namespace)
    assert readers(before, namespace, "t", _reads()) is None


def test_entry_reads_survive_their_json() -> None:
    reads = _reads()
    again = EntryReads.from_data(json.loads(json.dumps(reads.to_data())))
    assert again == reads


LAMBDA = TABLE + "SCALE = lambda v: v * 2\n"


@pytest.mark.parametrize(
    ("body", "lines", "expected"),
    [
        ("v * 3", (8, 8), None),  # the mutant's own lambda changed: every test
        ("v * 2", (8, 8), set()),  # made again, the same
        ("v * 3", (1, 1), set()),  # elsewhere: its text did not change, nor its code
    ],
)
def test_a_function_is_compared_by_code_only_where_the_mutant_is(
    body: str, lines: tuple[int, int], expected: set[str] | None
) -> None:
    namespace = vars(_module("t", LAMBDA))
    before = Snapshot(namespace)
    made = _module("t2", LAMBDA.replace("v * 2", body))
    namespace["SCALE"].__code__ = made.SCALE.__code__
    assert readers(before, namespace, "t", _reads(), lines) == expected
