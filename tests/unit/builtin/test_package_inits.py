"""The ``__init__`` files the generator reads around the module (the packages above it)."""

from __future__ import annotations

from pathlib import Path

from tddforge.builtin.generator import _ancestor_init
from tddforge.cover_contract import CoverTarget


def _target(project: Path, rel: str, name: str) -> CoverTarget:
    return CoverTarget(project, rel, name, "", "pytest", "tests/test_x.py", "", "")


def test_the_init_of_each_package_above_the_modules_own(tmp_path: Path) -> None:
    (tmp_path / "top" / "mid").mkdir(parents=True)
    (tmp_path / "top" / "__init__.py").write_text("from top.mid.sets import S\n")
    (tmp_path / "top" / "mid" / "__init__.py").write_text("# own package\n")
    target = _target(tmp_path, "top/mid/sets.py", "top.mid.sets")
    assert _ancestor_init(target, "top") == "from top.mid.sets import S\n"
    assert _ancestor_init(target, "top.mid") is None  # its own: package_reexports reads it
    (tmp_path / "top" / "__init__.py").unlink()
    assert _ancestor_init(target, "top") is None
