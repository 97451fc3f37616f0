"""Line and branch coverage read from coverage.py's JSON report (``coverage json``).

Percentages are recomputed from the counts, so the result is the same with
every coverage 7.x (older ones lack the per-kind percentages). A branch is a
``(from_line, to_line)`` pair; a negative ``to_line`` means "exit from the
code object starting at that line", as coverage.py reports it.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tddforge.errors import RunnerError

Branch = tuple[int, int]


def _percent(covered: int, total: int) -> float:
    return 100.0 * covered / total if total else 100.0


@dataclass(frozen=True)
class CoverageTotals:
    """Counts over all measured files."""

    num_statements: int
    covered_lines: int
    num_branches: int
    covered_branches: int
    percent_covered: float  # coverage.py's figure: lines and branches together

    @property
    def line_percent(self) -> float:
        """Statements executed, in percent."""
        return _percent(self.covered_lines, self.num_statements)

    @property
    def branch_percent(self) -> float:
        """Branches taken, in percent (100 when there are none)."""
        return _percent(self.covered_branches, self.num_branches)


@dataclass(frozen=True)
class FileCoverage:
    """Coverage of one source file."""

    path: str
    executed_lines: tuple[int, ...]
    missing_lines: tuple[int, ...]
    missing_branches: tuple[Branch, ...]
    totals: CoverageTotals
    executed_branches: tuple[Branch, ...] = ()
    # line -> coverage contexts that ran it (with ``show_contexts``; e.g. per test function)
    contexts: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    # context -> the arcs it ran, as recorded (read from the data file when asked for)
    arcs: Mapping[str, frozenset[Branch]] = field(default_factory=dict)

    @property
    def percent_covered(self) -> float:
        """coverage.py's combined line and branch percentage."""
        return self.totals.percent_covered

    @property
    def statements(self) -> frozenset[int]:
        """The lines coverage.py counts as statements (each statement's first line)."""
        return frozenset((*self.executed_lines, *self.missing_lines))

    @property
    def branches(self) -> frozenset[Branch]:
        """Every branch coverage.py reports, taken or not."""
        return frozenset((*self.executed_branches, *self.missing_branches))

    @property
    def num_branches(self) -> int:
        """Branches in the file."""
        return self.totals.num_branches

    @property
    def covered_branches(self) -> int:
        """Branches taken at least once."""
        return self.totals.covered_branches


@dataclass(frozen=True)
class CoverageReport:
    """Coverage of every measured file plus the totals."""

    files: tuple[FileCoverage, ...]
    totals: CoverageTotals

    def file(self, path: str) -> FileCoverage | None:
        """The entry whose path is ``path`` or ends with ``/path``."""
        for entry in self.files:
            if entry.path == path or entry.path.endswith("/" + path):
                return entry
        return None


def _totals(summary: Mapping[str, Any]) -> CoverageTotals:
    return CoverageTotals(
        num_statements=int(summary.get("num_statements", 0)),
        covered_lines=int(summary.get("covered_lines", 0)),
        num_branches=int(summary.get("num_branches", 0)),
        covered_branches=int(summary.get("covered_branches", 0)),
        percent_covered=float(summary.get("percent_covered", 0.0)),
    )


def _file(path: str, data: Mapping[str, Any]) -> FileCoverage:
    return FileCoverage(
        path=path,
        executed_lines=tuple(sorted(int(n) for n in data.get("executed_lines", ()))),
        missing_lines=tuple(sorted(int(n) for n in data.get("missing_lines", ()))),
        missing_branches=tuple(
            sorted((int(a), int(b)) for a, b in data.get("missing_branches", ()))
        ),
        totals=_totals(data.get("summary", {})),
        executed_branches=tuple(
            sorted((int(a), int(b)) for a, b in data.get("executed_branches", ()))
        ),
        contexts={int(n): tuple(c) for n, c in (data.get("contexts") or {}).items()},
    )


def parse_coverage_json(data: Mapping[str, Any]) -> CoverageReport:
    """A ``CoverageReport`` from the decoded ``coverage json`` document."""
    files = data.get("files")
    if not isinstance(files, Mapping) or not isinstance(data.get("totals"), Mapping):
        raise RunnerError("coverage JSON report has no 'files'/'totals'")
    entries = tuple(_file(path, info) for path, info in sorted(files.items()))
    return CoverageReport(files=entries, totals=_totals(data["totals"]))


def read_coverage_json(path: Path) -> CoverageReport:
    """Read and parse the JSON report coverage.py wrote to ``path``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunnerError(f"cannot read coverage report {path}: {exc}") from exc
    if not isinstance(data, Mapping):
        raise RunnerError(f"coverage report {path} is not a JSON object")
    return parse_coverage_json(data)


def with_context_arcs(report: CoverageReport, data_file: Path, root: Path) -> CoverageReport:
    """``report`` with each file's arcs per context, read from coverage.py's data file
    (the report's relative paths are relative to ``root``).

    The file is read with our own coverage.py; when it cannot be (another data
    schema, no arcs recorded), the report comes back without them.
    """
    from coverage import CoverageData
    from coverage.exceptions import CoverageException

    try:
        data = CoverageData(basename=str(data_file))
        data.read()
        if not data.has_arcs():
            return report
        measured = {Path(name).resolve(): name for name in data.measured_files()}
        contexts = sorted(data.measured_contexts())
        files = []
        for entry in report.files:
            name = measured.get((root / entry.path).resolve())
            if name is not None:
                entry = replace(entry, arcs=_arcs_by_context(data, name, contexts))
            files.append(entry)
    except (CoverageException, sqlite3.Error, OSError):
        return report
    return replace(report, files=tuple(files))


def _arcs_by_context(data: Any, name: str, contexts: list[str]) -> dict[str, frozenset[Branch]]:
    found = {}
    for context in contexts:
        data.set_query_contexts([f"^{re.escape(context)}$"])
        found[context] = frozenset(data.arcs(name) or ())
    data.set_query_contexts(None)
    return found
