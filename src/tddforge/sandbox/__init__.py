"""Run commands confined: no network, read-only file system, limits, timeouts."""

from __future__ import annotations

from tddforge.sandbox.backend import BACKENDS as BACKENDS
from tddforge.sandbox.backend import choose_backend as choose_backend
from tddforge.sandbox.backend import detect_backend as detect_backend
from tddforge.sandbox.sandbox import Limits as Limits
from tddforge.sandbox.sandbox import Sandbox as Sandbox
from tddforge.sandbox.sandbox import SandboxResult as SandboxResult
from tddforge.sandbox.sandbox import used_backends as used_backends

__all__ = [
    "BACKENDS",
    "Limits",
    "Sandbox",
    "SandboxResult",
    "choose_backend",
    "detect_backend",
    "used_backends",
]
