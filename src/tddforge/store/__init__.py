"""Run state: one directory per run under ``.tddforge/runs/``."""

from tddforge.store.rundir import RunDir

__all__ = ["RunDir"]
