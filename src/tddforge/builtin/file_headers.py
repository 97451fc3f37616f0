"""Binary inputs in the shape a module's format detection looks for, composed statically.

A module that reads files of several formats (image sizes, spreadsheets, archives) tells
them apart by their first bytes: ``head.startswith(b"\\x89PNG")``, ``head[:6] in
(b"GIF87a", b"GIF89a")``, ``head[4:8] == b"ftyp"``. A byte string mutated from the
module's short constants never has a signature at its offset and the length the
parser then reads, so none of its per-format code runs. This module reads, per
callable (the scopes of :func:`constants.mine_constants`), the byte literals its code
compares a slice or a prefix of one value against, and at which offset; the
comparisons joined by ``and`` belong to one header (``head.startswith(b"RIFF") and
head[8:12] == b"WEBP"``). Each header is zeros with those bytes in place, long enough
for what the code slices (at least ``MIN_LENGTH``). Pure and deterministic; the search
runs them like any other input (an in-memory binary file, a ``bytes`` argument).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from tddforge.builtin.constants import scope_bodies

#: Headers per scope, at most; and the shortest one (a parser reads past the signature).
MAX_HEADERS = 16
MIN_LENGTH = 32
#: The longest header composed: a signature placed further in is left out.
MAX_LENGTH = 4096

#: One comparison: the value compared (its source), the offset, the bytes it may hold there.
Placement = tuple[str, int, tuple[bytes, ...]]


def composed_headers(source: str) -> dict[str, tuple[bytes, ...]]:
    """Per scope, byte strings holding the signatures its code compares against, at their
    offsets (none for a scope that compares no bytes)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, tuple[bytes, ...]] = {}
    for scope, body in scope_bodies(tree):
        headers = list(dict.fromkeys(_headers(body)))
        if headers:
            found[scope] = tuple(headers[:MAX_HEADERS])
    return found


def _headers(body: list[ast.AST]) -> Iterator[bytes]:
    """Every header the conditions in ``body`` describe, in source order."""
    seen: set[int] = set()  # a comparison inside an ``and`` is composed with its neighbours
    for root in body:
        for node in ast.walk(root):
            if id(node) in seen:
                continue
            if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
                parts = [p for value in node.values for p in _placements(value)]
                seen.update(id(n) for value in node.values for n in ast.walk(value))
                yield from _compose(parts)
            elif isinstance(node, (ast.Compare, ast.Call)):
                yield from _compose(_placements(node))


def _placements(node: ast.expr) -> list[Placement]:
    """What one comparison says of a value's bytes: ``x.startswith(b"BM")`` (offset 0),
    ``x[4:8] == b"ftyp"``, ``x[:6] in (b"GIF87a", b"GIF89a")``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "startswith" and len(node.args) == 1:
            options = _byte_options(node.args[0])
            subject = ast.unparse(node.func.value)
            return [(subject, 0, options)] if options else []
        return []
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return []
    left, right = node.left, node.comparators[0]
    if isinstance(node.ops[0], (ast.Eq, ast.NotEq)):  # ``!= b"IHDR"``: raises unless there
        if _byte_options(left) and not _byte_options(right):
            left, right = right, left
    elif not isinstance(node.ops[0], ast.In):
        return []
    options = _byte_options(right)
    if isinstance(node.ops[0], ast.In) and isinstance(right, ast.Constant):
        options = tuple(bytes([byte]) for byte in options[0])  # ``x[1:2] in b"123456"``
    where = _slice(left)
    if not options or where is None:
        return []
    return [(where[0], where[1], options)]


def _byte_options(node: ast.expr) -> tuple[bytes, ...]:
    """The non-empty byte literals ``node`` is, or holds (a tuple, list or set of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, bytes) and node.value:
        return (node.value,)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return tuple(
            e.value
            for e in node.elts
            if isinstance(e, ast.Constant) and isinstance(e.value, bytes) and e.value
        )
    return ()


def _slice(node: ast.expr) -> tuple[str, int] | None:
    """``x[a:b]`` (or ``x[:b]``) with a literal start: the value's source and the start."""
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Slice):
        return None
    lower = node.slice.lower
    if lower is None:
        return ast.unparse(node.value), 0
    if isinstance(lower, ast.Constant) and type(lower.value) is int and lower.value >= 0:
        return ast.unparse(node.value), lower.value
    return None


def _compose(parts: list[Placement]) -> Iterator[bytes]:
    """The headers of comparisons made together: one per option of the first comparison
    with options, the others' first options beside it; per value compared."""
    subjects = list(dict.fromkeys(subject for subject, _, _ in parts))
    for subject in subjects:
        mine = [(offset, options) for s, offset, options in parts if s == subject]
        first_offset, first_options = mine[0]
        for option in first_options:
            header = _placed([(first_offset, option), *((o, opts[0]) for o, opts in mine[1:])])
            if header is not None:
                yield header


def _placed(pieces: list[tuple[int, bytes]]) -> bytes | None:
    """Zeros with each piece at its offset; None when two pieces disagree or it is too long."""
    end = max(offset + len(piece) for offset, piece in pieces)
    if end > MAX_LENGTH:
        return None
    data = bytearray(max(end, MIN_LENGTH))
    written = bytearray(len(data))
    for offset, piece in pieces:
        for i, byte in enumerate(piece, start=offset):
            if written[i] and data[i] != byte:
                return None
            data[i], written[i] = byte, 1
    return bytes(data)
