"""One parse per source text for the host's analyses of a run.

Preparing a project's mutants reads each file's tree several times over
(operators, import-time reads, observers, fingerprints, import shapes): on
toolz's package, 230 parses of 27 files. The tree of a text is made once and
shared, so no caller may change it.
"""

from __future__ import annotations

import ast
import functools


@functools.lru_cache(maxsize=256)
def parsed(source: str) -> ast.Module:
    """``ast.parse(source)``, made once per text (a syntax error is raised each time)."""
    return ast.parse(source)
