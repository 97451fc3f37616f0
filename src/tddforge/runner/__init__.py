"""Run pytest (and coverage.py) on a project in the sandbox; outcomes as data."""

from __future__ import annotations

from tddforge.runner.coverage_data import CoverageReport as CoverageReport
from tddforge.runner.coverage_data import CoverageTotals as CoverageTotals
from tddforge.runner.coverage_data import FileCoverage as FileCoverage
from tddforge.runner.coverage_data import parse_coverage_json as parse_coverage_json
from tddforge.runner.coverage_data import read_coverage_json as read_coverage_json
from tddforge.runner.pytest_run import interpreter_for as interpreter_for
from tddforge.runner.pytest_run import project_paths as project_paths
from tddforge.runner.pytest_run import run_pytest as run_pytest
from tddforge.runner.pytest_run import run_pytest_orders as run_pytest_orders
from tddforge.runner.results import CollectionError as CollectionError
from tddforge.runner.results import TestOutcome as TestOutcome
from tddforge.runner.results import TestRun as TestRun
from tddforge.runner.results import outcomes_from_jsonl as outcomes_from_jsonl

__all__ = [
    "CollectionError",
    "CoverageReport",
    "CoverageTotals",
    "FileCoverage",
    "TestOutcome",
    "TestRun",
    "interpreter_for",
    "outcomes_from_jsonl",
    "parse_coverage_json",
    "project_paths",
    "read_coverage_json",
    "run_pytest",
    "run_pytest_orders",
]
