"""File snapshots: the exact bytes of some paths, to detect changes and to put them back.

Used to prove an agent left the tests byte-identical, and to revert an agent's
attempt without touching anything else in the tree (no ``git reset`` over a
user's uncommitted work).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from tddforge.workspace.paths import confine

Snapshot = dict[str, bytes | None]  # None: the file did not exist


def snapshot(work_dir: Path, paths: Iterable[str]) -> Snapshot:
    """The bytes of each of ``paths`` (None for a missing file)."""
    taken: Snapshot = {}
    for rel in paths:
        target = work_dir / rel
        taken[rel] = target.read_bytes() if target.is_file() else None
    return taken


def changed(before: Mapping[str, bytes | None], after: Mapping[str, bytes | None]) -> list[str]:
    """Paths created, deleted or modified between two snapshots."""
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def restore(work_dir: Path, taken: Mapping[str, bytes | None]) -> None:
    """Put every path back as it was: rewrite its bytes, or delete a file that did not exist."""
    for rel, content in taken.items():
        target = confine(work_dir, rel)
        if content is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
