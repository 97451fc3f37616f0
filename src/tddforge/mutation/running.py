"""Where the mutation worker runs: its sandbox, its environment, its shipped scratch directory."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tddforge.config import Settings
from tddforge.mutation.job import MutationJob
from tddforge.runner import project_paths
from tddforge.runner.ship import ship
from tddforge.sandbox import Limits, Sandbox


def sandbox_for(job: MutationJob, settings: Settings) -> Sandbox:
    """The sandbox a job's worker runs in."""
    limits = Limits.from_config(settings.sandbox, job.timeout)
    return Sandbox(job.project, limits)


def worker_env(job: MutationJob) -> dict[str, str]:
    """The environment the worker adds: the project's import paths."""
    return {"PYTHONPATH": ":".join(project_paths(job.project.resolve()))}


@contextmanager
def workspace(sandbox: Sandbox) -> Iterator[Path]:
    """A private scratch directory with the target package shipped into it."""
    with sandbox.scratch() as private:
        ship(private)
        yield private
