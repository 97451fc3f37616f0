"""Confined writes: a path from an LLM reply is written only inside the work dir.

A path is refused, and never written, when it is absolute, contains ``..``,
starts with ``~``, uses backslashes, targets ``.git/``, or resolves outside the
work dir through a symlink (in any parent, or as the file itself).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tddforge.errors import PathRefused
from tddforge.workspace.fileblocks import FileBlock


def confine(work_dir: Path, relative: str) -> Path:
    """Return the absolute path for ``relative`` inside ``work_dir``, or raise PathRefused."""
    _check_shape(relative)
    root = work_dir.resolve()
    target = root.joinpath(*PurePosixPath(relative).parts)
    if target.is_symlink():
        raise PathRefused(relative, "the file is a symlink")
    resolved = target.resolve()
    if resolved != root and root not in resolved.parents:
        raise PathRefused(relative, "resolves outside the work dir through a symlink")
    if ".git" in resolved.relative_to(root).parts:
        raise PathRefused(relative, "targets .git/")
    return target


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
    if relative.endswith("/"):
        raise PathRefused(relative, "names a directory, not a file")


@dataclass
class WriteReport:
    """What a batch of writes did: relative paths written, and the refusals."""

    written: list[str] = field(default_factory=list)
    refused: list[PathRefused] = field(default_factory=list)


def write_file(work_dir: Path, relative: str, content: str) -> Path:
    """Write ``content`` at ``relative`` inside ``work_dir`` atomically; raise PathRefused."""
    target = confine(work_dir, relative)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tddforge-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(content)
        os.replace(tmp, target)  # replaces a symlink entry itself, never its target
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def write_blocks(work_dir: Path, blocks: Iterable[FileBlock]) -> WriteReport:
    """Write every block that is confined to ``work_dir``; report the others."""
    report = WriteReport()
    for block in blocks:
        try:
            write_file(work_dir, block.path, block.content)
        except PathRefused as refused:
            report.refused.append(refused)
        else:
            report.written.append(PurePosixPath(block.path).as_posix())
    return report
