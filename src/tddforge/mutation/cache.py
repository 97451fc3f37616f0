"""The verdict cache: what the last scoring of a set of modules left, and what it still proves.

One JSON file per (interpreter, pytest arguments, modules mutated). Inside:
each test's fingerprint, a hash of the project's other Python files, each
test's baseline record (outcome, duration, lines per module), and per module
its text's hash, its *import shape* (``shapes``) and its verdicts by mutant id.

A verdict is reused only when ``tddforge.target.reuse.reusable`` proves it
still right from which tests are *unchanged*, and ``unchanged_tests`` says
which are: a test whose fingerprint is the same, none of whose modules changed
since it ran. A module edited only inside function bodies that did not run at
import changes the tests that ran its lines; an edit anywhere else (what runs
at import, or any other Python file of the project) changes every test. An
edited module's own verdicts are never reused.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tddforge.mutation.shapes import import_shape
from tddforge.target.protocol import BaselineRecord, PriorVerdict
from tddforge.target.reuse import test_keys


def cache_key(python: str, pytest_args: list[str], modules: Iterable[str]) -> str:
    """The cache file's name for this run setup and set of modules."""
    digest = hashlib.sha256()
    for part in (python, json.dumps(pytest_args), json.dumps(sorted(modules))):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()[:24]


def text_hash(text: str) -> str:
    """A module text's hash."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


@dataclass
class ModuleEntry:
    """One module as it was scored: its text's hash, its import shape, its verdicts."""

    source: str
    shape: str
    import_run: list[str]  # the functions that ran at import, part of the shape
    verdicts: dict[str, PriorVerdict] = field(default_factory=dict)


@dataclass
class CacheEntry:
    """What the last scoring left behind."""

    fingerprints: dict[str, str] = field(default_factory=dict)
    modules: dict[str, ModuleEntry] = field(default_factory=dict)  # by relative path
    # nodeid -> a baseline record (lines keyed by relative path) an unchanged test can reuse
    baseline: dict[str, BaselineRecord] = field(default_factory=dict)
    others: str = ""

    def verdicts_for(self, rel: str, source: str) -> dict[str, PriorVerdict]:
        """The module's cached verdicts, if its text is the one they were made from."""
        entry = self.modules.get(rel)
        return entry.verdicts if entry is not None and entry.source == text_hash(source) else {}


def unchanged_tests(
    prior: CacheEntry, prints: dict[str, str], sources: dict[str, str], others: str
) -> list[str]:
    """The tests (fingerprint keys) provably unchanged since ``prior``: same fingerprint, and
    no module they ran edited since (an edit to what runs at import, or to another of the
    project's Python files, changes them all)."""
    if prior.others != others:
        return []
    touched: set[str] = set()
    for rel, entry in prior.modules.items():
        text = sources.get(rel)
        if text is None or text_hash(text) == entry.source:
            continue
        if import_shape(text, set(entry.import_run)) != entry.shape:
            return []
        touched.add(rel)
    ran_touched = [n for n, r in prior.baseline.items() if touched.intersection(r["lines"])]
    changed = {key for n in ran_touched for key in test_keys(n)}
    same = [n for n, digest in prints.items() if prior.fingerprints.get(n) == digest]
    return sorted(n for n in same if n not in changed)


class VerdictCache:
    """JSON files under ``<project>/.tddforge/mutation-cache/``."""

    def __init__(self, folder: Path):
        self.folder = folder

    def load(self, key: str) -> CacheEntry:
        """The entry for ``key``, or an empty one (also when the file is unreadable)."""
        path = self.folder / f"{key}.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            modules = {rel: ModuleEntry(**entry) for rel, entry in data["modules"].items()}
            return CacheEntry(
                dict(data["fingerprints"]), modules, dict(data["baseline"]), str(data["others"])
            )
        except (OSError, ValueError, KeyError, TypeError):
            return CacheEntry()

    def save(self, key: str, entry: CacheEntry) -> None:
        """Write atomically, so a crash never leaves a half-written cache."""
        self.folder.mkdir(parents=True, exist_ok=True)
        data: dict[str, Any] = {
            "fingerprints": entry.fingerprints,
            "modules": {rel: vars(module) for rel, module in entry.modules.items()},
            "baseline": entry.baseline,
            "others": entry.others,
        }
        fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.replace(tmp, self.folder / f"{key}.json")
