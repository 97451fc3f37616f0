from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tddforge.errors import PathRefused
from tddforge.workspace import FileBlock, confine, write_blocks, write_file


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../escape.py", "'..'"),
        ("tests/../../escape.py", "'..'"),
        ("/tmp/x.py", "absolute"),
        ("~/x.py", "absolute"),
        (".git/hooks/pre-commit", ".git/"),
        ("sub/.git/config", ".git/"),
        ("tests\\..\\x.py", "backslash"),
        ("", "empty"),
        ("tests/", "directory"),
    ],
)
def test_refused_shapes(tmp_path: Path, path: str, reason: str) -> None:
    with pytest.raises(PathRefused, match=re.escape(reason)):
        confine(tmp_path, path)


def test_symlinked_directory_pointing_outside_is_refused(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    (work / "tests").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PathRefused, match="outside the work dir"):
        write_file(work, "tests/test_x.py", "x = 1\n")
    assert list(outside.iterdir()) == []


def test_symlinked_file_is_refused(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "link.py").symlink_to(victim)
    with pytest.raises(PathRefused, match="symlink"):
        write_file(work, "link.py", "overwritten\n")
    assert victim.read_text() == "keep\n"


def test_symlink_to_git_dir_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "g").symlink_to(tmp_path / ".git", target_is_directory=True)
    with pytest.raises(PathRefused, match=r"\.git/"):
        write_file(tmp_path, "g/config", "[core]\n")


def test_confined_write_creates_parents(tmp_path: Path) -> None:
    target = write_file(tmp_path, "tests/unit/test_a.py", "A = 1\n")
    assert target == tmp_path.resolve() / "tests" / "unit" / "test_a.py"
    assert target.read_text() == "A = 1\n"
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".tddforge-")]


def test_write_blocks_reports_refusals_and_writes_the_rest(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    (work / "linked").symlink_to(outside, target_is_directory=True)
    blocks = [
        FileBlock("../escape.py", "bad\n"),
        FileBlock("/tmp/x.py", "bad\n"),
        FileBlock("linked/test_x.py", "bad\n"),
        FileBlock("tests/test_ok.py", "ok = 1\n"),
    ]
    report = write_blocks(work, blocks)
    assert report.written == ["tests/test_ok.py"]
    assert sorted(r.path for r in report.refused) == [
        "../escape.py",
        "/tmp/x.py",
        "linked/test_x.py",
    ]
    assert not (tmp_path / "escape.py").exists()
    assert list(outside.iterdir()) == []
    assert sorted(os.listdir(work)) == ["linked", "tests"]
