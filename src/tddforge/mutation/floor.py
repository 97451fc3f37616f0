"""The floor of a mutant's cost on a project: fork a collected session, run one test, report.

The ``floor`` entry of the target package does what a mutant's child cannot do
without, with no mutant switched on (``tddforge.target.floor``); the bench sets
the engine's cost per mutant beside it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from tddforge.config import Settings
from tddforge.errors import RunnerError
from tddforge.mutation.job import MutationJob, prepare, worker_config
from tddforge.mutation.running import sandbox_for, worker_env, workspace
from tddforge.runner.ship import entry_argv


@dataclass(frozen=True)
class Floor:
    """Seconds per child: forked alone, and with ``workers`` children at a time (wall
    seconds per child; times ``workers``, the core seconds each one costs)."""

    alone: float
    busy: float
    workers: int

    @property
    def core_seconds(self) -> float:
        """What one child costs a core with every worker busy."""
        return self.busy * self.workers


def measure_floor(job: MutationJob, settings: Settings) -> Floor:
    """Fork the job's collected tests one child per test, as a mutant's children are."""
    prep = prepare(replace(job, use_cache=False), None)
    sandbox = sandbox_for(job, settings)
    with workspace(sandbox) as private:
        config = private / "config.json"
        config.write_text(json.dumps(worker_config(prep, private / "unused.jsonl")), "utf-8")
        out = private / "floor.json"
        argv = entry_argv(job.python, private, "floor", str(config), str(out))
        result = sandbox.run(argv, cwd=job.project, timeout=job.timeout, extra_env=worker_env(job))
        try:
            data = json.loads(out.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RunnerError(f"the floor measurement failed: {result.stderr[-500:]}") from exc
    sandbox.close()
    return Floor(float(data["alone"]), float(data["busy"]), int(data["workers"]))
