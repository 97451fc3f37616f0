"""Structured text inputs, composed from the pieces a module's parsing code looks for.

Many modules parse text: docstrings, config sections, versions, markup. A string
mutated from short constants rarely has the shape their code waits for: a line
that is a section header, followed by indented ``name: value`` entries. This module
reads, per callable (the scopes of :func:`constants.mine_constants`), what its code
does with text, statically:

- the literals it compares lines and tokens against (``== "Args:"``,
  ``startswith("---")``, ``in ("Returns", "Yields")``);
- what it splits and partitions on (``split(":")``, ``partition("=")``), and whether
  it works line by line (``splitlines()``, ``split("\\n")``);
- whether it looks at indentation (``startswith(" ")``, ``lstrip()``, ``isspace()``).

Then it composes texts from those pieces: a header alone, a header with one or two
indented entries, a header underlined (``---``), two sections, an entry without its
header. Pure and deterministic; the search runs them like any other input.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from tddforge.builtin.constants import MODULE_SCOPE, scope_bodies

#: Texts per scope, at most; pieces of each kind used, at most.
MAX_TEXTS = 16
MAX_PIECES = 5
_LINE_METHODS = {"startswith", "endswith", "strip", "lstrip", "rstrip", "removeprefix"}
_SPLITTERS = {"split", "rsplit", "partition", "rpartition"}
_INDENT_CALLS = {"lstrip", "isspace", "expandtabs"}
_RULES = "-=~*#_+"  # what underlines a header (``---``, ``===``)


@dataclass
class Pieces:
    """What one scope's code does with text."""

    keys: list[str] = field(default_factory=list)  # what lines or tokens are compared with
    separators: list[str] = field(default_factory=list)  # what it splits/partitions on
    by_line: bool = False  # splitlines() or split("\n")
    indented: bool = False  # looks at leading white space
    matches: list[str] = field(default_factory=list)  # strings the module's regexes match


def composed_texts(
    source: str, examples: Mapping[str, Sequence[str]] | None = None
) -> dict[str, tuple[str, ...]]:
    """Per scope, multi-line texts in the shape the scope's code parses (none when its code
    does not work on lines). ``examples``: per scope, strings its regexes match; they become
    lines too (two in a row, one under a header)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, tuple[str, ...]] = {}
    for scope, body in scope_bodies(tree):
        pieces = _pieces(body)
        matches = [*(examples or {}).get(scope, ()), *(examples or {}).get(MODULE_SCOPE, ())]
        pieces.matches = _useful(matches)
        if pieces.by_line and (pieces.keys or pieces.separators or pieces.matches):
            found[scope] = tuple(_compose(pieces))[:MAX_TEXTS]
    return found


def _pieces(body: list[ast.AST]) -> Pieces:
    pieces = Pieces()
    for root in body:
        for node in ast.walk(root):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                _method_call(node, node.func.attr, pieces)
            elif isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                for operand in operands:
                    elements = (
                        operand.elts
                        if isinstance(operand, (ast.Tuple, ast.List, ast.Set))
                        else [operand]
                    )
                    pieces.keys += [t for t in map(_text, elements) if t]
    pieces.keys = _useful(pieces.keys)
    pieces.separators = _useful(pieces.separators)
    return pieces


def _method_call(node: ast.Call, method: str, pieces: Pieces) -> None:
    args = [t for t in map(_text, node.args) if t is not None]
    if method == "splitlines" or (method in _SPLITTERS and "\n" in args):
        pieces.by_line = True
    if method in _SPLITTERS:
        pieces.separators += [a for a in args if a and a != "\n"]
    elif method in _LINE_METHODS:
        pieces.keys += [a for a in args if a.strip()]
        if method in ("startswith", "lstrip") and any(a and not a.strip() for a in args):
            pieces.indented = True
    if method in _INDENT_CALLS:
        pieces.indented = True


def _text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) <= 40:
        return node.value
    return None


def _useful(texts: list[str]) -> list[str]:
    """Each once, in order: one-line pieces of text, at most ``MAX_PIECES``."""
    kept = [t for t in dict.fromkeys(texts) if t and "\n" not in t and t == t.strip("\n")]
    return kept[:MAX_PIECES]


def _compose(pieces: Pieces) -> Iterator[str]:
    """The first header's shapes, then the rarer shapes (two sections, an underlined
    header, other separators), then the other headers' shapes; each once."""
    sep = pieces.separators[0] if pieces.separators else ":"
    entry = f"name{sep} value" if sep.strip() else f"name{sep}value"
    other = f"other{sep} more" if sep.strip() else f"other{sep}more"
    indent = "    "
    words = [k for k in pieces.keys if any(ch.isalnum() for ch in k)] or ["Section:"]
    seen: set[str] = set()

    def shapes(header: str) -> Iterator[str]:
        yield f"{header}\n{indent}{entry}"
        yield f"{header}\n{indent}{entry}\n{indent}{other}"
        yield f"{header}\n{entry}"
        yield header
        yield f"Summary line.\n\n{header}\n{indent}{entry}"

    def rare() -> Iterator[str]:
        if len(words) > 1:
            yield f"{words[0]}\n{indent}{entry}\n\n{words[1]}\n{indent}{other}"
        for rule in (k for k in pieces.keys if k.strip() and set(k.strip()) <= set(_RULES)):
            yield f"Title\n{rule * (3 if len(rule) == 1 else 1)}\n{entry}"  # an underlined header
        for extra in pieces.separators[1:]:
            yield f"{words[0]}\n{indent}name{extra} value"
        if len(pieces.matches) > 1:  # lines each of which a regex of the module matches
            yield "\n".join(pieces.matches[:2])
        for match in pieces.matches[:2]:
            yield f"{words[0]}\n{indent}{match}"

    headers = list(_headers(words))
    groups = [shapes(headers[0]), rare(), *(shapes(h) for h in headers[1:])]
    for group in groups:
        for text in group:
            if text not in seen:
                seen.add(text)
                yield text


def _headers(keys: list[str]) -> Iterator[str]:
    """Keys that can start a line: words (``Args``, also as ``Args:``) and markers."""
    for key in keys:
        if any(ch.isalnum() for ch in key):
            yield key
            if key[-1].isalnum() and ":" not in key:
                yield f"{key}:"
