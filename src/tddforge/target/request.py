"""One scoring request: the host's config, the targets' sources as read now, where verdicts go."""

from __future__ import annotations

import tokenize
from dataclasses import dataclass

from .affinity import Words, line_words
from .journal import Journal
from .processes import Slots
from .protocol import MutantRecord, Replay, WorkerConfig
from .source import apply_mutant, line_offsets


def targets_of(config: WorkerConfig) -> list[str]:
    """Every target file of a request, ``target`` first."""
    return list(config.get("targets") or [config["target"]])


@dataclass(frozen=True)
class Module:
    """One target file's source, as read when the request began."""

    path: str
    source: str
    offsets: list[int]

    @classmethod
    def read(cls, path: str) -> Module:
        """The file at ``path``, now, as Python reads it (no byte order mark: the host's
        mutants are offsets into that text)."""
        with tokenize.open(path) as handle:
            source = handle.read()
        return cls(path, source, line_offsets(source))


@dataclass(frozen=True)
class Request:
    """What every phase of one request reads: the targets, how many children, the journal."""

    config: WorkerConfig
    targets: list[str]
    modules: dict[str, Module]
    workers: int
    journal: Journal
    slots: Slots | None = None  # shared by every pool of the request

    @classmethod
    def read(cls, config: WorkerConfig) -> Request:
        """The request ``config`` describes, with the targets' sources read now."""
        targets = targets_of(config)
        modules = {t: Module.read(t) for t in targets}
        workers = int(config.get("workers", 1))
        journal = Journal(config["results"])
        return cls(config, targets, modules, workers, journal, Slots(workers))

    @property
    def target(self) -> str:
        """The first target (a one-module request's only one)."""
        return self.targets[0]

    def target_of(self, m: MutantRecord) -> str:
        """The file ``m`` mutates."""
        return m.get("target") or self.targets[0]

    def module_of(self, m: MutantRecord) -> Module:
        """The source ``m`` was made from."""
        return self.modules[self.target_of(m)]

    def words(self, m: MutantRecord) -> Words:
        """The words of the lines ``m`` mutates (``affinity``)."""
        module = self.module_of(m)
        return line_words(module.source, module.offsets, m["line"], m["end_line"])

    @property
    def floor(self) -> float:
        """Seconds every child's CPU budget starts with."""
        return float(self.config.get("timeout_floor", 1.0))

    @property
    def factor(self) -> float:
        """How many times its tests' baseline time a child's CPU budget adds."""
        return float(self.config.get("timeout_factor", 5.0))

    def replays(self, target: str) -> list[Replay]:
        """The calls other files make into ``target`` while they are imported."""
        return replays_of(self.config, target)

    def mutated(self, m: MutantRecord) -> str:
        """The target's source with ``m`` applied (ValueError when it does not match)."""
        module = self.module_of(m)
        return apply_mutant(module.source, module.offsets, m)


def replays_of(config: WorkerConfig, target: str) -> list[Replay]:
    """The calls other files make into ``target`` while they are imported (``Replay``)."""
    return list(config.get("replays", {}).get(target, []))


def called(config: WorkerConfig, target: str) -> frozenset[str]:
    """The names of ``target``'s functions that other files call while they are imported."""
    return frozenset(r["name"] for r in replays_of(config, target))


def reached(m: MutantRecord) -> range:
    """The lines a test that ran ``m``'s code ran one of: its ``reach`` (an operator
    token's whole expression), else its own lines."""
    first, last = m.get("reach") or (m["line"], m["end_line"])
    return range(first, last + 1)
