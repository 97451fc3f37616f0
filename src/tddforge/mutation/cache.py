"""The verdict cache: prior verdicts per module version, with the test fingerprints they were made with.

Keyed by (module content hash, interpreter, pytest arguments); inside, verdicts
are keyed by mutant id. The worker reuses a verdict only when it is provably
still right given which tests changed (see ``tddforge.target.reuse.reusable``), so a verdict
can never be stale: editing a test's body changes its fingerprint, and every
verdict that test took part in is re-run.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tddforge.target.protocol import BaselineRecord, PriorVerdict


def cache_key(module_source: str, python: str, pytest_args: list[str]) -> str:
    """The cache file's name for this module version and run setup."""
    digest = hashlib.sha256()
    for part in (module_source, python, json.dumps(pytest_args)):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()[:24]


@dataclass
class CacheEntry:
    """What one module version's last scoring left behind."""

    fingerprints: dict[str, str] = field(default_factory=dict)
    verdicts: dict[str, PriorVerdict] = field(default_factory=dict)
    # nodeid -> a baseline record (outcome, duration, lines) an unchanged test can reuse
    baseline: dict[str, BaselineRecord] = field(default_factory=dict)


class VerdictCache:
    """JSON files under ``<project>/.tddforge/mutation-cache/``."""

    def __init__(self, folder: Path):
        self.folder = folder

    def load(self, key: str) -> CacheEntry:
        """The entry for ``key``, or an empty one (also when the file is unreadable)."""
        path = self.folder / f"{key}.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return CacheEntry(
                dict(data["fingerprints"]), dict(data["verdicts"]), dict(data.get("baseline", {}))
            )
        except (OSError, ValueError, KeyError, TypeError):
            return CacheEntry()

    def save(self, key: str, entry: CacheEntry) -> None:
        """Write atomically, so a crash never leaves a half-written cache."""
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(
                {
                    "fingerprints": entry.fingerprints,
                    "verdicts": entry.verdicts,
                    "baseline": entry.baseline,
                },
                handle,
            )
        os.replace(tmp, self.folder / f"{key}.json")
