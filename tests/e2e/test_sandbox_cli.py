"""The sandbox as a user meets it: ``tddforge sandbox-info``, the one notice, a forced backend."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tddforge.sandbox.backend import backend_works, choose_backend, drop_uid

from . import cover_samples as s
from .conftest import error_lines, run_cli

pytestmark = pytest.mark.e2e


def test_sandbox_info_measures_every_backend_and_names_the_one_in_use() -> None:
    done = run_cli("sandbox-info", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["backend"] == choose_backend()
    rows = {row["backend"]: row for row in data["backends"]}
    assert list(rows) == ["bwrap", "namespaces", "unshare", "none"]
    for name, row in rows.items():
        assert (row["holds"] is not None) == (row["problem"] is None), name
        assert row["mismatches"] == [], name
    assert rows["none"]["holds"]["no_network"] is False  # measured, not copied from the claims
    assert "read_only_root" in done.stderr and "weaker sandbox" not in done.stderr


def _weak_env() -> dict[str, str]:
    if not backend_works("unshare", drop_uid()):
        pytest.skip("the unshare backend cannot run here")
    return {"TDDFORGE_SANDBOX": "unshare"}


def test_a_run_under_a_weaker_backend_ends_with_exactly_one_notice(tmp_path: Path) -> None:
    project = s.numbers_project(tmp_path / "numbers")
    done = run_cli(
        "cover",
        str(project / "numbers_mod.py"),
        "--project",
        str(project),
        "--engine",
        "builtin",
        "--budget",
        "5",
        env=_weak_env(),
    )
    assert done.returncode in (0, 1), done.stderr
    notices = [line for line in done.stderr.splitlines() if "weaker sandbox backend" in line]
    assert len(notices) == 1 and "'unshare'" in notices[0] and "read_only_root" in notices[0]
    assert done.stderr.rstrip().splitlines()[-1] == notices[0]  # after the run's own lines
    assert not (project / ".tddforge" / "tmp").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.py"], "module not found"),
        (["bad.py"], "syntax error at line 1"),
    ],
)
def test_an_input_error_under_a_weaker_backend_is_still_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    project = s.numbers_project(tmp_path / "numbers")
    (project / "bad.py").write_text("def f(:\n")
    before = sorted(os.listdir(project))
    module, *rest = args
    done = run_cli(
        "cover",
        str(project / module),
        *rest,
        "--project",
        str(project),
        "--engine",
        "builtin",
        env=_weak_env(),
    )
    assert done.returncode == 2
    (line,) = error_lines(done.stderr)
    assert line.startswith("error:") and message in line
    assert sorted(os.listdir(project)) == before


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("docker", "TDDFORGE_SANDBOX='docker' is not a sandbox backend"),
        ("BWRAP", "sandbox backend 'bwrap' does not work on this machine: bwrap not installed"),
    ],
)
def test_a_backend_that_cannot_be_used_is_one_line_and_writes_nothing(
    tmp_path: Path, value: str, message: str
) -> None:
    if value == "BWRAP" and backend_works("bwrap", drop_uid()):
        pytest.skip("bubblewrap works here")
    project = s.numbers_project(tmp_path / "numbers")
    before = sorted(os.listdir(project))
    done = run_cli(
        "cover",
        str(project / "numbers_mod.py"),
        "--project",
        str(project),
        env={"TDDFORGE_SANDBOX": value},
    )
    assert done.returncode == 2
    (line,) = error_lines(done.stderr)
    assert line.startswith(f"error: {message}")
    assert sorted(os.listdir(project)) == before
