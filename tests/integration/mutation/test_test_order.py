"""A mutant's tests: those naming what its line changes run before faster ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.config import Settings
from tddforge.mutation.engine import score

from .conftest import job_for, write_project

pytestmark = pytest.mark.integration

MODULE = """\
class Box:
    def __init__(self, value, label="box"):
        self.value = value
        self.label = label
"""

# Every test runs both lines; only one reads ``label``, and it is the slowest (wall time
# is what the baseline times, so the sleeps set the order a run by speed would take).
TESTS = (
    "import time\n\nfrom sample import Box\n"
    + "".join(
        f"\n\ndef test_value_{i}():\n    time.sleep(0.004)\n    assert Box({i}).value == {i}\n"
        for i in range(6)
    )
    + """

def test_kept():
    time.sleep(0.008)
    assert Box(1, "x").label == "x"
"""
)


def test_the_test_naming_the_changed_attribute_runs_first(
    tmp_path: Path, settings: Settings
) -> None:
    project = write_project(tmp_path / "order", MODULE, TESTS)
    report = score(job_for(project), settings)
    found = [r for r in report.results if r.mutant.line == 4 and r.mutant.replacement == "None"]
    assert found, [(r.mutant.line, r.mutant.replacement) for r in report.results]
    result = found[0]
    assert result.killer == "tests/test_sample.py::test_kept"
    # before it at most the test that killed a neighbour (line 3's mutant), not all six
    assert len(result.ran) <= 2, result.ran


REPORTER_TESTS = """\
import pathlib

from sample import Box


def test_value(request, capsys):
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    log = pathlib.Path(__file__).with_name("reporter.log")
    with open(log, "a") as handle:
        handle.write("present\\n" if reporter is not None else "absent\\n")
    print("captured as ever")
    assert capsys.readouterr().out == "captured as ever\\n"
    assert Box(2).value == 2
"""


def test_tests_run_without_the_terminal_reporter(tmp_path: Path, settings: Settings) -> None:
    """Children print nowhere: pytest's terminal reporter is not there to format each test
    (what a test fixture captures is unchanged)."""
    project = write_project(tmp_path / "quiet", MODULE, REPORTER_TESTS)
    report = score(job_for(project), settings)
    assert any(r.verdict == "killed" for r in report.results)
    runs = (project / "tests" / "reporter.log").read_text().split()
    assert len(runs) >= 2 and set(runs) == {"absent"}, runs
