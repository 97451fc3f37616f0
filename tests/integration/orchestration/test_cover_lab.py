"""SuiteLab for real: sandboxed pytest runs of a small project, reruns, the alone check and
the final suite assembled from them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tddforge.config import Settings
from tddforge.cover_contract import GeneratedSuite
from tddforge.decisions import cover_suite as suites
from tddforge.orchestration.cover_final import assemble
from tddforge.orchestration.cover_lab import WRITES_PROJECT, SuiteLab
from tddforge.orchestration.cover_loop import CoverOptions, _attempt, load_target
from tddforge.sandbox.backend import READ_ONLY_ROOT
from tddforge.store.rundir import RunDir

pytestmark = pytest.mark.integration

MODULE = "def double(x):\n    return 2 * x\n"
SUITE = """\
from counter import double

STATE = []


def test_first():
    STATE.append(1)
    assert double(2) == 4


def test_needs_first():
    assert STATE, "runs only after test_first"


def test_plain():
    assert double(0) == 0
"""
WRITER = """\
from pathlib import Path

from counter import double


def test_writes_the_module():
    Path(double.__code__.co_filename).write_text("broken(")


def test_plain():
    assert double(1) == 2
"""


def lab(tmp_path: Path, *, parallel: bool, reruns: int = 3) -> SuiteLab:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "counter.py").write_text(MODULE, encoding="utf-8")
    options = CoverOptions(
        project, project / "counter.py", Path(sys.executable), test_path="test_counter_x.py"
    )
    settings = Settings()
    cover = settings.cover.model_copy(update={"parallel_reruns": parallel, "reruns": reruns})
    settings = settings.model_copy(update={"cover": cover})
    run = RunDir.create(project, "cover")
    return SuiteLab(load_target(options), Path(sys.executable), settings, run, workers=1)


POLLUTER = """\
import counter


def test_rebinds():
    counter.double = lambda x: 0
    assert counter.double(1) == 0


def test_two():
    assert counter.double(1) == 2


def test_four():
    assert counter.double(2) == 4


def test_zero():
    assert counter.double(0) == 0
"""
BREAKER = """\
import os

from counter import double


def test_breaks_the_process():
    os.closerange(3, 1024)
    assert double(1) == 2


def test_two():
    assert double(1) == 2


def test_four():
    assert double(2) == 4


def test_six():
    assert double(3) == 6
"""


TWO_POLLUTERS = POLLUTER.replace(
    "def test_two():",
    "def test_rebinds_too():\n    counter.double = lambda x: 1\n    assert counter.double(0) == 1\n\n\n"
    "def test_two():",
)
ONE_VICTIM = POLLUTER.replace(
    "def test_four():\n    assert counter.double(2) == 4", "def test_four():\n    assert True"
)


@pytest.mark.parametrize("code", [TWO_POLLUTERS, ONE_VICTIM], ids=["two-polluters", "one-victim"])
def test_no_test_is_marked_polluting_when_dropping_it_would_not_hold_or_gain(
    tmp_path: Path, code: str
) -> None:
    """With another test breaking the same victims, they would still fail without the
    first; and one victim is not worth its polluter: the verdicts stay as the runs gave."""
    suite = lab(tmp_path, parallel=False)
    try:
        found = suite.measure(code)
        assert "pollutes" not in {v.status for v in found.verdicts.values()}
        assert found.verdicts["test_rebinds"].status == "stable"
        assert found.verdicts["test_two"].status in ("flaky", "failing")
        assert found.mutation is not None
    finally:
        suite.close()


def test_a_test_that_leaves_state_behind_is_dropped_and_its_victims_kept(
    tmp_path: Path,
) -> None:
    suite = lab(tmp_path, parallel=False)
    try:
        found = suite.measure(POLLUTER)
        verdicts = {k: v.status for k, v in found.verdicts.items()}
        assert verdicts == {
            "test_rebinds": "pollutes",
            "test_two": "stable",
            "test_four": "stable",
            "test_zero": "stable",
        }
        assert "makes test_four, test_two fail" in found.verdicts["test_rebinds"].message
        assert found.mutation is not None  # scored without the polluter
    finally:
        suite.close()


def test_a_test_that_breaks_the_process_costs_itself_only(tmp_path: Path) -> None:
    suite = lab(tmp_path, parallel=False)
    try:
        found = suite.measure(BREAKER)
        assert found.verdicts["test_breaks_the_process"].status == "pollutes"
        assert sorted(found.stable) == ["test_four", "test_six", "test_two"]
    finally:
        suite.close()


@pytest.mark.parametrize("parallel", [False, True])
def test_a_test_that_leans_on_another_fails_alone(tmp_path: Path, parallel: bool) -> None:
    suite = lab(tmp_path, parallel=parallel)
    try:
        found = suite.measure(SUITE)
        assert found.stable == ["test_first", "test_plain"]
        assert found.verdicts["test_needs_first"].status == "flaky"
        assert suite.alone([v for v in found.verdicts.values()]) == {
            "test_needs_first": "fails when run alone (depends on other tests)"
        }
    finally:
        suite.close()


def test_a_test_checked_alone_before_and_unchanged_is_not_run_alone_again(
    tmp_path: Path,
) -> None:
    suite = lab(tmp_path, parallel=False)
    isolated: list[list[str]] = []
    real = suite.pytest

    def pytest_spied(paths: list[str], **kwargs: object) -> object:
        if kwargs.get("isolate"):
            isolated.append([p.split("::")[-1] for p in paths])
        return real(paths, **kwargs)  # type: ignore[arg-type]

    suite.pytest = pytest_spied  # type: ignore[method-assign]
    try:
        found = suite.measure(SUITE)
        assert suite.alone(list(found.verdicts.values())) == {
            "test_needs_first": "fails when run alone (depends on other tests)"
        }
        # a new test and another test's body changed, the rest unchanged (a new import
        # would change them all: importing runs code)
        again = SUITE.replace("STATE, ", "STATE or True, ")
        found = suite.measure(again + "\n\ndef test_new():\n    assert double(3) == 6\n")
        assert suite.alone(list(found.verdicts.values())) == {}  # test_needs_first passes
        assert sorted(isolated[-1]) == ["test_needs_first", "test_new"]
        # nothing changed: no run at all
        runs = len(isolated)
        assert suite.alone(list(found.verdicts.values())) == {}
        assert len(isolated) == runs
    finally:
        suite.close()


@pytest.mark.parametrize(("parallel", "reruns"), [(False, 1), (False, 5), (True, 4)])
def test_every_rerun_counts(tmp_path: Path, parallel: bool, reruns: int) -> None:
    suite = lab(tmp_path, parallel=parallel, reruns=reruns)
    try:
        found = suite.measure(SUITE)
        if reruns == 1:  # one run in file order: test_needs_first passes after test_first
            assert found.stable == ["test_first", "test_needs_first", "test_plain"]
        else:  # some shuffled order ran it first
            assert found.stable == ["test_first", "test_plain"]
    finally:
        suite.close()


def test_a_test_that_writes_the_module_is_refused_or_found_and_undone(tmp_path: Path) -> None:
    # one run at a time: side by side, the other run would import the broken module
    # (the builtin's reruns go two at a time because its tests do not write files)
    suite = lab(tmp_path, parallel=False)
    try:
        found = suite.measure(WRITER)
        assert (suite.module.read_text(), found.ran) == (MODULE, True)
        why = suite.alone(list(found.verdicts.values()))
        if suite.sandbox.backend in READ_ONLY_ROOT:  # the project is read-only to the tests
            assert why == {"test_writes_the_module": WRITES_PROJECT}
            assert not suite.guard()  # nothing to undo: the write never happened
        else:  # the weaker backends cannot protect it: the module guard undoes the write
            assert why == {"test_writes_the_module": "modifies the module under test (counter.py)"}
        assert suite.module.read_text() == MODULE
    finally:
        suite.close()


REMOVER = """\
import shutil
from pathlib import Path


def test_removes_the_project():
    shutil.rmtree(Path.cwd())


def test_writes_where_a_test_should(tmp_path):
    (tmp_path / "out.txt").write_text("written")
"""


def test_a_generated_test_cannot_remove_the_project(tmp_path: Path) -> None:
    suite = lab(tmp_path, parallel=False)
    try:
        if suite.sandbox.backend not in READ_ONLY_ROOT:
            pytest.skip(f"the {suite.sandbox.backend} backend cannot protect the project")
        found = suite.measure(REMOVER)
        assert found.ran
        statuses = {v.key: v.status for v in found.verdicts.values()}
        assert statuses == {
            "test_removes_the_project": "failing",
            "test_writes_where_a_test_should": "stable",
        }
        assert suite.module.read_text() == MODULE
        assert (suite.project / "test_counter_x.py").read_text() == REMOVER
        why = suite.alone(list(found.verdicts.values()))
        assert why == {"test_removes_the_project": WRITES_PROJECT}
    finally:
        suite.close()


LITTER = """\
from counter import double


def test_writes_where_it_runs():
    with open("merged.pdf", "wb") as out:
        out.write(bytes([double(1)]))
"""


def test_a_file_a_suites_test_left_is_not_the_projects_for_the_next_suite(
    tmp_path: Path,
) -> None:
    """PyPDF2's tests wrote ``dont_commit_merged.pdf`` where they ran: the file was then taken
    for the project's own, and the next suite's tests writing it again were refused."""
    suite = lab(tmp_path, parallel=False)
    try:
        first = suite.measure(LITTER)
        assert [v.status for v in first.verdicts.values()] == ["stable"]
        assert (suite.project / "merged.pdf").exists()  # what a plain pytest run leaves too
        again = suite.measure(LITTER.replace("double(1)", "double(2)"))
        assert [v.status for v in again.verdicts.values()] == ["stable"]
    finally:
        suite.close()
    left = sorted(p.name for p in suite.project.iterdir())
    assert left == [".tddforge", "counter.py", "test_counter_x.py"]


SIGN = "def sign(x):\n    if x < 0:\n        return -1\n    return 1\n"
REDUNDANT = """\
import pytest

from counter import sign


@pytest.fixture
def negative():
    return sign(-4)


def test_negative(negative):
    assert negative == -1


def test_positive():
    assert sign(2) == 1


def test_positive_runs():
    sign(7)


def test_zero():
    assert sign(0) > 0
"""


def test_tests_that_add_nothing_leave_without_a_rerun_and_the_same_figures(
    tmp_path: Path,
) -> None:
    suite = lab(tmp_path, parallel=True)
    suite.module.write_text(SIGN, encoding="utf-8")
    suite.original = SIGN.encode()
    try:
        attempt = _attempt(0, GeneratedSuite(REDUNDANT, REDUNDANT), suite, None, 0, suite.settings)
        final = assemble([attempt], suite, lambda _: None)
        assert final.source is not None
        assert final.dropped == {"test_positive_runs": suites.REDUNDANT}
        assert final.kept == ["test_negative", "test_positive", "test_zero"]
        events = (suite.run.path / "events.jsonl").read_text(encoding="utf-8")
        assert '"pruned_without_rerun"' in events
        assert (suite.project / "test_counter_x.py").read_text() == final.source.code
        again = suite.measure(final.source.code)  # measured for real, the same figures
        assert again.coverage is not None and final.source.coverage is not None
        assert again.coverage.totals == final.source.coverage.totals
        assert again.coverage.missing_branches == final.source.coverage.missing_branches
        assert again.mutation_score == final.source.mutation_score
        assert again.stable == final.kept
    finally:
        suite.close()
