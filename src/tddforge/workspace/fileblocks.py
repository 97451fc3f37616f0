"""Parse the files out of a model's reply: ``### FILE:`` blocks, and the shapes models drift to.

The asked-for shape is a ``### FILE: <relative path>`` line followed by a fenced
code block. Replies often carry prose between blocks, CRLF line endings, a fence
with no language tag, a path wrapped in backticks or bold, or a longer fence
(````) around content that itself contains ```; all of that is accepted.

Smaller models drift from the header. These shapes are accepted too, because
each names its path explicitly; nothing is guessed:

- the fence's info string names the path: ```` ```python tests/test_x.py ````;
- the block's first line is a comment naming it: ``# file: tests/test_x.py``
  (the line is dropped from the file);
- a line holding only a path (``tests/test_x.py``, ``**tests/test_x.py**:``)
  comes right before the fence.

A fence that names no path is prose (an example, a traceback) and is skipped. A
header with no fence after it, and a block the reply was cut off inside (no
closing fence), are problems: the block is not written, not even in part.

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
_FENCE_OPEN = re.compile(r"^\s{0,3}(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*?)\s*$")
#: A token that is plainly a file path: no spaces, a known file extension.
_PATH = re.compile(
    r"^(?:\./)?[\w.@+-]+(?:/[\w.@+-]+)*\.(?:py|pyi|cfg|ini|toml|txt|md|json|ya?ml|js|mjs|cjs|ts"
    r"|tsx|jsx|rs)$"
)
_COMMENT_PATH = re.compile(
    r"^\s*(?:#|//)\s*(?:(?:file(?:name)?|path)\s*:\s*)?(?P<path>\S+)\s*$", re.IGNORECASE
)
_INFO_KEY = re.compile(r"^(?:title|file(?:name)?|path)=[\"']?(?P<path>[^\"']+)[\"']?$")


@dataclass(frozen=True)
class FileBlock:
    """One file from a reply: its confined path and its whole content."""

    path: ConfinedPath
    content: str


@dataclass(frozen=True)
class ParsedReply:
    """The file blocks of a reply, the paths refused, and the blocks that could not be used."""

    blocks: tuple[FileBlock, ...]
    problems: tuple[str, ...]
    refused: tuple[PathRefused, ...] = ()


@dataclass(frozen=True)
class _Fenced:
    """A fenced block: where it opened, its info string, its lines, and whether it closed."""

    opened: int
    info: str
    body: list[str]
    closed: bool
    end: int  # the index of the first line after the block


def parse_file_blocks(reply: str, work_dir: Path) -> ParsedReply:
    """Every file block in ``reply``, in order, with its path confined to ``work_dir``."""
    lines = reply.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks: list[FileBlock] = []
    problems: list[str] = []
    refused: list[PathRefused] = []
    i = 0
    while i < len(lines):
        found = _next_file(lines, i)
        if found is None:
            i += 1
            continue
        raw, fenced, problem, i = found
        if problem:
            problems.append(problem)
        if problem or fenced is None:
            continue
        try:
            path = ConfinedPath.of(work_dir, raw)
        except PathRefused as refusal:
            refused.append(refusal)
            continue
        blocks.append(FileBlock(path, _as_file_text(fenced.body)))
    return ParsedReply(tuple(blocks), tuple(problems), tuple(refused))


def _next_file(lines: list[str], i: int) -> tuple[str, _Fenced | None, str, int] | None:
    """The file starting at line ``i``: (path, block, problem, next line), or None for none."""
    header = _HEADER.match(lines[i])
    if header is not None:
        return _after_header(lines, i, _clean_path(header.group("path")))
    if _FENCE_OPEN.match(lines[i]) is None:
        return None
    fenced = _read_fence(lines, i)
    raw = _path_in_info(fenced.info) or _path_before(lines, i)
    if raw is None and fenced.body and (named := _path_in_comment(fenced.body[0])):
        raw, fenced = named, _Fenced(i, fenced.info, fenced.body[1:], fenced.closed, fenced.end)
    if raw is None:  # prose: an example, an output; skip the whole block
        return "", None, "", fenced.end if fenced.closed else i + 1
    return raw, fenced, _cut_off(raw, fenced), fenced.end


def _after_header(lines: list[str], i: int, raw: str) -> tuple[str, _Fenced | None, str, int]:
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    if j >= len(lines) or _HEADER.match(lines[j]) or not _FENCE_OPEN.match(lines[j]):
        return raw, None, f"FILE header for {raw!r} is not followed by a fenced code block", i + 1
    if not raw:
        fenced = _read_fence(lines, j)
        return raw, None, "FILE header with an empty path", fenced.end
    fenced = _read_fence(lines, j)
    return raw, fenced, _cut_off(raw, fenced), fenced.end


def _cut_off(raw: str, fenced: _Fenced) -> str:
    if fenced.closed:
        return ""
    return (
        f"the reply was cut off inside the block for {raw!r} (no closing fence); "
        "nothing of it was written"
    )


def _read_fence(lines: list[str], opened: int) -> _Fenced:
    match = _FENCE_OPEN.match(lines[opened])
    assert match is not None
    fence = match.group("fence")
    for j in range(opened + 1, len(lines)):
        if _closes(lines[j], fence):
            return _Fenced(opened, match.group("info"), lines[opened + 1 : j], True, j + 1)
    return _Fenced(opened, match.group("info"), lines[opened + 1 :], False, len(lines))


def _path_in_info(info: str) -> str | None:
    """``python tests/test_x.py``, ``tests/test_x.py``, ``python title="tests/x.py"``."""
    for token in info.split():
        keyed = _INFO_KEY.match(token)
        candidate = keyed.group("path") if keyed else token.removeprefix("python:")
        if _PATH.match(candidate):
            return candidate
    return None


def _path_before(lines: list[str], fence_line: int) -> str | None:
    """A line holding only a path, right before the fence (one blank line may come between)."""
    for j in (fence_line - 1, fence_line - 2):
        if j < 0:
            return None
        text = lines[j].strip()
        if not text:
            continue
        candidate = _clean_path(text.rstrip(":").strip()).rstrip(":")
        return candidate if _PATH.match(candidate) else None
    return None


def _path_in_comment(line: str) -> str | None:
    """``# file: tests/test_x.py``, ``# tests/test_x.py``, ``// path: src/x.js``."""
    match = _COMMENT_PATH.match(line)
    if match is None:
        return None
    candidate = _clean_path(match.group("path"))
    return candidate if _PATH.match(candidate) else None


def _clean_path(raw: str) -> str:
    """Strip decoration models put around paths: backticks, bold, quotes."""
    return raw.strip().strip("`*\"'").strip()


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
