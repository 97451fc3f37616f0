"""How a workflow ended: one kind of object for red, kata, build, cover and mutate.

Every workflow returns an :class:`Outcome`. The CLI prints its summary from
``data``, prints ``data`` as JSON with ``--json``, and exits with
``exit_code``, all in one place (``cli._finish``). ``data`` is what the
workflow also stored in its run directory, so the printed JSON and the file
never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

Workflow = Literal["red", "kata", "build", "cover", "mutate"]

#: The exit codes of a workflow that ran: its goal met, or not met.
EXIT_GOAL_MET = 0
EXIT_GOAL_NOT_MET = 1
#: A usage or input error (one line on stderr, nothing written); set by the CLI, never here.
EXIT_INPUT_ERROR = 2
#: The workflow stopped to ask a person a question; it goes on once answered (kata).
EXIT_NEEDS_ANSWER = 3

#: The stop reason of every workflow that reached its ``--max-cost`` cap: it stops cleanly,
#: with its summary written, and exits 1 (or 0 when its goal was met all the same).
BUDGET = "budget"


@dataclass(frozen=True)
class Outcome:
    """A finished workflow: whether its goal was met, why it stopped, and its data.

    ``data`` is JSON-ready (plain dicts, lists, strings and numbers); ``files``
    are the files written for the user (artifacts, the test file), ``run_dir``
    the run's directory.
    """

    workflow: Workflow
    goal_met: bool
    stop_reason: str
    data: Mapping[str, Any]
    run_dir: Path | None = None
    files: tuple[Path, ...] = ()
    #: The question a person must answer before the workflow can go on, if any.
    question: str = ""

    @property
    def exit_code(self) -> int:
        """0 when the goal was met, 3 when waiting for an answer, 1 when it fell short."""
        if self.question:
            return EXIT_NEEDS_ANSWER
        return EXIT_GOAL_MET if self.goal_met else EXIT_GOAL_NOT_MET
