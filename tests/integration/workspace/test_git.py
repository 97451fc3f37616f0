from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.errors import GitError
from tddforge.workspace import Git

pytestmark = pytest.mark.integration


def test_commit_uses_fixed_author_and_ignores_global_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Someone Else\n\temail = else@example.invalid\n"
    )
    monkeypatch.setenv("HOME", str(home))
    repo = tmp_path / "repo"
    repo.mkdir()
    git = Git(repo)
    git.init()
    (repo / "a.py").write_text("A = 1\n")
    git.add()
    sha = git.commit("first")
    assert git.head() == sha
    author = git.run("log", "-1", "--format=%an <%ae>").strip()
    assert author == "tddforge <tddforge@localhost>"
    assert [c.subject for c in git.log()] == ["first"]


def test_hooks_never_run(tmp_path: Path) -> None:
    git = Git(tmp_path)
    git.init()
    marker = tmp_path / "hook-ran"
    hook = tmp_path / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
    hook.chmod(0o755)
    (tmp_path / "a.py").write_text("A = 1\n")
    git.add()
    git.commit("with a hostile hook")
    assert not marker.exists()


def test_reset_hard_drops_untracked_files(tmp_path: Path) -> None:
    git = Git(tmp_path)
    git.init()
    (tmp_path / "a.py").write_text("A = 1\n")
    git.add()
    git.commit("first")
    (tmp_path / "a.py").write_text("A = 2\n")
    (tmp_path / "new.py").write_text("N = 1\n")
    git.reset_hard()
    assert (tmp_path / "a.py").read_text() == "A = 1\n"
    assert not (tmp_path / "new.py").exists()
    assert git.status() == []


def test_failure_is_a_git_error_with_one_line(tmp_path: Path) -> None:
    git = Git(tmp_path)
    git.init()
    with pytest.raises(GitError, match="git show failed"):
        git.show("HEAD", "nope.py")
