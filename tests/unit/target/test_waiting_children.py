"""A child that waits without computing lends its slot to the next one; a busy one does not."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import pytest

from tddforge.target import processes
from tddforge.target.processes import Pool, Slots, cpu_seconds
from tddforge.target.protocol import ChildVerdict

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")


def _sleep() -> ChildVerdict:
    time.sleep(2.0)
    return {"verdict": "survived"}


def _spin() -> ChildVerdict:
    end = time.process_time() + 2.0
    while time.process_time() < end:
        pass
    return {"verdict": "survived"}


def _quick() -> ChildVerdict:
    return {"verdict": "killed"}


def _finished(*bodies: tuple[str, object]) -> list[tuple[str, str]]:
    """The keys in the order their children reported, one slot for all."""
    order: list[tuple[str, str]] = []
    pool: Pool[str] = Pool(1)

    def done(key: str, result: ChildVerdict) -> None:
        order.append((key, str(result["verdict"])))

    for key, body in bodies:
        pool.submit(key, 30.0, body, done)  # type: ignore[arg-type]
    pool.drain(done)
    return order


@pytest.mark.parametrize(
    ("case", "first", "expected"),
    [
        ("a sleeping child lends its slot", _sleep, [("b", "killed"), ("a", "survived")]),
        ("a computing child keeps it", _spin, [("a", "survived"), ("b", "killed")]),
    ],
)
def test_a_child_waiting_without_computing_lends_its_slot(
    case: str, first: object, expected: list[tuple[str, str]]
) -> None:
    assert _finished(("a", first), ("b", _quick)) == expected


def _long_sleep() -> ChildVerdict:
    time.sleep(4.0)
    return {"verdict": "survived"}


def test_children_waiting_together_wait_side_by_side() -> None:
    # two sleepers on one slot both lend it (each after a second): the quick one after
    # them reports first
    order = _finished(("a", _long_sleep), ("b", _long_sleep), ("c", _quick))
    assert order[0] == ("c", "killed")
    assert sorted(order) == [("a", "survived"), ("b", "survived"), ("c", "killed")]


def test_at_most_so_many_children_wait_per_slot(monkeypatch: pytest.MonkeyPatch) -> None:
    # one waiting child per slot: the second sleeper only starts once the first lent its
    # slot, and the quick one after it waits for a slot to be given back
    monkeypatch.setattr(processes, "_WAITING_PER_SLOT", 1)
    order = _finished(("a", _sleep), ("b", _sleep), ("c", _quick))
    assert order[0] == ("a", "survived")
    assert sorted(order) == [("a", "survived"), ("b", "survived"), ("c", "killed")]


def _sleep_then_spin() -> ChildVerdict:
    time.sleep(1.5)
    return _spin()


def _watched(pool: Pool[str], also: Callable[[], None] = lambda: None) -> list[tuple[bool, bool]]:
    """(lent, running) after each look at the pool, until its children end."""
    seen: list[tuple[bool, bool]] = []
    while pool.running:
        pool.reap(lambda key, result: None)
        seen.append((bool(pool.idle), bool(pool.running)))
        also()
    return seen


def test_a_waiting_child_that_computes_again_takes_its_slot_back() -> None:
    pool: Pool[str] = Pool(1)
    pool.submit("a", 30.0, _sleep_then_spin, lambda key, result: None)
    seen = _watched(pool)
    lent = seen.index((True, True))
    assert (False, True) in seen[lent:]  # computing again, still running: no longer lent


def test_a_shared_slot_taken_back_is_given_back_once() -> None:
    slots = Slots(1)
    pool: Pool[str] = Pool(1, slots)
    pool.submit("a", 30.0, _sleep_then_spin, lambda key, result: None)
    sibling: list[bool] = []

    def take_the_lent_slot() -> None:
        if pool.idle and not sibling:
            sibling.append(slots.take())  # another pool takes the slot the child lent

    _watched(pool, take_the_lent_slot)
    assert sibling == [True]
    assert not slots.take()  # the child computed again without one, and gave none back
    slots.give()  # the sibling's child ends
    assert slots.take()
    assert not slots.take()


def test_cpu_seconds_of_this_process() -> None:
    used = cpu_seconds(os.getpid())
    assert used is not None and used >= 0.0
    assert cpu_seconds(2**22 + 12345) is None  # no such process
