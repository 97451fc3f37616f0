"""Ship the target package (``tddforge.target``) into a sandbox's scratch dir, as one archive.

The code that runs under the project's interpreter is one stdlib + pytest
package. Every host-side caller (the test runner's plugin, the mutation
worker, the builtin generator's probe and call runner, the Python runner's
compile check) ships it here, into a ``Sandbox.scratch()`` dir, never into the
project. The archive holds the package as ``tddforge_target`` (a tddforge
installed in the project's environment cannot shadow it) and a
``__main__.py``, as ``zipapp`` makes one: ``python ARCHIVE ENTRY ARGS...`` runs
an entry of ``tddforge_target.main``, with the archive, which holds nothing
else, as ``sys.path[0]``. On ``PYTHONPATH`` it serves
``-p tddforge_target.pytest_plugin``.
"""

from __future__ import annotations

import functools
import io
import zipfile
from pathlib import Path

import tddforge.target

PACKAGE = "tddforge_target"
ARCHIVE = f"{PACKAGE}.pyz"
PLUGIN = f"{PACKAGE}.pytest_plugin"
_SOURCE = Path(tddforge.target.__file__).parent
_LAUNCHER = f"import sys\n\nfrom {PACKAGE}.main import main\n\nsys.exit(main(sys.argv[1:]))\n"
_EPOCH = (1980, 1, 1, 0, 0, 0)  # the same bytes on every run


def ship(private: Path) -> Path:
    """Write the archive into ``private`` (a scratch dir); its path, to put on PYTHONPATH."""
    archive = private / ARCHIVE
    archive.write_bytes(_archive())
    return archive


def entry_argv(python: Path | str, private: Path, entry: str, *args: str) -> list[str]:
    """The command line running ``entry`` (``main.ENTRIES``) of the archive shipped to ``private``."""
    return [str(python), str(private / ARCHIVE), entry, *args]


@functools.cache
def _archive() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for path in sorted(_SOURCE.glob("*.py")):
            archive.writestr(zipfile.ZipInfo(f"{PACKAGE}/{path.name}", _EPOCH), path.read_bytes())
        archive.writestr(zipfile.ZipInfo("__main__.py", _EPOCH), _LAUNCHER)
    return buffer.getvalue()
