"""Traceability: which generated tests cover which spec test case (pure).

A test covers a case when the case id (``TC001``, ``TC-001``, ``auth-3``...)
appears in the test's name, its docstring, its class's name or docstring, or
the comments just above it, compared case-insensitively with separators
ignored, and never as the prefix of a longer number (TC001 is not TC0010).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tddforge.analysis.testsource import TestDef


@dataclass(frozen=True)
class Traceability:
    """Spec case id → test node ids, plus the cases no test covers and the tests no case names."""

    cases: dict[str, list[str]]
    uncovered: list[str]
    untraced_tests: list[str]


def _pattern(case_id: str) -> re.Pattern[str]:
    pieces = [re.escape(p) for p in re.findall(r"[A-Za-z]+|[0-9]+", case_id)]
    body = r"[\W_]*".join(pieces)
    return re.compile(rf"(?<![A-Za-z0-9]){body}(?![0-9])", re.IGNORECASE)


def _base(nodeid: str) -> str:
    """A node id without its parametrisation suffix."""
    return nodeid.split("[", 1)[0]


def trace(
    case_ids: Sequence[str], tests: Iterable[TestDef], nodeids: Iterable[str]
) -> Traceability:
    """Map every case id to the run's node ids whose test text mentions it."""
    texts = {t.nodeid: t.text for t in tests}
    ran = list(dict.fromkeys(nodeids))
    patterns = {case: _pattern(case) for case in case_ids}
    cases: dict[str, list[str]] = {case: [] for case in case_ids}
    traced: set[str] = set()
    for nodeid in ran:
        text = texts.get(_base(nodeid), _base(nodeid).rsplit("::", 1)[-1])
        text = text.replace("_", " ")
        for case, pattern in patterns.items():
            if pattern.search(text):
                cases[case].append(nodeid)
                traced.add(nodeid)
    uncovered = [case for case, hits in cases.items() if not hits]
    return Traceability(cases, uncovered, [n for n in ran if n not in traced])
