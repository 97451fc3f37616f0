"""Run commands confined: no network, read-only file system, limits, timeouts."""

from __future__ import annotations

from tddforge.sandbox.backend import BACKENDS as BACKENDS
from tddforge.sandbox.backend import detect_backend as detect_backend
from tddforge.sandbox.sandbox import Limits as Limits
from tddforge.sandbox.sandbox import Sandbox as Sandbox
from tddforge.sandbox.sandbox import SandboxResult as SandboxResult

__all__ = ["BACKENDS", "Limits", "Sandbox", "SandboxResult", "detect_backend"]
