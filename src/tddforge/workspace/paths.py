"""Confined writes: a reply's files are written only inside the work dir, and can be undone.

``write_blocks`` takes blocks whose paths already passed the gate
(:class:`~tddforge.workspace.confined.ConfinedPath`), keeps the bytes each
path held before, and returns a ``WriteReport`` whose ``undo()`` puts back
exactly what it changed: files rewritten to their old bytes, new files and
the directories made for them removed. Agents and stages revert through that
report, never through snapshots of their own.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tddforge.errors import PathRefused
from tddforge.workspace.confined import ConfinedPath, confine
from tddforge.workspace.fileblocks import FileBlock

__all__ = ["WriteReport", "confine", "write_blocks", "write_file"]


@dataclass
class WriteReport:
    """What a batch of writes did: the paths written, the refusals, and how to undo it."""

    written: list[str] = field(default_factory=list)
    refused: list[PathRefused] = field(default_factory=list)
    _before: dict[ConfinedPath, bytes | None] = field(default_factory=dict, repr=False)
    _made_dirs: list[Path] = field(default_factory=list, repr=False)

    @property
    def replaced(self) -> dict[str, bytes]:
        """Files that existed and now hold other bytes: their previous content."""
        found = {}
        for path, before in self._before.items():
            if before is not None and path.rel in self.written:
                with contextlib.suppress(OSError, PathRefused):
                    if path.target().read_bytes() != before:
                        found[path.rel] = before
        return found

    def undo(self) -> None:
        """Put every written path back as it was, and remove the directories made for them."""
        for path, before in reversed(list(self._before.items())):
            try:
                target = path.target()
            except PathRefused:
                continue  # a symlink appeared there since: never follow it
            if before is None:
                target.unlink(missing_ok=True)
            else:
                atomic_write(target, before)
        for made in reversed(self._made_dirs):
            with contextlib.suppress(OSError):  # not empty: something else lives there now
                made.rmdir()
        self._before.clear()
        self._made_dirs.clear()
        self.written.clear()


def write_file(work_dir: Path, relative: str, content: str) -> Path:
    """Write ``content`` at ``relative`` inside ``work_dir`` atomically; raise PathRefused."""
    target = confine(work_dir, relative)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, content.encode("utf-8"))
    return target


def write_blocks(blocks: Iterable[FileBlock]) -> WriteReport:
    """Write every block; report the paths refused on the way (a symlink made since the parse,
    a directory where the file should be); ``undo()`` reverts the rest."""
    report = WriteReport()
    for block in blocks:
        try:
            _write_block(block, report)
        except PathRefused as refused:
            report.refused.append(refused)
        except OSError as exc:
            report.refused.append(PathRefused(block.path.rel, exc.strerror or str(exc)))
        else:
            if block.path.rel not in report.written:
                report.written.append(block.path.rel)
    return report


def _write_block(block: FileBlock, report: WriteReport) -> None:
    target = block.path.target()
    if block.path not in report._before:
        report._before[block.path] = target.read_bytes() if target.is_file() else None
    missing = [d for d in (target.parent, *target.parent.parents) if not d.exists()]
    target.parent.mkdir(parents=True, exist_ok=True)
    report._made_dirs += reversed(missing)
    atomic_write(target, block.content.encode("utf-8"))


def atomic_write(target: Path, data: bytes) -> None:
    """Write ``data`` to a new file beside ``target``, then give it ``target``'s name: a
    reader never sees half of it, nor a crash leave half of it."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tddforge-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, target)  # replaces a symlink entry itself, never its target
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
