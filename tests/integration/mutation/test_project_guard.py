"""A mutant's tests may not remove or rewrite the project: real pytest, sandbox and forks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.config import Settings
from tddforge.mutation.cache import VerdictCache
from tddforge.mutation.engine import WarmWorker, score

from .conftest import job_for, write_project

pytestmark = pytest.mark.integration

# ``rm`` refuses the working directory, as fsspec's ``LocalFileSystem.rm`` does; the mutant
# that drops the check removes the whole tree the tests run in
MODULE = """\
import os
import shutil


def rm(path, recursive=False):
    if recursive:
        if os.path.abspath(path) == os.getcwd():
            raise ValueError("Cannot delete current working directory")
        shutil.rmtree(path)
    else:
        os.remove(path)


def report(path, text):
    with open(path, "w") as out:
        out.write(text.upper())
    return len(text)


def scratch_name(stem):
    return stem + ".tmp"
"""

TESTS = """\
import os

import pytest

from sample import report, rm, scratch_name


def test_rm_refuses_the_working_directory():
    with pytest.raises(ValueError):
        rm(".", recursive=True)


def test_report_writes_beside_the_tests():
    path = os.path.join("tests", "out", "report.txt")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    assert report(path, "ok") == 2
    with open(path) as written:
        assert written.read() == "OK"
    rm(path)


def test_scratch_is_made_and_removed():
    name = scratch_name("work")
    with open(name, "w") as out:
        out.write("x")
    assert name.endswith(".tmp")  # a mutant's name fails here, and its file is left behind
    rm(name)
"""


# one child at a time: the tests write one path in the project, and two mutants' children
# side by side would race on it (one truncating what the other reads back)


@pytest.fixture
def guarded_project(tmp_path: Path) -> Path:
    root = write_project(tmp_path / "proj", MODULE, TESTS)
    (root / "README.md").write_text("keep me\n")
    return root


def _files(root: Path) -> dict[str, str]:
    """The project's own files and their text (a mutant's leftover output aside)."""
    return {
        p.relative_to(root).as_posix(): p.read_text()
        for p in root.rglob("*")
        if p.is_file() and not {".tddforge", "__pycache__", "out"} & set(p.parts)
    }


def _verdict(report, line: int, original: str) -> set[str]:  # type: ignore[no-untyped-def]
    return {
        r.verdict for r in report.results if (r.mutant.line, r.mutant.original) == (line, original)
    }


def test_a_mutant_that_would_remove_the_project_is_refused_and_killed(
    guarded_project: Path, settings: Settings
) -> None:
    before = _files(guarded_project)
    report = score(job_for(guarded_project, workers=1), settings)
    # the project is whole: before this, the mutants of line 7 removed every file in it
    assert _files(guarded_project) == before
    assert _verdict(report, 7, "os.path.abspath(path) == os.getcwd()") == {"killed"}
    # what the unmutated tests write stays theirs to write: refused, this mutant would die
    assert _verdict(report, 11, "os.remove(path)") == {"survived"}
    assert _verdict(report, 16, "out.write(text.upper())") == {"killed"}
    # the file a mutant's test made under another name was removed as its child ended
    assert _verdict(report, 21, '".tmp"') == {"killed"}
    assert report.counts["error"] == 0


def test_a_warm_worker_guards_the_project_on_every_request(
    guarded_project: Path, settings: Settings, tmp_path: Path
) -> None:
    before = _files(guarded_project)
    cache = VerdictCache(tmp_path / "cache")
    job = job_for(guarded_project, workers=1)
    with WarmWorker(guarded_project, job.python, settings) as worker:
        first = worker.score(job, cache=cache)
        (guarded_project / "sample.py").write_text(MODULE + "\n# edited\n")
        again = worker.score(job, cache=cache)  # a new request: its baseline and mutants again
    assert _files(guarded_project) == {**before, "sample.py": MODULE + "\n# edited\n"}
    assert not any(r.reused for r in again.results)  # its module was edited: all run again
    for report in (first, again):
        assert _verdict(report, 7, "os.path.abspath(path) == os.getcwd()") == {"killed"}
        assert report.counts["error"] == 0
        assert _verdict(report, 11, "os.remove(path)") == {"survived"}
