"""The one gate for paths a model wrote: ``ConfinedPath``.

A path from a reply becomes a ``ConfinedPath`` where the reply is parsed,
or it is refused there (``PathRefused``) and never reaches other code. A
``ConfinedPath`` is relative, normalised (``tests/./a.py`` → ``tests/a.py``),
and inside its work dir: it is refused when it is empty, absolute, starts
with ``~``, contains ``..``, a backslash or a NUL byte, names a directory,
targets ``.git/``, or resolves outside the work dir through a symlink (in
any parent, or as the file itself). The file-system part is checked again
by ``target()``, every time the path is used, because a run in between may
have created a symlink.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from tddforge.errors import PathRefused


@dataclass(frozen=True, order=True)
class ConfinedPath:
    """A model's path, proven relative to and inside ``root``; ``rel`` is its normalised form."""

    rel: str
    root: Path

    @classmethod
    def of(cls, root: Path, raw: str) -> ConfinedPath:
        """Check ``raw`` against ``root``; raise ``PathRefused`` when it is not confined."""
        _check_shape(raw)
        path = cls(PurePosixPath(raw).as_posix(), root.resolve())
        path.target()
        return path

    def target(self) -> Path:
        """The absolute path, after checking again that no symlink leads it out."""
        target = self.root.joinpath(*PurePosixPath(self.rel).parts)
        if target.is_symlink():
            raise PathRefused(self.rel, "the file is a symlink")
        resolved = target.resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise PathRefused(self.rel, "resolves outside the work dir through a symlink")
        if ".git" in resolved.relative_to(self.root).parts:
            raise PathRefused(self.rel, "targets .git/")
        return target

    @property
    def parts(self) -> tuple[str, ...]:
        """The path's components."""
        return PurePosixPath(self.rel).parts

    def __str__(self) -> str:
        return self.rel


def confine(work_dir: Path, relative: str) -> Path:
    """The absolute path for ``relative`` inside ``work_dir``, or raise ``PathRefused``."""
    return ConfinedPath.of(work_dir, relative).target()


def _check_shape(relative: str) -> None:
    if not relative or not relative.strip():
        raise PathRefused(relative, "empty path")
    if "\x00" in relative:
        raise PathRefused(relative, "contains a NUL byte")
    if "\\" in relative:
        raise PathRefused(relative, "contains a backslash; use forward slashes")
    if relative.startswith(("/", "~")) or PurePosixPath(relative).is_absolute():
        raise PathRefused(relative, "is absolute")
    parts = PurePosixPath(relative).parts
    if ".." in parts:
        raise PathRefused(relative, "contains '..'")
    if ".git" in parts:
        raise PathRefused(relative, "targets .git/")
    if relative.endswith("/") or not parts or parts == (".",):
        raise PathRefused(relative, "names a directory, not a file")
