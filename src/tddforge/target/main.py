"""The package's entry points, by name: ``python tddforge_target_main.py ENTRY ARGS...``.

- ``worker``: the mutation worker (``serve``)
- ``reference``: one mutant's reference run, ``--verify``'s ground truth (``reference``)
- ``probe``: the builtin generator's discovery of a module (``probe``)
- ``calls``: the builtin generator's call runner (``calls``)
- ``compile``: the Python runner's compile check (``compile_check``)
- ``signatures``: the public signatures of named classes and functions (``signatures``)
- ``floor``: fork + one test, the floor of a mutant's cost (``floor``; the bench's)

Each entry's module is imported only when it runs: the probe and the call
runner never import pytest, which a target may not have.
"""

from __future__ import annotations

import sys

ENTRIES = ("worker", "reference", "probe", "calls", "compile", "signatures", "floor")


def main(argv: list[str]) -> int:
    """Run entry ``argv[0]`` with ``argv`` (its name first, as ``sys.argv`` gives a script's)."""
    entry = argv[0] if argv else ""
    if entry == "worker":
        from . import serve

        return serve.main(argv)
    if entry == "reference":
        from . import reference

        return reference.main(argv)
    if entry == "probe":
        from . import probe

        return probe.main(argv)
    if entry == "calls":
        from . import calls

        return calls.main(argv)
    if entry == "compile":
        from . import compile_check

        return compile_check.main(argv)
    if entry == "signatures":
        from . import signatures

        return signatures.main(argv)
    if entry == "floor":
        from . import floor

        return floor.main(argv)
    print(f"unknown entry {entry!r}: one of {', '.join(ENTRIES)}", file=sys.stderr)
    return 2
