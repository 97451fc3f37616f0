"""``fresh._imported``: whether a target's file is imported, by any name and through links."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from tddforge.target.fresh import _imported


@pytest.fixture
def modules() -> Iterator[dict[str, types.ModuleType]]:
    """Modules put in ``sys.modules`` for one test, taken out after it."""
    fake: dict[str, types.ModuleType] = {}
    yield fake
    for name in fake:
        sys.modules.pop(name, None)


def _module(name: str, path: Path, into: dict[str, types.ModuleType]) -> None:
    module = types.ModuleType(name)
    module.__file__ = str(path)
    into[name] = sys.modules[name] = module


@pytest.mark.parametrize(
    ("loaded_as", "link", "expected"),
    [
        ("pkg/target.py", None, True),  # its own file
        ("other/target.py", None, False),  # a file of the same name elsewhere
        ("pkg/neighbour.py", None, False),  # another file beside it
        ("alias.py", "pkg/target.py", True),  # a link of another name to it
        ("same/target.py", "pkg/neighbour.py", False),  # a link of its name to another
        ("linkdir/target.py", "pkg", True),  # through a linked folder
    ],
)
def test_a_target_is_found_imported_by_its_real_file(
    tmp_path: Path,
    modules: dict[str, types.ModuleType],
    loaded_as: str,
    link: str | None,
    expected: bool,
) -> None:
    for name in ("pkg/target.py", "pkg/neighbour.py", "other/target.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    path = tmp_path / loaded_as
    if link is not None:
        where = tmp_path / loaded_as.split("/")[0] if loaded_as.startswith("linkdir") else path
        where.parent.mkdir(parents=True, exist_ok=True)
        where.symlink_to(tmp_path / link)
    _module("tddforge_probe_loaded", path, modules)
    assert _imported(str(tmp_path / "pkg" / "target.py")) is expected


def test_a_module_without_a_file_is_never_the_target(
    tmp_path: Path, modules: dict[str, types.ModuleType]
) -> None:
    (tmp_path / "t.py").write_text("")
    module = types.ModuleType("tddforge_probe_nofile")
    modules["tddforge_probe_nofile"] = sys.modules["tddforge_probe_nofile"] = module
    assert _imported(str(tmp_path / "t.py")) is False
