"""The cover loop's writer contract: what a test-suite writer is given, and what it returns.

``TestSuiteGenerator`` is what ``tddforge cover`` needs from a writer: a first
suite (the Generator, attempt 0) and a revised one given the critique's
instruction block (the Enhancer, attempts 1+). Two writers implement it: the
LLM one (``agents.cover.LLMSuiteGenerator``) and the builtin offline one
(``builtin.generator.BuiltinSuiteGenerator``). It lives here, below both, so
that neither imports the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from tddforge.mutation.mutant import Mutant


@dataclass(frozen=True)
class CoverTarget:
    """The module under test, as the writers see it."""

    project: Path
    module_rel: str  # path relative to the project, POSIX
    import_name: str
    source: str
    framework: str  # pytest | unittest | django
    test_path: str  # where the suite is written, relative to the project
    repo: str
    version: str


@dataclass(frozen=True)
class EquivalenceClaim:
    """A writer's claim that a mutant cannot be told apart from the module (never trusted:
    recorded for review, the mutant still counts as a survivor)."""

    mutant_id: str
    reason: str


@dataclass(frozen=True)
class GeneratedSuite:
    """A test module as a writer produced it, with the signals about it."""

    code: str
    raw: str
    entropy: float | None = None  # mean token entropy of the reply, when logprobs were collected
    cost: float = 0.0
    prompt: str = ""
    exhausted: bool = False  # the writer has nothing more to offer: more attempts are pointless
    claims: tuple[EquivalenceClaim, ...] = ()  # mutants the writer says are equivalent


class TestSuiteGenerator(Protocol):
    """Writes and revises a test module for a ``CoverTarget``."""

    name: str

    def generate(self, target: CoverTarget) -> GeneratedSuite:
        """The first suite (attempt 0)."""
        ...

    def enhance(
        self,
        target: CoverTarget,
        current: str,
        instruction_block: str,
        survivors: Sequence[Mutant] = (),
        killers: Sequence[str] = (),
    ) -> GeneratedSuite:
        """A revised suite that applies ``instruction_block`` to ``current``.

        ``survivors`` are the mutants the current suite let live (also described
        in the block), for a generator that works on them directly; ``killers``
        names the current tests credited with killing a mutant (the final suite
        keeps those, and drops tests that neither kill nor cover anything new).
        A writer may claim shown mutants equivalent (``GeneratedSuite.claims``);
        the loop records the claims and leaves those mutants out of later
        instructions, but they still count as survivors.
        """
        ...
