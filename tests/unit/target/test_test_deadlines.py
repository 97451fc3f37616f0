"""A child that runs tests ends at the deadline of the test it loops in, and names it."""

from __future__ import annotations

import pytest

from tddforge.target import processes
from tddforge.target.baseline import Measured
from tddforge.target.processes import STARTS, Pool, last_started, limit_tests, starting_test
from tddforge.target.protocol import ChildVerdict


def _spin() -> None:
    while True:
        pass


def _judge(body: object, wall: float = 30.0) -> ChildVerdict:
    verdicts: dict[str, ChildVerdict] = {}
    pool: Pool[str] = Pool(1)

    def done(key: str, result: ChildVerdict) -> None:
        verdicts[key] = result

    pool.submit("m", wall, body, done)  # type: ignore[arg-type]
    pool.drain(done)
    return verdicts["m"]


def test_an_endless_loop_ends_at_its_tests_deadline_and_names_the_test() -> None:
    def body() -> ChildVerdict:
        limit_tests(20.0, {"t.py::test_a": 0.1, "t.py::test_b": 20.0})
        starting_test("t.py::test_a")
        _spin()
        return {"verdict": "survived", "ran": 2}

    verdict = _judge(body)
    assert verdict["verdict"] == "timeout"
    assert verdict["killer"] == "t.py::test_a"
    assert verdict["cpu"] < 5.0  # its test's deadline, not the whole budget's 20 s


def test_a_later_test_gets_the_time_the_earlier_ones_left() -> None:
    def body() -> ChildVerdict:
        limit_tests(20.0, {"t.py::test_a": 0.1, "t.py::test_b": 0.3})
        starting_test("t.py::test_a")
        starting_test("t.py::test_b")
        _spin()
        return {"verdict": "survived", "ran": 2}

    verdict = _judge(body)
    assert (verdict["verdict"], verdict["killer"]) == ("timeout", "t.py::test_b")
    assert 0.25 <= verdict["cpu"] < 5.0


def test_the_whole_budget_still_bounds_the_tests() -> None:
    def body() -> ChildVerdict:
        limit_tests(0.2, {"t.py::test_a": 30.0})
        starting_test("t.py::test_a")
        _spin()
        return {"verdict": "survived", "ran": 1}

    verdict = _judge(body)
    assert (verdict["verdict"], verdict["killer"]) == ("timeout", "t.py::test_a")
    assert verdict["cpu"] < 5.0


def test_a_verdict_is_read_past_the_tests_it_started() -> None:
    def body() -> ChildVerdict:
        limit_tests(20.0)
        starting_test("t.py::test_a")
        starting_test("t.py::test_b")
        return {"verdict": "killed", "killer": "t.py::test_b", "ran": 2}

    assert _judge(body) == {
        "verdict": "killed",
        "killer": "t.py::test_b",
        "ran": 2,
        "wall": pytest.approx(0.0, abs=30.0),
        "cpu": pytest.approx(0.0, abs=30.0),
    }


def test_a_timeout_before_any_test_names_none() -> None:
    def body() -> ChildVerdict:
        limit_tests(0.1, {"t.py::test_a": 30.0})
        _spin()  # importing, collecting: no test started yet
        return {"verdict": "survived", "ran": 1}

    verdict = _judge(body)
    assert verdict["verdict"] == "timeout"
    assert "killer" not in verdict


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        (b"", (None, b"")),
        (b'{"verdict": "survived"}', (None, b'{"verdict": "survived"}')),
        (STARTS + b"t.py::a\n", ("t.py::a", b"")),
        (STARTS + b"t.py::a\n" + STARTS + b"t.py::b[x]\n", ("t.py::b[x]", b"")),
        (STARTS + b"t.py::a\n{}", ("t.py::a", b"{}")),
    ],
)
def test_last_started(written: bytes, expected: tuple[str | None, bytes]) -> None:
    assert last_started(written) == expected


def test_outside_a_pool_child_a_test_start_writes_nothing() -> None:
    assert processes._VERDICT_FD is None
    starting_test("t.py::test_a")  # the floor's children, a plain process: no pipe to write


def test_deadlines_add_each_tests_share_to_the_floor() -> None:
    durations = {"t.py::a": 0.01, "t.py::b": 0.1}
    measured = Measured(durations, list(durations), {}, {}, 0.5, 0.2, 5.0)
    assert measured.deadlines(["t.py::a", "t.py::b"]) == {
        "t.py::a": pytest.approx(0.2 + 0.05),
        "t.py::b": pytest.approx(0.2 + 0.05 + 0.5),
    }
    assert measured.deadlines(["t.py::a", "t.py::b"])["t.py::b"] == pytest.approx(
        measured.timeout(["t.py::a", "t.py::b"])
    )
