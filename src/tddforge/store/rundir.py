"""The run directory: everything one run leaves behind, in one place.

``<project>/.tddforge/runs/<run-id>/`` holds ``events.jsonl`` (appended and
flushed line by line, so a crash keeps what happened), the model transcript,
and the run's artifacts. Runs are created only once there is something worth
keeping: an input error leaves nothing behind.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

from tddforge.errors import InputError
from tddforge.workspace.confined import confine

STATE_DIR = ".tddforge"
#: A run id is one plain path component (the session file that names it is writable by
#: generated code, so a resumed session's id is checked, never trusted).
RUN_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


def new_run_id(kind: str) -> str:
    """A sortable, unique run id: UTC timestamp, kind, random suffix."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{kind}-{secrets.token_hex(3)}"


class RunDir:
    """One run's directory."""

    def __init__(self, path: Path, run_id: str):
        self.path = path
        self.run_id = run_id

    @classmethod
    def create(cls, project_dir: Path, kind: str, run_id: str | None = None) -> RunDir:
        """Create ``.tddforge/runs/<run-id>/`` in ``project_dir``."""
        run = cls.at(project_dir, run_id or new_run_id(kind))
        run.path.mkdir(parents=True, exist_ok=False)
        return run

    @classmethod
    def at(cls, project_dir: Path, run_id: str) -> RunDir:
        """The run directory of ``run_id`` in ``project_dir``; ``InputError`` for an id that
        is not one plain path component."""
        if re.fullmatch(RUN_ID_PATTERN, run_id) is None:
            raise InputError(f"not a run id: {run_id!r}")
        return cls(project_dir / STATE_DIR / "runs" / run_id, run_id)

    def event(self, name: str, **data: Any) -> None:
        """Append one event line to ``events.jsonl``."""
        line = json.dumps({"t": round(time.time(), 3), "event": name, **data}, default=str)
        with (self.path / "events.jsonl").open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
            handle.flush()

    def write_text(self, name: str, text: str) -> Path:
        """Write a text file in the run dir (subdirectories allowed; confined to it)."""
        return self.write_bytes(name, text.encode("utf-8"))

    def write_bytes(self, name: str, data: bytes) -> Path:
        """Write a file in the run dir; ``name`` may hold subdirectories but never leaves it."""
        target = confine(self.path, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        return target

    def write_data(self, name: str, data: Any) -> Path:
        """Write ``data`` as YAML or JSON, by the file name's suffix."""
        return self.write_text(name, dump_data(data, json_format=name.endswith(".json")))


def dump_data(data: Any, *, json_format: bool) -> str:
    """Serialise plain data as JSON or block-style YAML (multi-line strings kept readable)."""
    if json_format:
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return yaml.dump(data, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=100)


class _BlockDumper(yaml.SafeDumper):
    """Writes multi-line strings as ``|`` blocks, so test files read as code."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_BlockDumper.add_representer(str, _represent_str)
