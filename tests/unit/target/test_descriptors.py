"""A call that opens a file descriptor it did not make (a number given for a path) is
noticed; one that opens a descriptor it made itself is not."""

from __future__ import annotations

import builtins
import contextlib
import io
import os
from pathlib import Path

import pytest

from tddforge.target import descriptors
from tddforge.target.descriptors import descriptors_borrowed


@pytest.fixture
def wrapped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builtins, "open", builtins.open)  # put back after the test
    monkeypatch.setattr(io, "open", io.open)
    descriptors.install_descriptors()


@pytest.mark.usefixtures("wrapped")
def test_a_descriptor_the_call_did_not_make_is_noticed(tmp_path: Path) -> None:
    inherited = os.open(tmp_path / "kept.txt", os.O_CREAT | os.O_RDWR)
    closed = os.open(tmp_path / "gone.txt", os.O_CREAT | os.O_RDWR)
    os.close(closed)
    found = []

    def read(descriptor: int) -> None:
        with open(descriptor, closefd=False) as handle:
            handle.read()

    def made_here() -> None:
        own = os.open(tmp_path / "own.txt", os.O_CREAT | os.O_RDWR)
        with os.fdopen(own, "w") as handle:  # os.fdopen goes through open
            handle.write("x")

    for act in (
        lambda: read(inherited),
        lambda: read(closed),  # nothing there: EBADF here, pytest's capture elsewhere
        made_here,
        lambda: Path(tmp_path / "kept.txt").read_text(),
    ):
        with descriptors_borrowed() as lent, contextlib.suppress(OSError):
            act()
        found.append(lent[0])
    os.close(inherited)
    assert found == [True, True, False, False]
