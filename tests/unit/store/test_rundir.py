"""Run directories: names stay inside the run dir, ids are one plain path component."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tddforge.errors import InputError, PathRefused
from tddforge.orchestration.kata_state import load_session
from tddforge.store.rundir import RunDir


def test_files_are_written_under_the_run_dir_with_subdirectories(tmp_path: Path) -> None:
    run = RunDir.create(tmp_path, "red")
    target = run.write_text("replaced/tests/test_a.py", "A = 1\n")
    assert target == run.path.resolve() / "replaced" / "tests" / "test_a.py"
    assert run.write_bytes("raw.bin", b"\x00\xff").read_bytes() == b"\x00\xff"


@pytest.mark.parametrize("name", ["../escape.txt", "replaced/tests/../../../x.py", "/tmp/x", ""])
def test_a_name_that_leaves_the_run_dir_is_refused(tmp_path: Path, name: str) -> None:
    run = RunDir.create(tmp_path, "red")
    with pytest.raises(PathRefused):
        run.write_text(name, "x")
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == []


@pytest.mark.parametrize("run_id", ["../../outside", "a/b", "", ".hidden", "x\x00y", "..", "/abs"])
def test_a_run_id_that_is_not_one_plain_component_is_refused(tmp_path: Path, run_id: str) -> None:
    with pytest.raises(InputError, match="not a run id"):
        RunDir.at(tmp_path, run_id)


def test_a_session_file_naming_a_run_outside_the_project_cannot_be_resumed(tmp_path: Path) -> None:
    session = tmp_path / "session.json"
    data = {
        "kata_path": "KATA.md",
        "work_dir": str(tmp_path),
        "run_id": "../../../tmp/x",
        "max_cycles": 3,
    }
    session.write_text(json.dumps(data))
    with pytest.raises(InputError, match="not a valid session file"):
        load_session(session)
    session.write_text(json.dumps({**data, "run_id": "20261125T000000Z-kata-abc123"}))
    assert load_session(session).run_id == "20261125T000000Z-kata-abc123"
