"""A project that shadows an installed pytest plugin, as platformdirs' source tree does."""

from __future__ import annotations

from pathlib import Path


def shadow_plugin(project: Path, module: str) -> str:
    """Give ``project`` an installed distribution whose ``pytest11`` entry point names
    ``<module>.pytest_plugin``, which the project's own ``module`` does not have.

    pytest finds the distribution on the import path (the project's root is on it in
    every run), and stops before collecting when it cannot import the plugin. Returns the
    entry point's name.
    """
    info = project / "ghost_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ghost-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[pytest11]\nghost = {module}.pytest_plugin\n")
    return "ghost"
