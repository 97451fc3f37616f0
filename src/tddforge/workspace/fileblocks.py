"""Parse ``### FILE:`` blocks out of an LLM reply.

A block is a ``### FILE: <relative path>`` line followed by a fenced code block.
Replies often carry prose between blocks, CRLF line endings, a fence with no
language tag, a path wrapped in backticks or bold, or a longer fence (````)
around content that itself contains ```; all of that is accepted. A header with
no fence after it is reported as a problem instead of being guessed at.

Each path goes through the gate (:class:`ConfinedPath`) right here: a block
whose path is not confined to the work dir is refused and never becomes a
``FileBlock``, so no other code handles a raw path from a model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tddforge.errors import PathRefused
from tddforge.workspace.confined import ConfinedPath

_HEADER = re.compile(r"^\s{0,3}#{1,6}\s*FILE\s*:\s*(?P<path>.+?)\s*$", re.IGNORECASE)
_FENCE_OPEN = re.compile(r"^\s{0,3}(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)[^`]*$")


@dataclass(frozen=True)
class FileBlock:
    """One file from a reply: its confined path and its whole content."""

    path: ConfinedPath
    content: str


@dataclass(frozen=True)
class ParsedReply:
    """The file blocks of a reply, the paths refused, and the headers that could not be used."""

    blocks: tuple[FileBlock, ...]
    problems: tuple[str, ...]
    refused: tuple[PathRefused, ...] = ()


def parse_file_blocks(reply: str, work_dir: Path) -> ParsedReply:
    """Every ``### FILE:`` block in ``reply``, in order, with its path confined to ``work_dir``."""
    lines = reply.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[FileBlock] = []
    problems: list[str] = []
    refused: list[PathRefused] = []
    i = 0
    while i < len(lines):
        header = _HEADER.match(lines[i])
        if header is None:
            i += 1
            continue
        raw = _clean_path(header.group("path"))
        content, i = _read_block(lines, i + 1)
        if content is None:
            problems.append(f"FILE header for {raw!r} is not followed by a fenced code block")
        elif not raw:
            problems.append("FILE header with an empty path")
        else:
            try:
                blocks.append(FileBlock(ConfinedPath.of(work_dir, raw), content))
            except PathRefused as refusal:
                refused.append(refusal)
    return ParsedReply(tuple(blocks), tuple(problems), tuple(refused))


def _clean_path(raw: str) -> str:
    """Strip decoration models put around paths: backticks, bold, quotes."""
    return raw.strip().strip("`*\"'").strip()


def _read_block(lines: list[str], start: int) -> tuple[str | None, int]:
    """Read the fenced block that follows a header; blank lines may come first."""
    i = start
    while i < len(lines) and not lines[i].strip():
        i += 1
    opening = _FENCE_OPEN.match(lines[i]) if i < len(lines) else None
    if opening is None or _HEADER.match(lines[i]):
        return None, start
    fence = opening.group("fence")
    body: list[str] = []
    for j in range(i + 1, len(lines)):
        if _closes(lines[j], fence):
            return _as_file_text(body), j + 1
        body.append(lines[j])
    # An unclosed fence at the end of the reply: the model was cut off; keep what came.
    return _as_file_text(body), len(lines)


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return (
        len(stripped) >= len(fence)
        and set(stripped) == {fence[0]}
        and len(line) - len(line.lstrip()) <= 3
    )


def _as_file_text(body: list[str]) -> str:
    text = "\n".join(body).strip("\n")
    return text + "\n" if text else ""
