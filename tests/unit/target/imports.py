"""What the target package's modules import, read from their source (never imported here)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import tddforge.target

PACKAGE = Path(tddforge.target.__file__).parent
PYTEST = frozenset({"pytest", "_pytest"})
ALLOWED = frozenset(sys.stdlib_module_names) | PYTEST


def modules() -> dict[str, str]:
    """Every module of the package: name -> source."""
    return {path.stem: path.read_text(encoding="utf-8") for path in sorted(PACKAGE.glob("*.py"))}


def foreign_imports(source: str) -> list[str]:
    """The imports in ``source`` that are neither relative, standard library nor pytest."""
    return [name for node in ast.walk(ast.parse(source)) for name in _foreign(node)]


def _foreign(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if _top(alias.name) not in ALLOWED]
    if isinstance(node, ast.ImportFrom) and node.level == 0:
        return [] if _top(node.module or "") in ALLOWED else [node.module or ""]
    if isinstance(node, ast.Call) and _called(node) in ("import_module", "__import__"):
        return [] if _relative_or_allowed(node) else [ast.unparse(node)]
    return []


def _top(name: str) -> str:
    return name.split(".")[0]


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _relative_or_allowed(call: ast.Call) -> bool:
    first = call.args[0] if call.args else None
    if not isinstance(first, ast.Constant) or not isinstance(first.value, str):
        return False  # a computed name could be anything
    return first.value.startswith(".") or _top(first.value) in ALLOWED


def siblings(source: str) -> set[str]:
    """The package's own modules ``source`` imports (relatively)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found |= {node.module} if node.module else {a.name for a in node.names}
    return found


def imports_pytest(source: str) -> bool:
    """Whether ``source`` itself imports pytest or ``_pytest``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        if any(_top(name) in PYTEST for name in names):
            return True
    return False


def stdlib_only() -> list[str]:
    """The modules that import no pytest, directly or through a sibling (main's entries are
    imported only when they run, so main counts as stdlib only on its own)."""
    sources = modules()
    needs = {name for name, source in sources.items() if imports_pytest(source)}
    grew = True
    while grew:
        more = {n for n, s in sources.items() if n != "main" and siblings(s) & needs} - needs
        needs |= more
        grew = bool(more)
    return sorted(set(sources) - needs)
