"""Which modules are forgotten when pytest imported a target's package before any test."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from tddforge.target.preimported import forget_preimported, package_root


def _tree(root: Path) -> Path:
    for name in [
        "src/pkg/__init__.py",
        "src/pkg/sub/__init__.py",
        "src/pkg/sub/leaf.py",
        "src/pkg/other.py",
        "src/alone.py",
        "src/ns/mod.py",  # a namespace package: no __init__.py
        "src/pkgish/other.py",  # a name sharing a prefix with pkg
    ]:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    return root


@pytest.mark.parametrize(
    ("target", "root"),
    [
        ("src/pkg/sub/leaf.py", "src/pkg"),
        ("src/pkg/__init__.py", "src/pkg"),
        ("src/pkg/other.py", "src/pkg"),
        ("src/alone.py", "src/alone.py"),
        ("src/ns/mod.py", "src/ns/mod.py"),
    ],
)
def test_the_package_root_is_the_outermost_package(tmp_path: Path, target: str, root: str) -> None:
    base = _tree(tmp_path).resolve()
    assert package_root(str(base / target)) == str(base / root)


def test_only_the_targets_package_is_forgotten_and_pytest_never(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _tree(tmp_path).resolve()
    loaded = {
        "pkg": base / "src/pkg/__init__.py",
        "pkg.other": base / "src/pkg/other.py",
        "pkg.sub.leaf": base / "src/pkg/sub/leaf.py",
        "pkgish.other": base / "src/pkgish/other.py",
        "alone": base / "src/alone.py",
        "_pytest.fake": base / "src/pkg/other.py",  # what runs the tests stays, whatever its file
    }
    for name, path in loaded.items():
        module = types.ModuleType(name)
        module.__file__ = str(path)
        monkeypatch.setitem(sys.modules, name, module)
    forgotten = forget_preimported([str(base / "src/pkg/sub/leaf.py")])
    assert sorted(forgotten) == ["pkg", "pkg.other", "pkg.sub.leaf"]
    assert "pkgish.other" in sys.modules and "alone" in sys.modules
    assert "_pytest.fake" in sys.modules
    assert "pkg" not in sys.modules
