"""A call that writes where it runs is noticed, and leaves nothing there; a call run in
a directory of its own finds it empty and leaves nothing behind."""

from __future__ import annotations

import os
import pathlib
import subprocess
from pathlib import Path

import pytest

from tddforge.target import workdir
from tddforge.target.workdir import own_directory, writes_noticed


@pytest.fixture
def wrapped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The writing functions wrapped as the runner wraps them, put back after the test."""
    import builtins
    import io

    monkeypatch.setattr(builtins, "open", builtins.open)
    monkeypatch.setattr(io, "open", io.open)
    for name in ("open", *workdir._PATH_WRITERS):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, getattr(os, name))
    accessor = getattr(pathlib, "_NormalAccessor", None)  # before Python 3.11
    for name, value in list(vars(accessor).items()) if accessor is not None else []:
        if not name.startswith("__"):
            monkeypatch.setattr(accessor, name, value)
    monkeypatch.setattr(workdir, "_baseline", [None])
    workdir.install_writes()


@pytest.mark.parametrize(
    ("act", "noticed", "left"),
    [
        (lambda: Path("made.lock").touch(), True, ["kept.txt", "sub"]),
        (lambda: Path("sub", "inner.log").write_text("x"), True, ["kept.txt", "sub"]),
        (lambda: Path("kept.txt").write_text("changed"), True, ["kept.txt", "sub"]),
        (lambda: Path("kept.txt").unlink(), True, ["sub"]),
        (lambda: Path("made").mkdir(), True, ["kept.txt", "sub"]),
        (lambda: Path("kept.txt").read_text(), False, ["kept.txt", "sub"]),
        # a write the wrappers cannot see (a C library's, another program's): removed all the same
        (lambda: subprocess.run(["touch", "made.c"], check=True), False, ["kept.txt", "sub"]),
    ],
    ids=[
        "creates",
        "writes-in-a-subdirectory",
        "rewrites",
        "removes",
        "makes-a-dir",
        "reads",
        "unseen",
    ],
)
@pytest.mark.usefixtures("wrapped")
def test_what_a_call_writes_where_it_runs_is_noticed_and_what_it_made_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, act: object, noticed: bool, left: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kept.txt").write_text("kept")
    (tmp_path / "sub").mkdir()
    workdir.set_baseline(["kept.txt", "sub"])  # the project's, never removed
    with writes_noticed() as wrote:
        act()  # type: ignore[operator]
    assert wrote == [noticed]
    assert sorted(p.name for p in tmp_path.iterdir()) == left


def test_a_call_in_a_directory_of_its_own_finds_it_empty_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kept.txt").write_text("kept")
    with own_directory() as wrote:
        place = Path.cwd()
        assert list(place.iterdir()) == []
        Path("made.lock").touch()
    assert wrote == [False]
    assert Path.cwd() == tmp_path
    assert not place.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["kept.txt"]


@pytest.mark.usefixtures("wrapped")
def test_a_write_undone_within_the_call_is_noticed_through_the_wrapped_functions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other run, side by side in the same directory, may create and remove a lock
    between this run's two listings: only the functions it called can tell."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kept.txt").write_text("kept")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"

    def lock_and_unlock() -> None:
        os.close(os.open("a.lock", os.O_CREAT | os.O_WRONLY))
        os.remove("a.lock")

    def elsewhere() -> None:
        Path(outside).write_text("x")  # pathlib goes through io.open
        Path(outside).unlink()

    found = []
    for act in (
        lock_and_unlock,
        lambda: Path("kept.txt").read_text(),
        lambda: Path(tmp_path / "made.txt").write_text("x"),
        elsewhere,
        lambda: os.makedirs("a/b") or os.rmdir("a/b") or os.rmdir("a"),
    ):
        with writes_noticed() as wrote:
            act()
        found.append(wrote[0])
    assert found == [True, False, True, False, True]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.txt"]
