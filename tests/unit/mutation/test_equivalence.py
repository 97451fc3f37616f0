"""Likely-equivalent survivors: which changes a rule marks, and why (a table of cases)."""

from __future__ import annotations

import pytest

from tddforge.mutation.equivalence import likely_equivalent
from tddforge.mutation.generate import find_mutants
from tddforge.mutation.report import MutantResult, MutationReport


def marked(source: str) -> dict[tuple[str, str], str]:
    """(original, replacement) → reason, for every mutant of ``source`` a rule marks."""
    mutants = find_mutants(source)
    reasons = likely_equivalent(mutants, source)
    return {(m.original, m.replacement): reasons[m.id] for m in mutants if m.id in reasons}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "def local(v):\n    public, _, local = v.split('+', 1)\n    return local\n",
            {
                ("1", "2"): "split's maxsplit raised from 1 to 2: the result differs only on a"
                " string holding 2 or more '+'; equivalent if none reaches this line"
            },
        ),
        (
            "def f(v):\n    return v.rsplit(maxsplit=2)\n",
            {
                ("2", "3"): "rsplit's maxsplit raised from 2 to 3: the result differs only on a"
                " string holding 3 or more whitespace; equivalent if none reaches this line"
            },
        ),
        ("def f(v):\n    return v.split('+', 0)\n", {}),  # 0 → 1 splits once more: not rare
        ("def f(v):\n    return v.strip('+') + str(1)\n", {}),  # another call's number
        ("def f(v):\n    return v.partition('+')\n", {}),
        (
            "__all__ = ['LocalType']\nLocalType = make(1)\n\ndef f(x: LocalType):\n    pass\n",
            {
                ("make(1)", "None"): "LocalType is read only in type annotations here (other"
                " modules may read it: __all__ exports it)",
                ("1", "2"): "LocalType is read only in type annotations here (other modules"
                " may read it: __all__ exports it)",
                ("1", "0"): "LocalType is read only in type annotations here (other modules"
                " may read it: __all__ exports it)",
            },
        ),
        ("__all__ = ['K']\nK = make(1)\n\ndef f(x: K):\n    return K\n", {}),  # read at run time
    ],
)
def test_likely_equivalent_rules(source: str, expected: dict[tuple[str, str], str]) -> None:
    assert marked(source) == expected


def test_the_report_marks_likely_equivalent_survivors_only() -> None:
    source = "def f(v):\n    return v.split('+', 1)\n"
    by_change = {(m.original, m.replacement): m for m in find_mutants(source)}
    results = [
        MutantResult(by_change[("1", "2")], "survived"),
        MutantResult(by_change[("1", "0")], "survived"),
        MutantResult(by_change[("v.split('+', 1)", "None")], "killed", killer="t::test_f"),
    ]
    data = MutationReport("m", source, results, tests=1, elapsed=1.0).to_data()
    marks = {s["replacement"]: s["likely_equivalent"] for s in data["survivors"]}
    assert marks["2"].startswith("split's maxsplit raised from 1 to 2")
    assert marks["0"] is None
    assert data["score"] == 33.33  # still counted as a survivor
