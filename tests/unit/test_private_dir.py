"""Scratch directories under .tddforge/tmp leave nothing behind (runner.pytest_run.private_dir)."""

from __future__ import annotations

from pathlib import Path

from tddforge.runner.pytest_run import private_dir


def test_overlapping_runs_leave_no_scratch_directory(tmp_path: Path) -> None:
    first, second = private_dir(tmp_path), private_dir(tmp_path)
    a = first.__enter__()
    b = second.__enter__()  # starts while the first is running
    assert a.parent == b.parent == tmp_path / ".tddforge" / "tmp" and a != b
    first.__exit__(None, None, None)  # the first one out cannot remove tmp: b is in it
    assert b.is_dir()
    second.__exit__(None, None, None)
    assert list(tmp_path.iterdir()) == []  # the last one out removes tmp, and .tddforge


def test_a_project_without_tddforge_is_left_as_it_was(tmp_path: Path) -> None:
    with private_dir(tmp_path) as scratch:
        (scratch / "x").write_text("1")
    assert list(tmp_path.iterdir()) == []


def test_an_existing_tddforge_directory_stays_even_when_runs_overlap(tmp_path: Path) -> None:
    (tmp_path / ".tddforge" / "runs").mkdir(parents=True)
    with private_dir(tmp_path), private_dir(tmp_path):
        pass
    (tmp_path / ".tddforge" / "runs").rmdir()
    with private_dir(tmp_path):  # empty now, but it was there before
        pass
    (tmp_path / ".tddforge" / "runs").mkdir()
    assert sorted(p.name for p in (tmp_path / ".tddforge").iterdir()) == ["runs"]
