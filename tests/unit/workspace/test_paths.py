from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tddforge.errors import PathRefused
from tddforge.workspace import ConfinedPath, FileBlock, confine, write_blocks, write_file


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
        (".", "directory"),
        ("a\x00b.py", "NUL"),
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


def _blocks(work: Path, files: dict[str, str]) -> list[FileBlock]:
    return [FileBlock(ConfinedPath.of(work, path), text) for path, text in files.items()]


def test_write_blocks_writes_and_undo_puts_back_exactly_what_it_changed(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "tests").mkdir(parents=True)
    (work / "tests" / "test_old.py").write_bytes(b"OLD = 1\r\n")  # bytes kept as they were
    (work / "keep.py").write_text("untouched\n")
    blocks = _blocks(
        work,
        {
            "tests/test_old.py": "NEW = 2\n",
            "pkg/sub/new.py": "X = 1\n",
            "./tests/test_old.py": "AGAIN = 3\n",  # the same file again: undo restores the first bytes
        },
    )
    report = write_blocks(blocks)
    assert report.written == ["tests/test_old.py", "pkg/sub/new.py"]
    assert report.replaced == {"tests/test_old.py": b"OLD = 1\r\n"}
    report.undo()
    assert (work / "tests" / "test_old.py").read_bytes() == b"OLD = 1\r\n"
    assert sorted(os.listdir(work)) == ["keep.py", "tests"]  # pkg/sub/ made for new.py: gone
    assert (work / "keep.py").read_text() == "untouched\n"


def test_undo_keeps_a_directory_that_something_else_now_uses(tmp_path: Path) -> None:
    report = write_blocks(_blocks(tmp_path, {"pkg/a.py": "A = 1\n"}))
    (tmp_path / "pkg" / "other.py").write_text("mine\n")
    report.undo()
    assert sorted(os.listdir(tmp_path / "pkg")) == ["other.py"]


def test_a_symlink_made_after_the_parse_is_refused_at_write_time(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir()
    outside.mkdir()
    blocks = _blocks(work, {"tests/test_x.py": "bad\n", "tests/ok.py": "ok\n"})
    (work / "tests").symlink_to(outside, target_is_directory=True)  # a run made it meanwhile
    report = write_blocks(blocks)
    assert report.written == []
    assert [r.path for r in report.refused] == ["tests/test_x.py", "tests/ok.py"]
    assert list(outside.iterdir()) == []


def test_a_path_under_a_file_is_refused_not_raised(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("X = 1\n")
    blocks = _blocks(tmp_path, {"mod.py/inner.py": "Y = 2\n", "ok.py": "Z = 3\n"})
    report = write_blocks(blocks)
    assert report.written == ["ok.py"]
    assert [r.path for r in report.refused] == ["mod.py/inner.py"]
