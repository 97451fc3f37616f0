"""Git through its CLI, isolated from the machine's configuration.

Every call disables hooks (generated code can write ``.git/hooks``; they must
never run), ignores the global and system config, never signs, and commits
with a fixed author so histories are reproducible.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tddforge.errors import GitError

AUTHOR_NAME = "tddforge"
AUTHOR_EMAIL = "tddforge@localhost"

_SETTINGS = (
    "core.hooksPath=/dev/null",
    "commit.gpgsign=false",
    "tag.gpgsign=false",
    "init.defaultBranch=main",
    "core.autocrlf=false",
    "safe.directory=*",
)
_ISOLATION = tuple(arg for setting in _SETTINGS for arg in ("-c", setting))


def _git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME=AUTHOR_NAME,
        GIT_AUTHOR_EMAIL=AUTHOR_EMAIL,
        GIT_COMMITTER_NAME=AUTHOR_NAME,
        GIT_COMMITTER_EMAIL=AUTHOR_EMAIL,
        GIT_TERMINAL_PROMPT="0",
    )
    return env


@dataclass(frozen=True)
class Commit:
    """One commit as shown by ``git log``."""

    sha: str
    subject: str


class Git:
    """A git work tree driven through the ``git`` command."""

    def __init__(self, work_dir: Path):
        self.work_dir = work_dir

    def run(self, *args: str, check: bool = True) -> str:
        """Run ``git ARGS`` in the work dir and return its stdout."""
        try:
            proc = subprocess.run(
                ["git", *_ISOLATION, *args],
                cwd=self.work_dir,
                env=_git_env(),
                capture_output=True,
                text=True,
                check=False,
            )
        except FileNotFoundError as exc:
            raise GitError("git is not installed or not on PATH") from exc
        if check and proc.returncode != 0:
            detail = (proc.stderr or proc.stdout).strip().splitlines()
            raise GitError(f"git {args[0]} failed: {detail[-1] if detail else proc.returncode}")
        return proc.stdout

    def is_repo(self) -> bool:
        """True when the work dir is the top of a git work tree."""
        if not (self.work_dir / ".git").exists():
            return False
        top = self.run("rev-parse", "--show-toplevel", check=False).strip()
        return bool(top) and Path(top).resolve() == self.work_dir.resolve()

    def init(self) -> None:
        """Create the repository if it does not exist."""
        if not self.is_repo():
            self.run("init", "-q")

    def add(self, paths: Sequence[str] = ()) -> None:
        """Stage ``paths`` (everything when empty)."""
        self.run("add", "-A", "--", *(paths or ["."]))

    def commit(self, message: str, *, allow_empty: bool = False) -> str:
        """Commit what is staged and return the new SHA."""
        extra = ["--allow-empty"] if allow_empty else []
        self.run("commit", "-q", "--no-verify", "-m", message, *extra)
        return self.head()

    def head(self) -> str:
        """The SHA of HEAD."""
        return self.run("rev-parse", "HEAD").strip()

    def has_commits(self) -> bool:
        """True once HEAD points at a commit."""
        return bool(self.run("rev-parse", "--verify", "-q", "HEAD", check=False).strip())

    def log(self, limit: int = 5) -> list[Commit]:
        """The last ``limit`` commits, newest first."""
        if not self.has_commits():
            return []
        out = self.run("log", f"-{limit}", "--format=%H%x1f%s")
        return [Commit(*line.split("\x1f", 1)) for line in out.splitlines() if line]

    def status(self) -> list[str]:
        """``git status --porcelain`` lines (untracked files included)."""
        return self.run("status", "--porcelain", "--untracked-files=all").splitlines()

    def reset_hard(self, ref: str = "HEAD") -> None:
        """Drop every change in the tree and index, including untracked files."""
        self.run("reset", "-q", "--hard", ref)
        self.run("clean", "-q", "-fd")

    def show(self, ref: str, path: str) -> str:
        """The content of ``path`` at ``ref``."""
        return self.run("show", f"{ref}:{path}")


#: The longest commit subject: git tools and later prompts cut what is longer.
SUBJECT_LIMIT = 72


def commit_message(subject: str, body: str = "") -> str:
    """A commit message whose subject line fits ``SUBJECT_LIMIT``; the rest goes in the body.

    A long subject is cut at the last word that fits (with "..."), and the whole of it
    opens the body, so nothing is lost.
    """
    subject = " ".join(subject.split())
    parts = []
    if len(subject) > SUBJECT_LIMIT:
        cut = subject[: SUBJECT_LIMIT - 3].rsplit(" ", 1)[0].rstrip(" :,;")
        parts += [cut + "...", subject]
    else:
        parts.append(subject)
    if body.strip():
        parts.append(body.strip())
    return "\n\n".join(parts)
