"""What the results file says of a mutant's child: the tests it ran, and who decided."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tddforge.target.journal import Journal, read_events
from tddforge.target.protocol import ChildVerdict

A, B, C = "t.py::test_a", "t.py::test_b", "t.py::test_c"


def _event(tmp_path: Path, result: ChildVerdict, **extra: Any) -> dict[str, Any]:
    m = {"id": "m1", **extra}
    path = tmp_path / "results.jsonl"
    Journal(str(path)).verdict(m, [A, B, C], 0.0, {**result, "wall": 0.1})  # type: ignore[arg-type]
    (event,) = read_events(str(path))
    return {k: event[k] for k in ("verdict", "killer", "ran")}  # type: ignore[literal-required]


@pytest.mark.parametrize(
    ("result", "extra", "expected"),
    [
        ({"verdict": "killed", "killer": B, "ran": 2}, {}, ("killed", B, [A, B])),
        ({"verdict": "survived", "ran": 3}, {"passed": ["t.py::p"]}, ("survived", None, ["t.py::p", A, B, C])),
        # a timeout names the test it ran out of time in, and its run ends there
        ({"verdict": "timeout", "killer": B}, {}, ("timeout", B, [A, B])),
        ({"verdict": "timeout", "killer": A}, {"passed": ["t.py::p"]}, ("timeout", A, ["t.py::p", A])),
        # which test is not known (a wall-clock limit, a loop before the first test)
        ({"verdict": "timeout"}, {}, ("timeout", None, [A, B, C])),
        # the new tests pass: the test a prior run timed out in, not run again, still loops
        ({"verdict": "survived", "ran": 3}, {"looped": "t.py::loop", "passed": ["t.py::p"]},
         ("timeout", "t.py::loop", ["t.py::p", A, B, C, "t.py::loop"])),
        ({"verdict": "killed", "killer": A, "ran": 1}, {"looped": "t.py::loop"}, ("killed", A, [A])),
    ],
)  # fmt: skip
def test_verdict_events(
    tmp_path: Path, result: ChildVerdict, extra: dict[str, Any], expected: tuple[Any, ...]
) -> None:
    event = _event(tmp_path, result, **extra)
    assert (event["verdict"], event["killer"], event["ran"]) == expected
