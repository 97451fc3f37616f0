"""A child that waits without computing lends its slot to the next one; a busy one does not."""

from __future__ import annotations

import os
import time

import pytest

from tddforge.target.processes import Pool, cpu_seconds
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


def test_at_most_size_children_wait_beside_the_running_ones() -> None:
    # two sleepers on one slot: the second one only starts once the first lent its slot,
    # and the quick one after it waits for a slot to be given back
    order = _finished(("a", _sleep), ("b", _sleep), ("c", _quick))
    assert order[0] == ("a", "survived")
    assert sorted(order) == [("a", "survived"), ("b", "survived"), ("c", "killed")]


def test_cpu_seconds_of_this_process() -> None:
    used = cpu_seconds(os.getpid())
    assert used is not None and used >= 0.0
    assert cpu_seconds(2**22 + 12345) is None  # no such process
