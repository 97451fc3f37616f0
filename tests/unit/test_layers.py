"""Imports point down: every module of ``src/tddforge`` imports only from lower layers.

The layer table is the one in ARCHITECTURE.md (section "Layers"); this test
reads it from there, so the document and the check cannot disagree. A module
may import from its own package and from packages on lower layers, never from
its own layer's other packages or from a higher one. A *standalone* module runs
under another interpreter as a copied file (the project's, with only the
standard library and pytest): it imports no tddforge module at run time, and
under ``if TYPE_CHECKING:`` only other standalone modules.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "tddforge"
DOC = ROOT / "ARCHITECTURE.md"
MARKER = "<!-- layer table: read by tests/unit/test_layers.py -->"
#: Announced in the table before it exists: the target-side package built on another branch.
ANNOUNCED: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Layers:
    """Package (or top-level module) name under ``tddforge.`` → layer; the standalone names."""

    rank: dict[str, int]
    standalone: frozenset[str]


@dataclass(frozen=True)
class Import:
    """One ``tddforge`` module imported by a module, where, and whether only for the type checker."""

    target: str
    line: int
    type_only: bool = False
    relative: bool = False  # ``from .x import y``: resolved within the importer's package


def read_layers(text: str) -> Layers:
    """The table after ``MARKER``: rows ``| 3 | `store` `runner` | ... |`` or ``| standalone | ...``."""
    if MARKER not in text:
        raise AssertionError(f"ARCHITECTURE.md has lost its layer table marker: {MARKER}")
    rank: dict[str, int] = {}
    standalone: set[str] = set()
    for line in text.split(MARKER, 1)[1].strip().splitlines():
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        names = re.findall(r"`([\w.]+)`", cells[1]) if len(cells) > 1 else []
        if cells[0] == "standalone":
            standalone.update(names)
        elif cells[0].isdigit():
            rank.update(dict.fromkeys(names, int(cells[0])))
    return Layers(rank, frozenset(standalone))


def unit_of(module: str, layers: Layers) -> str | None:
    """The table entry a module belongs to: a standalone name, its package, or None."""
    rel = module.removeprefix("tddforge").removeprefix(".") or "__init__"
    for name in layers.standalone:
        if rel == name or rel.startswith(name + "."):
            return name
    first = rel.split(".")[0]
    return first if first in layers.rank else None


def source_modules(src: Path = SRC) -> dict[str, Path]:
    """Every module under ``src`` by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(src.rglob("*.py")):
        parts = path.relative_to(src.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def imports_of(source: str, module: str, is_package: bool, known: set[str]) -> list[Import]:
    """The tddforge modules ``source`` imports (``from pkg import mod`` names ``pkg.mod``)."""
    package = module if is_package else module.rpartition(".")[0]
    found: list[Import] = []

    def walk(nodes: list[ast.stmt], type_only: bool) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and _is_type_checking(node.test):
                walk(node.body, True)
                walk(node.orelse, type_only)
                continue
            for sub in _imports(node):
                found.extend(_resolve(sub, package, known, type_only))
            for body in _bodies(node):
                walk(body, type_only)

    walk(ast.parse(source).body, False)
    ours = [i for i in found if i.target == "tddforge" or i.target.startswith("tddforge.")]
    return list(dict.fromkeys(ours))  # ``from m import a, b``: one import of m


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.stmt) -> list[ast.Import | ast.ImportFrom]:
    return [node] if isinstance(node, (ast.Import, ast.ImportFrom)) else []


def _bodies(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    """The statement lists nested in ``node`` (functions, classes, try, with, if, loops)."""
    for field in ("body", "orelse", "finalbody"):
        value = getattr(node, field, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            yield value
    for handler in getattr(node, "handlers", []):
        yield handler.body
    for case in getattr(node, "cases", []):
        yield case.body


def _resolve(
    node: ast.Import | ast.ImportFrom, package: str, known: set[str], type_only: bool
) -> Iterator[Import]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield Import(alias.name, node.lineno, type_only)
        return
    base = node.module or ""
    if node.level:
        parts = package.split(".")
        parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
        base = ".".join([*parts, *([node.module] if node.module else [])])
    for alias in node.names:
        dotted = f"{base}.{alias.name}"
        target = dotted if dotted in known else base
        yield Import(target, node.lineno, type_only, relative=node.level > 0)


def problems(imports: dict[str, list[Import]], layers: Layers) -> list[str]:
    """Every import that breaks the layer rules, and every module in no layer."""
    found = []
    for module, imported in sorted(imports.items()):
        unit = unit_of(module, layers)
        if unit is None:
            first = module.removeprefix("tddforge.").split(".")[0]
            found.append(
                f"{module} is in no layer: add `{first}` to the layer table in ARCHITECTURE.md"
                " (section Layers), on the line above everything it imports"
            )
        elif unit in layers.standalone:
            found += [_standalone_problem(module, i, layers) for i in imported]
        else:
            found += [_layer_problem(module, unit, i, layers) for i in imported]
    return [p for p in found if p]


def _standalone_problem(module: str, imp: Import, layers: Layers) -> str:
    if imp.type_only and unit_of(imp.target, layers) in layers.standalone:
        return ""
    if imp.relative and unit_of(imp.target, layers) == unit_of(module, layers):
        return ""  # a sibling in the same shipped package, imported relatively
    return (
        f"{module} imports {imp.target} (line {imp.line}): a standalone module runs under the"
        " target's interpreter with only the standard library and pytest, and imports no"
        " tddforge module but its own package's, relatively (under TYPE_CHECKING, other"
        " standalone modules too)"
    )


def _layer_problem(module: str, unit: str, imp: Import, layers: Layers) -> str:
    other = unit_of(imp.target, layers)
    if other is None or other == unit or other in layers.standalone:
        return ""  # a module in no layer is reported as itself
    mine, theirs = layers.rank[unit], layers.rank[other]
    if theirs < mine:
        return ""
    where = "the same layer" if theirs == mine else f"layer {theirs}"
    return (
        f"{module} (layer {mine}, `{unit}`) imports {imp.target} ({where}, `{other}`) at line"
        f" {imp.line}: imports point down; move what both need to a lower layer"
    )


def test_imports_point_down() -> None:
    layers = read_layers(DOC.read_text(encoding="utf-8"))
    modules = source_modules()
    known = set(modules)
    imports = {
        name: imports_of(path.read_text(encoding="utf-8"), name, path.name == "__init__.py", known)
        for name, path in modules.items()
    }
    found = problems(imports, layers)
    assert not found, "\n".join(found)


def test_the_table_names_only_what_exists() -> None:
    layers = read_layers(DOC.read_text(encoding="utf-8"))
    known = set(source_modules())
    names = [*layers.rank, *layers.standalone]
    missing = [
        n
        for n in names
        if n not in ANNOUNCED and ("tddforge." + n if n != "__init__" else "tddforge") not in known
    ]
    assert missing == [], "the layer table in ARCHITECTURE.md names modules that do not exist"
    assert len(set(layers.rank) & layers.standalone) == 0


TABLE = Layers(
    {"errors": 0, "config": 1, "sandbox": 2, "llm": 2, "runner": 3, "agents": 7, "__init__": 9},
    frozenset({"target", "sandbox.namespaces"}),
)

CASES = [
    ("down", "tddforge.runner.run", [Import("tddforge.sandbox.box", 3)], ""),
    ("same package", "tddforge.runner.run", [Import("tddforge.runner.results", 3)], ""),
    ("up", "tddforge.runner.run", [Import("tddforge.agents.base", 7)], "imports point down"),
    ("sideways", "tddforge.llm.client", [Import("tddforge.sandbox", 2)], "the same layer"),
    ("up, type only", "tddforge.config", [Import("tddforge.llm", 2, True)], "layer 2"),
    ("root facade", "tddforge", [Import("tddforge.agents.base", 9, True)], ""),
    ("to the root", "tddforge.agents.base", [Import("tddforge", 1)], "layer 9"),
    ("unknown package", "tddforge.reports.html", [], "add `reports` to the layer table"),
    (
        "target imports tddforge",
        "tddforge.target.worker",
        [Import("tddforge.errors", 5)],
        "standalone",
    ),
    ("target, type only", "tddforge.target.worker", [Import("tddforge.target.probe", 9, True)], ""),
    (
        "target, sibling by absolute name",
        "tddforge.target.worker",
        [Import("tddforge.target.probe", 9)],
        "standalone",
    ),
    (
        "target, sibling relatively",
        "tddforge.target.worker",
        [Import("tddforge.target.probe", 9, relative=True)],
        "",
    ),
    (
        "target, relatively out of its package",
        "tddforge.target.worker",
        [Import("tddforge.errors", 9, relative=True)],
        "standalone",
    ),
    ("launcher", "tddforge.sandbox.namespaces", [Import("tddforge.sandbox.box", 4)], "standalone"),
    ("to a standalone module", "tddforge.runner.run", [Import("tddforge.target.plugin", 2)], ""),
]


@pytest.mark.parametrize(("case", "module", "imports", "words"), CASES, ids=[c[0] for c in CASES])
def test_the_rules(case: str, module: str, imports: list[Import], words: str) -> None:
    found = problems({module: imports}, TABLE)
    if words:
        assert len(found) == 1 and words in found[0], found
    else:
        assert found == []


RESOLVE = [
    ("from tddforge import prompts", "tddforge.agents.kata", ["tddforge.prompts"]),
    ("from tddforge import __version__", "tddforge.cli", ["tddforge"]),
    ("from tddforge.runner import TestRun", "tddforge.decisions.x", ["tddforge.runner"]),
    ("from . import probe", "tddforge.target.worker", ["tddforge.target.probe"]),
    ("from .. import errors", "tddforge.target.worker", ["tddforge.errors"]),
    ("import tddforge.errors as e", "tddforge.config", ["tddforge.errors"]),
    ("def f():\n    from tddforge.llm import x", "tddforge.cli", ["tddforge.llm"]),
    ("import json\nfrom pathlib import Path", "tddforge.cli", []),
]


@pytest.mark.parametrize(("source", "module", "targets"), RESOLVE)
def test_imports_are_resolved_to_modules(source: str, module: str, targets: list[str]) -> None:
    known = {"tddforge.prompts", "tddforge.target.probe", "tddforge.errors"}
    assert [i.target for i in imports_of(source, module, False, known)] == targets


def test_type_checking_imports_are_marked() -> None:
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tddforge import x\n"
    assert imports_of(source, "tddforge.a", False, set()) == [Import("tddforge", 3, True)]
