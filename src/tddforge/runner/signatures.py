"""Read the public signatures of a project's classes and functions under its own interpreter.

The ``signatures`` entry of the target package (``tddforge.target.signatures``)
runs in the sandbox with the project (and its ``src``) on its path, imports
the modules asked for and writes what it found as JSON. A run that fails
(a timeout, a crash) does not raise: every module asked for comes back with
the reason as its ``error``, so a caller can report it and go on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from tddforge.runner.pytest_run import project_paths
from tddforge.runner.ship import entry_argv, ship
from tddforge.sandbox import Sandbox
from tddforge.target.signatures import ModuleInfo


def read_signatures(
    project: Path,
    request: Mapping[str, Sequence[str]],
    *,
    python: Path,
    sandbox: Sandbox,
    timeout: float = 60.0,
) -> dict[str, ModuleInfo]:
    """Module → what each name asked for is there (``ModuleInfo``), read in the sandbox."""
    with sandbox.scratch() as private:
        ship(private)
        asked, out = private / "request.json", private / "signatures.json"
        asked.write_text(json.dumps({m: list(n) for m, n in request.items()}), encoding="utf-8")
        argv = entry_argv(python, private, "signatures", str(asked), str(out))
        run = sandbox.run([*argv, *project_paths(project)], cwd=project, timeout=timeout)
        if run.timed_out:
            return _failed(request, f"reading the signatures took longer than {timeout:g} s")
        try:
            found: dict[str, ModuleInfo] = json.loads(out.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            tail = (run.stderr.strip().splitlines() or ["no output"])[-1]
            return _failed(request, f"the interpreter exited ({tail})")
    return found


def _failed(request: Mapping[str, Sequence[str]], reason: str) -> dict[str, ModuleInfo]:
    return {module: {"error": reason, "objects": {}} for module in request}
