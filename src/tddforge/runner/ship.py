"""Ship the target package (``tddforge.target``) into a sandbox's scratch dir.

The code that runs under the project's interpreter is one stdlib + pytest
package. Every host-side caller (the test runner's plugin, the mutation
worker, the builtin generator's probe and call runner, the Python runner's
compile check) ships it here, into a ``Sandbox.scratch()`` dir, never into the
project: the package's modules as ``tddforge_target/`` (a tddforge installed in
the project's environment cannot shadow it) and a three-line launcher beside
it. ``python LAUNCHER ENTRY ARGS...`` runs an entry of ``tddforge_target.main``
with the scratch dir, which holds nothing else importable, as ``sys.path[0]``;
with the scratch dir on ``PYTHONPATH``, pytest loads
``-p tddforge_target.pytest_plugin``.

A plain directory, not a zip: the worker imports about twenty modules as it
starts, and zipimport made that 13 ms slower per interpreter.
"""

from __future__ import annotations

import functools
from pathlib import Path

import tddforge.target

PACKAGE = "tddforge_target"
PLUGIN = f"{PACKAGE}.pytest_plugin"
LAUNCHER = f"{PACKAGE}_main.py"
_SOURCE = Path(tddforge.target.__file__).parent
_LAUNCHER_TEXT = f"import sys\n\nfrom {PACKAGE}.main import main\n\nsys.exit(main(sys.argv[1:]))\n"


def ship(private: Path) -> Path:
    """Copy the package and its launcher into ``private`` (a scratch dir); the directory to
    put on PYTHONPATH (``private`` itself)."""
    package = private / PACKAGE
    package.mkdir()
    for name, data in _modules().items():
        (package / name).write_bytes(data)
    (private / LAUNCHER).write_text(_LAUNCHER_TEXT, encoding="utf-8")
    return private


def entry_argv(python: Path | str, private: Path, entry: str, *args: str) -> list[str]:
    """The command line running ``entry`` (``main.ENTRIES``) of the package shipped to
    ``private``."""
    return [str(python), str(private / LAUNCHER), entry, *args]


@functools.cache
def _modules() -> dict[str, bytes]:
    """The package's modules, read once per process: file name -> bytes."""
    return {path.name: path.read_bytes() for path in sorted(_SOURCE.glob("*.py"))}
