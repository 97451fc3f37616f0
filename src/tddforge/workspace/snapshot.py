"""File snapshots: the exact bytes of some of the work dir's own files, to detect changes.

Used to prove an agent left the tests byte-identical. The paths come from
listing the work dir, never from a model, and are still confined: a path that
is a symlink is recorded as its link text, never followed. Reverting an
attempt is the write report's job (``WriteReport.undo``), not this module's.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from tddforge.errors import PathRefused
from tddforge.workspace.confined import confine

Snapshot = dict[str, bytes | None]  # None: the file did not exist


def snapshot(work_dir: Path, paths: Iterable[str]) -> Snapshot:
    """The bytes of each of ``paths`` (None for a missing file)."""
    taken: Snapshot = {}
    for rel in paths:
        try:
            target = confine(work_dir, rel)
        except PathRefused:
            link = work_dir / rel
            taken[rel] = b"symlink:" + os.fsencode(os.readlink(link)) if link.is_symlink() else None
            continue
        taken[rel] = target.read_bytes() if target.is_file() else None
    return taken


def changed(before: Mapping[str, bytes | None], after: Mapping[str, bytes | None]) -> list[str]:
    """Paths created, deleted or modified between two snapshots."""
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
