"""Project modules imported before any test: forgotten, so that the tests import them afresh.

pytest imports a few packages for itself as it starts (iniconfig, packaging,
exceptiongroup, tomli). When a target belongs to one of them (the project *is*
iniconfig, say, with its ``src`` on ``PYTHONPATH``), that import comes before
anything of ours can watch it: the tests' own ``import`` then reuses the module
pytest loaded, the import hook cannot serve a mutant to it, and the baseline
sees none of its lines run as an import. Every mutant survived, silently.

Forgetting those modules (dropping them from ``sys.modules``, nothing else)
puts the target back where a project's code normally is when pytest starts:
not yet imported. pytest keeps the objects it holds and goes on working with
the original code; the tests import the target (and its package) afresh, where
the baseline traces it and a mutant can be switched on.
"""

from __future__ import annotations

import os
import sys

from .fresh import may_be, package_parts

# The packages that run the tests: re-importing them under a running pytest would split
# its classes and hooks in two, so a target among them is left as it is.
RUNNING = frozenset({"pytest", "_pytest", "pluggy"})


def package_root(target: str) -> str:
    """The top of the package holding ``target`` (the outermost directory with an
    ``__init__.py`` above it), or the file itself for a module outside any package."""
    folder, parts = package_parts(target)
    return os.path.join(folder, parts[0])


def running_targets(targets: list[str]) -> list[str]:
    """The targets loaded now from a package pytest runs on (``RUNNING``): the project is
    pluggy, say, and pytest imported its copy as it started. Their code that ran at import
    ran before anything of ours: a mutant there cannot be switched on for the tests alone.
    A mutant in a function body can, in the live functions, which the tests call and pytest
    too while they run (as mutmut's trampolines switch a mutant on after pytest started)."""
    wanted = {os.path.realpath(t): t for t in targets}
    names = {os.path.basename(t) for t in wanted}
    found = []
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] not in RUNNING:
            continue
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not may_be(path, names):
            continue
        target = wanted.get(os.path.realpath(path))
        if target is not None and target not in found:
            found.append(target)
    return found


#: why a mutant of such a target's import-time code has no verdict
NOT_SWITCHABLE = (
    "pytest itself runs on this module, imported as it started: a mutant of its "
    "import-time code cannot be switched on for the tests alone"
)


def forget_preimported(targets: list[str]) -> list[str]:
    """Drop from ``sys.modules`` every module loaded from a target's package (or from a
    target outside any package); the names dropped."""
    roots = {package_root(t) for t in targets}
    forgotten = []
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] in RUNNING:
            continue
        path = getattr(module, "__file__", None)
        if not path:
            continue
        real = os.path.realpath(path)
        if any(real == root or real.startswith(root + os.sep) for root in roots):
            del sys.modules[name]
            forgotten.append(name)
    return forgotten
