"""One scoring request: the host's config, the target's source as read now, where verdicts go."""

from __future__ import annotations

from dataclasses import dataclass

from .journal import Journal
from .protocol import MutantRecord, WorkerConfig
from .source import apply_mutant, line_offsets


@dataclass(frozen=True)
class Request:
    """What every phase of one request reads: the target, how many children, the journal."""

    config: WorkerConfig
    target: str
    source: str
    offsets: list[int]
    workers: int
    journal: Journal

    @classmethod
    def read(cls, config: WorkerConfig) -> Request:
        """The request ``config`` describes, with the target's source read now."""
        target = config["target"]
        with open(target, encoding="utf-8") as handle:
            source = handle.read()
        workers = int(config.get("workers", 1))
        return cls(
            config, target, source, line_offsets(source), workers, Journal(config["results"])
        )

    @property
    def floor(self) -> float:
        """Seconds every child's CPU budget starts with."""
        return float(self.config.get("timeout_floor", 2.0))

    @property
    def factor(self) -> float:
        """How many times its tests' baseline time a child's CPU budget adds."""
        return float(self.config.get("timeout_factor", 5.0))

    def mutated(self, m: MutantRecord) -> str:
        """The target's source with ``m`` applied (ValueError when it does not match)."""
        return apply_mutant(self.source, self.offsets, m)
