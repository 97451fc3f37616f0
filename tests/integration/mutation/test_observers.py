"""Import-time mutants run only the tests that can see them, with the verdicts of every test."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from tddforge.config import Settings
from tddforge.mutation.engine import MutationJob, score_project, verify_project
from tddforge.mutation.ground_truth import project_differences
from tddforge.mutation.project import ProjectReport
from tddforge.mutation.report import MutantResult

from .conftest import write_files

pytestmark = pytest.mark.integration

FILES = {
    "pkg/__init__.py": "from . import registry\nfrom .data import lookup\n\nregistry.fill()\n",
    # another module fills its registry while importing (as toolz's __init__ fills
    # _signatures.signatures): rebind runs that call again after switching a mutant on
    "pkg/registry.py": (
        "ENTRIES = {}\nDEFAULTS = {'x': 1, 'y': 2}\n\n\n"
        "def fill():\n    ENTRIES.update(DEFAULTS)\n\n\n"
        "def entry(key):\n    return ENTRIES[key]\n"
    ),
    "pkg/data.py": (
        'TABLE = {"a": 1, "b": 2}\n_BASE = 10\n_LIMIT = _BASE + 1\n\n\n'
        "def lookup(key, default=0):\n    return TABLE.get(key, default)\n"
    ),
    "pkg/other.py": "def double(x):\n    return x * 2\n",
    # imported while tests/test_other.py is collected, by nothing else, and no test runs it
    "pkg/extra.py": "_A = 1\n_B = _A + 1\n",
    "tests/test_data.py": (
        "from pkg import lookup\n\n\ndef test_lookup():\n    assert lookup('a') == 1\n\n\n"
        "def test_missing():\n    assert lookup('z') == 0\n"
    ),
    "tests/test_registry.py": (
        "from pkg.registry import entry\n\n\ndef test_entry():\n    assert entry('x') == 1\n"
    ),
    "tests/test_other.py": (
        "import pkg.extra\nfrom pkg.other import double\n\n\n"
        "def test_double():\n    assert double(2) == 4\n"
    ),
    # sees _LIMIT only by looking it up by a computed name
    "tests/test_reflect.py": (
        "import pkg.data\n\n\ndef test_limit():\n    assert vars(pkg.data)['_LI' + 'MIT'] == 11\n"
    ),
}
MODULES = ("pkg/data.py", "pkg/other.py", "pkg/extra.py", "pkg/registry.py")
DATA_TESTS = {"tests/test_data.py::test_lookup", "tests/test_data.py::test_missing"}


@pytest.fixture
def package(tmp_path: Path) -> Path:
    return write_files(tmp_path / "proj", FILES)


def _job(root: Path) -> MutationJob:
    modules = tuple(root / m for m in MODULES)
    return MutationJob(
        project=root,
        module=modules[0],
        modules=modules,
        tests=("tests",),
        python=Path(sys.executable),
        workers=2,
        timeout=300.0,
    )


def _results(report: ProjectReport, rel: str) -> list[MutantResult]:
    return next(m for m in report.modules if m.module == rel).results


def test_import_time_mutants_run_only_the_tests_that_can_see_them(
    package: Path, settings: Settings
) -> None:
    report = score_project(_job(package), settings)
    assert report.counts["error"] == 0
    data = _results(report, "pkg/data.py")
    table = [r for r in data if r.mutant.line == 1 and r.verdict == "survived"]
    assert table, [(r.mutant.line, r.verdict) for r in data]  # "b": 2 is never looked up
    for result in table:
        # TABLE is read by lookup (tests/test_data.py) and maybe by a lookup by computed name
        assert DATA_TESTS <= set(result.ran) <= DATA_TESTS | {"tests/test_reflect.py::test_limit"}
    # only a lookup by a computed name sees _LIMIT: the test doing it must run
    limit = [r for r in data if r.mutant.line == 3 and r.mutant.operator == "arithmetic"]
    assert limit and all(r.killer == "tests/test_reflect.py::test_limit" for r in limit)


def test_data_rebind_refuses_still_runs_only_the_tests_that_can_see_it(
    package: Path, settings: Settings
) -> None:
    report = score_project(_job(package), settings)
    registry = _results(report, "pkg/registry.py")
    unread = [r for r in registry if r.mutant.line == 2 and r.verdict == "survived"]
    assert unread, [(r.mutant.line, r.mutant.replacement, r.verdict) for r in registry]
    for result in unread:  # 'y' is never read: the test running the registry and the one
        # looking names up can see it, no other
        ran = set(result.ran)
        assert "tests/test_registry.py::test_entry" in ran
        assert ran <= {"tests/test_registry.py::test_entry", "tests/test_reflect.py::test_limit"}


def test_a_registry_another_file_fills_while_importing_is_rebound_and_filled_again(
    package: Path, settings: Settings
) -> None:
    job = dataclasses.replace(_job(package), module=package / "pkg/registry.py", modules=())
    report = score_project(job, settings)
    # every mutant in the registry's data and in fill's body is rebound, none imported fresh
    assert report.strategies["fresh"] == 0 and report.strategies["rebind"] > 0, report.strategies
    registry = _results(report, "pkg/registry.py")
    read = [r for r in registry if r.mutant.line == 2 and r.mutant.original == "1"]
    filled = [r for r in registry if r.mutant.line == 6]  # ENTRIES.update(DEFAULTS)
    assert read and filled, [(r.mutant.line, r.mutant.original, r.killer) for r in registry]
    # seen through the registry filled again (from the mutated table, or by the mutated body)
    for result in read + filled:
        assert result.verdict == "killed" and result.killer == "tests/test_registry.py::test_entry"


def test_a_mutant_breaking_an_import_no_kept_test_file_makes_is_still_killed(
    package: Path, settings: Settings
) -> None:
    report = score_project(_job(package), settings)
    extra = _results(report, "pkg/extra.py")
    broken = [r for r in extra if r.mutant.line == 1 and r.mutant.replacement == "None"]
    assert [r.verdict for r in broken] == ["killed"]
    assert (broken[0].killer or "").startswith("collection: ")


NAMESPACE = {
    **FILES,
    # a namespace package (no __init__.py): its module's name is not what __init__.py
    # files give ("extra"), and importing it by that name would fail
    "nspkg/extra.py": "_A = 1\n_B = _A + 1\n",
    "tests/test_ns.py": "import nspkg.extra\n\n\ndef test_nothing():\n    assert True\n",
}


def test_a_module_of_a_namespace_package_is_imported_by_its_real_name(
    tmp_path: Path, settings: Settings
) -> None:
    root = write_files(tmp_path / "proj", NAMESPACE)
    job = dataclasses.replace(_job(root), module=root / "nspkg/extra.py", modules=())
    extra = _results(score_project(job, settings), "nspkg/extra.py")
    # no test can see _B: its mutants survive, none is killed by a failed import
    unseen = [r for r in extra if r.mutant.line == 2]
    assert unseen and {r.verdict for r in unseen} == {"survived"}, [
        (r.mutant.replacement, r.verdict, r.killer) for r in unseen
    ]
    broken = [r for r in extra if r.mutant.line == 1 and r.mutant.replacement == "None"]
    assert [r.verdict for r in broken] == ["killed"]  # _A + 1 fails while it is imported


def test_the_verdicts_are_those_every_test_gives(package: Path, settings: Settings) -> None:
    report = score_project(_job(package), settings)
    truth = verify_project(_job(package), settings, report)
    assert len(truth) == report.mutants
    assert project_differences(report, truth) == []
