"""Golden prompts: every agent's prompt at each phase of a scripted session, checked in.

``check_golden`` compares a rendered prompt with its file under ``tests/golden/prompts``;
``TDDFORGE_UPDATE_GOLDEN=1`` rewrites the files instead, so that a change to what a model
sees shows up in review as a diff of these files.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parent / "prompts"
UPDATE = os.environ.get("TDDFORGE_UPDATE_GOLDEN") == "1"

#: What differs between two runs of the same session and is not the prompt's content.
_VOLATILE = [
    (re.compile(r"\b[0-9a-f]{8}\b(?= (?:green|refactor|red|chore)\()"), "<sha>"),
    (re.compile(r"\b[0-9a-f]{8}\b(?= chore:)"), "<sha>"),
    (re.compile(r"\bin \d+\.\d+s\b"), "in <t>s"),
    (re.compile(r"\d{8}T\d{6}Z-\w+-[0-9a-f]{6}"), "<run-id>"),
    # the interpreter's own frames in a traceback: where it lives, its line numbers
    (re.compile(r"^\S*/lib/python3\.\d+/(\S+?):\d+:", re.MULTILINE), r"<stdlib>/\1:<n>:"),
    # the carets newer Pythons print under a traceback's line
    (re.compile(r"^[ \t]*[\^~]+[ \t]*\n", re.MULTILINE), ""),
]


def render(request: Mapping[str, Any]) -> str:
    """One request of the fake server as the model saw it: each message under its role."""
    parts = [f"## {m['role']}\n\n{m['content'].rstrip()}\n" for m in request["messages"]]
    return "\n".join(parts)


def normalise(text: str, paths: Sequence[tuple[Path, str]] = ()) -> str:
    """``text`` without what changes from run to run: SHAs, timings, run ids, tmp paths."""
    for path, name in paths:
        text = text.replace(str(path), name)
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def check_golden(name: str, text: str) -> None:
    """Assert ``text`` equals the golden file ``name`` (or write it, when updating)."""
    path = GOLDEN / f"{name}.md"
    if UPDATE or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if not UPDATE:
            raise AssertionError(f"new golden file {path.name} written: review and commit it")
        return
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                text.splitlines(keepends=True),
                f"golden/{name}.md",
                "rendered now",
            )
        )
        raise AssertionError(
            f"the prompt {name} changed (TDDFORGE_UPDATE_GOLDEN=1 rewrites it):\n{diff}"
        )
