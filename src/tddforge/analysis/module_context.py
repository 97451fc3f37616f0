"""What a test writer needs besides the module's own source, read statically.

``file_io`` says whether the module touches the file system (``open``,
``pathlib``, ``shutil``, ``tempfile``, ``glob``, ``os``'s file functions), so that
the prompts give the filesystem rules only where they apply. ``imported_definitions``
gives the source of the names the module imports from its own package
(``from ._structures import Infinity``): just those definitions, each cut to a
number of lines (a long class shows its header and method signatures), within a
total, in the manner of CoverUp's ``get_info``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from tddforge.pysource import read_python

FILE_MODULES = ("pathlib", "shutil", "tempfile", "glob", "fnmatch", "fileinput")
# os's functions that touch the file system (os.path's string work, like join, does not)
OS_FILE_FUNCTIONS = frozenset(
    [
        "listdir",
        "scandir",
        "walk",
        "remove",
        "unlink",
        "rename",
        "replace",
        "makedirs",
        "mkdir",
        "rmdir",
        "removedirs",
        "stat",
        "lstat",
        "chmod",
        "chown",
        "open",
        "fdopen",
        "getcwd",
        "chdir",
        "link",
        "symlink",
        "readlink",
        "utime",
        "truncate",
        "access",
    ]
)
OS_PATH_FILE_FUNCTIONS = frozenset(
    [
        "exists",
        "lexists",
        "isfile",
        "isdir",
        "islink",
        "ismount",
        "getsize",
        "getmtime",
        "getatime",
        "getctime",
        "samefile",
        "realpath",
    ]
)
MAX_LINES_EACH = 40
MAX_LINES_TOTAL = 160
MAX_DEPTH = 2  # re-exports followed: ``__init__`` importing from a private module


def file_io(source: str) -> tuple[str, ...]:
    """What in ``source`` touches the file system (``open()``, ``pathlib``, ``os.listdir``,
    ``os.path.exists``...); empty when nothing does, or when it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    found: dict[str, None] = {}
    for node in ast.walk(tree):
        for name in _touches(node):
            found[name] = None
    return tuple(found)


def _touches(node: ast.AST) -> list[str]:
    """What one node uses that touches files: a module, ``open()``, an ``os`` function."""
    if isinstance(node, ast.Import):
        return [a.name.split(".")[0] for a in node.names if a.name.split(".")[0] in FILE_MODULES]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        names = {a.name for a in node.names}
        if node.module.split(".")[0] in FILE_MODULES:
            return [node.module.split(".")[0]]
        if node.module == "os" and names & OS_FILE_FUNCTIONS:
            return ["os"]
        if node.module == "os.path" and names & OS_PATH_FILE_FUNCTIONS:
            return ["os.path"]
        return []
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open":
        return ["open()"]
    if isinstance(node, ast.Attribute):
        owner = ast.unparse(node.value)
        if owner == "os" and node.attr in OS_FILE_FUNCTIONS:
            return [f"os.{node.attr}"]
        if owner == "os.path" and node.attr in OS_PATH_FILE_FUNCTIONS:
            return [f"os.path.{node.attr}"]
    return []


@dataclass(frozen=True)
class Definition:
    """One imported name's definition, as shown to the writer."""

    name: str
    path: str  # relative to the project, POSIX
    source: str
    cut: bool = False  # shortened to fit


def imported_definitions(
    project: Path,
    module: Path,
    import_name: str,
    *,
    max_each: int = MAX_LINES_EACH,
    max_total: int = MAX_LINES_TOTAL,
) -> tuple[list[Definition], list[str]]:
    """The definitions of the names ``module`` imports from its own package, and the names
    left out to stay within ``max_total`` lines."""
    try:
        tree = ast.parse(read_python(module))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return [], []
    root = _package_root(module, import_name)
    shown: list[Definition] = []
    left_out: list[str] = []
    total = 0
    for name, path in _own_imports(tree, module, import_name, root):
        found = _definition(path, name, MAX_DEPTH, root, import_name)
        if found is None:
            continue
        text, where = found
        text, cut = _shorten(text, max_each)
        lines = text.count("\n") + 1
        if total + lines > max_total:
            left_out.append(name)
            continue
        total += lines
        rel = where.relative_to(project).as_posix() if project in where.parents else where.name
        shown.append(Definition(name, rel, text, cut))
    return shown, left_out


def _package_root(module: Path, import_name: str) -> Path:
    """The directory the module's dotted name is relative to (the project, or its ``src``)."""
    parts = import_name.split(".")
    up = len(parts) - (0 if module.name == "__init__.py" else 1)
    root = module.parent
    for _ in range(up):
        root = root.parent
    return root


def _module_file(root: Path, dotted: str) -> Path | None:
    base = root.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _own_imports(
    tree: ast.Module, module: Path, import_name: str, root: Path
) -> list[tuple[str, Path]]:
    """(name, file it comes from) for each ``from <own package> import name``."""
    package = import_name.split(".")
    if module.name != "__init__.py":
        package = package[:-1]
    out: list[tuple[str, Path]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        dotted = _absolute(node, package)
        if dotted is None or not package or dotted.split(".")[0] != package[0]:
            continue
        path = _module_file(root, dotted)
        if path is None or path.resolve() == module.resolve():
            continue
        out += [(a.name, path) for a in node.names if a.name != "*"]
    return list(dict.fromkeys(out))


def _absolute(node: ast.ImportFrom, package: list[str]) -> str | None:
    if node.level == 0:
        return node.module
    if node.level - 1 > len(package):
        return None
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])]) or None


def _definition(
    path: Path, name: str, depth: int, root: Path, import_name: str
) -> tuple[str, Path] | None:
    """The source of ``name``'s top-level definition in ``path``, following a re-export."""
    try:
        source = read_python(path)
        tree = ast.parse(source)
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    lines = source.splitlines()
    for node in tree.body:
        if _defines(node, name):
            first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            return "\n".join(lines[first - 1 : node.end_lineno]), path
    if depth > 0:
        dotted = _dotted(path, root)
        for other, where in _own_imports(tree, path, dotted or import_name, root):
            if other == name:
                return _definition(where, name, depth - 1, root, import_name)
    return None


def _dotted(path: Path, root: Path) -> str | None:
    try:
        rel = path.relative_to(root).with_suffix("")
    except ValueError:
        return None
    parts = list(rel.parts)
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) if parts else None


def _defines(node: ast.stmt, name: str) -> bool:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name) and node.target.id == name
    return False


def _shorten(text: str, max_lines: int) -> tuple[str, bool]:
    """``text`` within ``max_lines``: first without its docstrings (each reduced to its
    summary line), then, for a class, as its outline (header, docstring summary, one-line
    assignments, methods' signatures); anything still longer cut with ``...``."""
    lines = text.splitlines()
    if len(lines) <= max_lines:
        return text, False
    try:
        node = ast.parse(text).body[0]
    except (SyntaxError, IndexError):
        return "\n".join([*lines[: max_lines - 1], "    ..."]), True
    lines = _without_docstrings(node, lines)
    if len(lines) > max_lines and isinstance(node, ast.ClassDef):
        lines = _outline(node, text.splitlines())
    if len(lines) > max_lines:
        lines = [*lines[: max_lines - 1], "    ..."]
    return "\n".join(lines), True


def _docstring(node: ast.AST) -> ast.Expr | None:
    """The docstring statement of a function or class."""
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    if isinstance(node, kinds) and node.body and isinstance(node.body[0], ast.Expr):
        value = node.body[0].value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return node.body[0]
    return None


def _summary(node: ast.AST, doc: ast.Expr, lines: list[str]) -> str:
    """The docstring's first line, on one line, at its indentation."""
    text = ast.get_docstring(node) or ""  # type: ignore[arg-type]
    first = text.strip().splitlines()[0] if text.strip() else ""
    return f'{lines[doc.lineno - 1][: doc.col_offset]}"""{first}"""'


def _without_docstrings(top: ast.stmt, lines: list[str]) -> list[str]:
    """``lines`` with every docstring reduced to its summary line (a method's dropped, or
    ``...`` when it is the whole body)."""
    replace: dict[int, tuple[int, str | None]] = {}  # first line -> (last line, new text)
    for node in ast.walk(top):
        doc = _docstring(node)
        if doc is None:
            continue
        end = doc.end_lineno or doc.lineno
        if node is top:
            replace[doc.lineno] = (end, _summary(node, doc, lines))
        elif len(node.body) == 1:  # type: ignore[attr-defined]
            replace[doc.lineno] = (end, lines[doc.lineno - 1][: doc.col_offset] + "...")
        else:
            replace[doc.lineno] = (end, None)
    out: list[str] = []
    n = 1
    while n <= len(lines):
        if n in replace:
            end, new = replace[n]
            out += [new] if new is not None else []
            n = end + 1
        else:
            out.append(lines[n - 1])
            n += 1
    return out


def _outline(node: ast.ClassDef, lines: list[str]) -> list[str]:
    """The class line, its docstring's summary, one-line assignments, and each method's
    signature followed by ``...``."""
    first_body = node.body[0].lineno if node.body else node.lineno + 1
    out = lines[: first_body - 1]
    doc = _docstring(node)
    if doc is not None:
        out.append(_summary(node, doc, lines))
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([item.lineno, *(d.lineno for d in item.decorator_list)])
            out += lines[first - 1 : item.body[0].lineno - 1]
            out.append(" " * (item.col_offset + 4) + "...")
        elif isinstance(item, (ast.Assign, ast.AnnAssign)) and item.end_lineno == item.lineno:
            out.append(lines[item.lineno - 1])
    return out
