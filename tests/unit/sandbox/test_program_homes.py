from __future__ import annotations

from pathlib import Path

from tddforge.sandbox.sandbox import program_homes


def _install(prefix: Path, target: Path | None) -> Path:
    (prefix / "bin").mkdir(parents=True)
    python = prefix / "bin" / "python"
    if target is None:
        python.write_text("#!/bin/sh\n")
    else:
        python.symlink_to(target)
    return python


def test_every_symlink_hop_is_made_visible(tmp_path: Path) -> None:
    base = _install(tmp_path / "base", None)
    outer = _install(tmp_path / "outer-venv", base)
    inner = _install(tmp_path / "inner-venv", outer)
    work = tmp_path / "work"
    work.mkdir()
    homes = program_homes(inner, work)
    assert set(homes) == {tmp_path / "inner-venv", tmp_path / "outer-venv", tmp_path / "base"}


def test_homes_inside_the_work_dir_are_not_listed(tmp_path: Path) -> None:
    base = _install(tmp_path / "base", None)
    inside = _install(tmp_path / "work" / ".venv", base)
    assert program_homes(inside, tmp_path / "work") == (tmp_path / "base",)
