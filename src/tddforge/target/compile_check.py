"""Compile files with the target's interpreter, writing no bytecode: the Python runner's build.

The check must leave the tree as it found it, so it compiles sources in
memory (never imports them). One ``FILE:LINE: KIND: MESSAGE`` line per file
that does not compile; the exit status is 1 when any does.
"""

from __future__ import annotations


def main(argv: list[str]) -> int:
    """Compile every file named after ``argv[0]``; 1 when one does not compile."""
    bad = 0
    for p in argv[1:]:
        try:
            with open(p, "rb") as handle:
                compile(handle.read(), p, "exec")
        except SyntaxError as e:
            bad = 1
            print(f"{p}:{e.lineno}: {type(e).__name__}: {e.msg}")
    return bad
