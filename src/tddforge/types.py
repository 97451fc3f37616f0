"""Type aliases shared across tddforge, named once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeAlias

#: Reports one line of progress to the user (the CLI prints it; tests collect it).
Progress: TypeAlias = Callable[[str], None]
#: Reports a count as work proceeds: ``(done, total)``.
Tally: TypeAlias = Callable[[int, int], None]
#: How one test ended in one run (the runner's outcome, the RED stage's fact).
TestStatus: TypeAlias = Literal["passed", "failed", "error", "skipped"]
