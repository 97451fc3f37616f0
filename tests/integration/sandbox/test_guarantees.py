"""Every backend this machine can run gives exactly the guarantees tddforge claims for it.

The probes are the ones ``tddforge sandbox-info`` runs; each one can fail (``none``
shows it: it reaches the network, writes outside, sees the host's processes).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tddforge.errors import SandboxError
from tddforge.sandbox import BACKENDS, Limits, Sandbox
from tddforge.sandbox.backend import backend_problem, detect_backend, drop_uid
from tddforge.sandbox.guarantees import GUARANTEES, claimed, measure

pytestmark = pytest.mark.integration


def _available(name: str) -> object:
    problem = backend_problem(name, drop_uid())
    return pytest.param(name, marks=pytest.mark.skipif(problem is not None, reason=str(problem)))


ALL = [_available(name) for name in BACKENDS]


@pytest.mark.parametrize("backend", ALL)
def test_each_backend_gives_exactly_what_it_claims(backend: str) -> None:
    measured = measure(backend)
    assert measured.holds is not None
    assert set(measured.holds) == set(GUARANTEES)
    held = {name for name, holds in measured.holds.items() if holds}
    assert held == claimed(backend, drop_uid())


def test_the_weakest_backend_shows_that_each_probe_can_fail() -> None:
    holds = measure("none").holds
    assert holds is not None
    assert not holds["no_network"] and not holds["read_only_root"]
    assert not holds["private_pids"] and not holds["no_orphans"]


@pytest.mark.parametrize("backend", ALL)
def test_scratch_is_outside_the_work_dir_writable_while_open_and_removed(
    backend: str, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    box = Sandbox(work, Limits(wall_seconds=30), backend=backend)
    with box.scratch() as first, box.scratch() as second:
        assert work not in first.parents and first != second
        code = f"open({str(first / 'a')!r}, 'w').write('1'); open({str(second / 'b')!r}, 'w').write('2')"
        done = box.run([sys.executable, "-c", code])
        assert done.returncode == 0, done.stderr
        assert (first / "a").read_text() == "1" and (second / "b").read_text() == "2"
    assert not first.exists() and not second.exists()
    assert list(work.iterdir()) == []


@pytest.mark.parametrize("backend", [b for b in ALL if b.values[0] in ("bwrap", "namespaces")])
def test_a_closed_scratch_is_not_writable_by_later_runs(backend: str, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    box = Sandbox(work, Limits(wall_seconds=30), backend=backend)
    with box.scratch() as gone:
        pass
    gone.mkdir()  # the same path, now outside any scratch the sandbox knows
    try:
        box.run([sys.executable, "-c", f"open({str(gone / 'x')!r}, 'w').write('1')"])
        assert not (gone / "x").exists()
    finally:
        (gone / "x").unlink(missing_ok=True)
        gone.rmdir()


@pytest.mark.parametrize("backend", ALL)
def test_a_scratch_another_thread_removes_meanwhile_does_not_fail_a_run(
    backend: str, tmp_path: Path
) -> None:
    # a run is given every open scratch; one closing (removed) while another thread's run
    # starts made its mount fail: "mount /tmp/tddforge-run-...: No such file or directory",
    # and ``cover`` stopped with "pytest produced no results" (found on inflection)
    work = tmp_path / "work"
    work.mkdir()
    box = Sandbox(work, Limits(wall_seconds=30), backend=backend)
    with box.scratch() as mine, box.scratch() as closing:
        closing.rmdir()  # as its block's end does, between the run's command and its mounts
        code = f"open({str(mine / 'a')!r}, 'w').write('1')"
        done = box.run([sys.executable, "-c", code])
        assert done.returncode == 0, done.stderr
        assert (mine / "a").read_text() == "1"
        closing.mkdir()  # for the block's own removal


@pytest.mark.parametrize("backend", ALL)
def test_home_and_tmpdir_leave_nothing_behind(backend: str, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    box = Sandbox(work, Limits(wall_seconds=30), backend=backend)
    code = "import os, tempfile; print(os.environ['HOME'], tempfile.gettempdir())"
    home, tmp = box.run([sys.executable, "-c", code]).stdout.split()
    assert home == tmp and not Path(home).is_relative_to(work)
    private = box.private_home
    box.close()
    assert private is None or not private.exists()
    assert list(work.iterdir()) == []


def test_a_backend_named_in_the_environment_is_used_or_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TDDFORGE_SANDBOX", "none")
    assert Sandbox(tmp_path, Limits()).backend == "none"
    monkeypatch.setenv("TDDFORGE_SANDBOX", "auto")
    assert Sandbox(tmp_path, Limits()).backend == detect_backend()
    monkeypatch.setenv("TDDFORGE_SANDBOX", "docker")
    with pytest.raises(SandboxError, match="not a sandbox backend"):
        Sandbox(tmp_path, Limits())
