"""Inputs from the project's own tests: the call shapes and literal arguments people wrote.

The people who wrote a module know what its inputs look like: a docstring parser's
tests hold whole docstrings, a version module's tests hold real version strings. This
module reads the project's test files statically (``ast``, nothing is imported or run)
and returns the calls of the module's functions, constructors and methods whose
arguments are all literals, as :class:`Call` values. Only those values reach the
generated tests, which still stand alone: no test code is copied.

A method call is kept when its instance was built from literals, so the constructor's
arguments come along: in the same test (``game = Game(3)`` then ``game.roll(5)``), in
the test class's ``setUp`` or any of its methods (``self.parser = Parser()`` then
``self.parser.parse("a.b")``), or in a pytest fixture the test asks for by name.

Tests inside a package import it relatively (``from .._headers import normalize``); such
an import is resolved against the test file's path in the project, so those calls count.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from tddforge.builtin.discover import ModuleInfo
from tddforge.builtin.explore import Call

#: How much of the project's tests is read, at most (files, characters), and calls kept.
MAX_FILES = 200
MAX_CHARS = 4_000_000
MAX_CALLS = 300
_SKIP_DIRS = frozenset({".git", ".tddforge", ".venv", "venv", "node_modules", "site-packages"})


def project_test_sources(project: Path, exclude: Iterable[str] = ()) -> dict[str, str]:
    """The project's test files (``test_*.py``, ``*_test.py``, ``tests.py``, anything under a
    ``test``/``tests`` directory), relative path → text, within the reading limits."""
    skipped = set(exclude)
    found: dict[str, str] = {}
    total = 0
    for path in sorted(project.rglob("*.py")):
        rel = path.relative_to(project)
        if rel.as_posix() in skipped or _SKIP_DIRS.intersection(rel.parts[:-1]):
            continue
        if not _is_test_file(rel):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        total += len(text)
        if len(found) >= MAX_FILES or total > MAX_CHARS:
            break
        found[rel.as_posix()] = text
    return found


def _is_test_file(rel: Path) -> bool:
    name = rel.name
    in_tests = any(part in ("test", "tests") for part in rel.parts[:-1])
    return name.startswith("test_") or name.endswith("_test.py") or name == "tests.py" or in_tests


def calls_from_tests(
    import_name: str,
    info: ModuleInfo,
    sources: Mapping[str, str],
    reexported: frozenset[str] = frozenset(),
) -> list[Call]:
    """The module's calls in ``sources`` with literal arguments, in order, each once.

    ``reexported``: the module's names its package also offers (``package_reexports``),
    so that ``idna.encode(...)`` counts for ``idna.core``'s ``encode``.
    """
    known = _known_targets(info)
    package, _, last = import_name.rpartition(".")
    words = [last, package.rsplit(".", 1)[-1]] if package and reexported else [last]
    calls: list[Call] = []
    for path, text in sources.items():
        if not any(word in text for word in words):
            continue  # a test file that never names the module
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        names = _imported_names(tree, import_name, reexported, _dotted(path))
        if names.local or names.modules or names.packages:
            calls += _calls_in(tree, names, known)
    return list(dict.fromkeys(calls))[:MAX_CALLS]


class _Names:
    """How a test file refers to the module: local names bound to its members, and module
    aliases (``import pkg.mod as m``)."""

    def __init__(self) -> None:
        self.local: dict[str, str] = {}  # local name → the member's name in the module
        self.modules: set[str] = set()  # dotted expressions that mean the module
        self.packages: set[str] = set()  # ... that mean its package, for the names it offers
        self.reexported: frozenset[str] = frozenset()


def _dotted(path: str) -> str:
    """A test file's relative path as the dotted name it is imported under from the
    project's root (``h11/tests/test_headers.py``: ``h11.tests.test_headers``)."""
    parts = Path(path).with_suffix("").parts
    return ".".join(parts[:-1] if parts and parts[-1] == "__init__" else parts)


def _absolute(node: ast.ImportFrom, here: str) -> str | None:
    """The module an ``import from`` names, a relative one resolved against the test
    file's dotted name ``here``: ``from .._headers import x`` in ``h11.tests.test_headers``
    is ``h11._headers``. None when it climbs out of the file's packages."""
    if not node.level:
        return node.module
    parts = here.split(".") if here else []
    if node.level >= len(parts):
        return None
    base = parts[: len(parts) - node.level]
    return ".".join([*base, *([node.module] if node.module else [])])


def _names_module(node: ast.ImportFrom, found: str | None, dotted: str) -> bool:
    """Whether ``node`` imports from the module ``dotted``. A relative import was resolved
    from the test file's path, which may carry a prefix (``src.``); an absolute one is
    the module only when it says so exactly."""
    if not (found and dotted):
        return False
    return found == dotted or (node.level > 0 and found.endswith("." + dotted))


def _imported_names(
    tree: ast.Module, import_name: str, reexported: frozenset[str], here: str = ""
) -> _Names:
    """How the test file ``here`` (its dotted name) refers to the module, absolute
    imports and relative ones (``from .._headers import normalize``) alike."""
    names = _Names()
    package, _, last = import_name.rpartition(".")
    for node in ast.walk(tree):
        found = _absolute(node, here) if isinstance(node, ast.ImportFrom) else None
        if isinstance(node, ast.ImportFrom) and _names_module(node, found, import_name):
            names.local.update((a.asname or a.name, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and package and _names_module(node, found, package):
            names.modules.update(a.asname or a.name for a in node.names if a.name == last)
            names.local.update(
                (a.asname or a.name, a.name)
                for a in node.names
                if a.name != last and _offered(a.name, reexported)
            )
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == import_name:
                    names.modules.add(alias.asname or import_name)
                elif package and alias.name == package and reexported:
                    names.packages.add(alias.asname or package)
    names.reexported = reexported
    return names


def _offered(name: str, reexported: frozenset[str]) -> bool:
    return name in reexported or ("*" in reexported and not name.startswith("_"))


def package_reexports(init_source: str | None, import_name: str) -> frozenset[str]:
    """The names the package's ``__init__`` takes from the module: each name of a
    ``from .mod import a, b``, or ``*`` for ``from .mod import *``."""
    package, _, last = import_name.rpartition(".")
    if not init_source or not package:
        return frozenset()
    try:
        tree = ast.parse(init_source)
    except (SyntaxError, ValueError):
        return frozenset()
    found: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        relative = node.level == 1 and node.module == last
        if relative or (not node.level and node.module == import_name):
            found.update(a.name for a in node.names)
    return frozenset(found)


def _known_targets(info: ModuleInfo) -> dict[str, str]:
    """Member name → the kind of target: ``function``, ``class``, or ``Class.method``."""
    known = {f.name: "function" for f in info.functions}
    for cls in info.classes:
        known[cls.name] = "class" if cls.constructor is not None and not cls.is_abstract else ""
        for method in cls.methods:
            known[f"{cls.name}.{method.name}"] = method.kind
    return known


def _calls_in(tree: ast.Module, names: _Names, known: Mapping[str, str]) -> Iterator[Call]:
    fixtures = _fixtures(tree, names, known)
    for scope, inherited in _scopes(tree, names, known, fixtures):
        instances = dict(inherited)  # ``g``, ``self.parser`` → the constructor call that built it
        for node in _in_order(scope):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                _note_instances(node, names, known, instances)
            if isinstance(node, ast.Call):
                found = _call(node, names, known, instances)
                if found is not None:
                    yield found


def _note_instances(
    node: ast.Assign, names: _Names, known: Mapping[str, str], instances: dict[str, Call]
) -> None:
    """``g = Game(3)`` or ``self.game = Game(3)``: the name now stands for that instance."""
    assert isinstance(node.value, ast.Call)
    built = _call(node.value, names, known, instances)
    if built is None or known.get(built.target) != "class":
        return
    for target in node.targets:
        if isinstance(target, ast.Name) or _is_self_attribute(target):
            instances[ast.unparse(target)] = built


def _is_self_attribute(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


_Function = ast.FunctionDef | ast.AsyncFunctionDef


def _scopes(
    tree: ast.Module, names: _Names, known: Mapping[str, str], fixtures: Mapping[str, Call]
) -> Iterator[tuple[list[ast.stmt], dict[str, Call]]]:
    """Each function's body (a test) with the instances it starts with, and the module's
    own statements. A test starts with the fixtures it asks for by parameter, and a
    method with the ``self.x`` instances its class builds in any method (``setUp``)."""
    yield [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.ClassDef))], {}
    in_class: dict[int, dict[str, Call]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            attributes = _class_attributes(node, names, known)
            for member in node.body:
                if isinstance(member, _Function):
                    in_class[id(member)] = attributes
    for node in ast.walk(tree):
        if isinstance(node, _Function):
            start = dict(in_class.get(id(node), {}))
            start.update((a.arg, fixtures[a.arg]) for a in node.args.args if a.arg in fixtures)
            yield node.body, start


def _class_attributes(
    cls: ast.ClassDef, names: _Names, known: Mapping[str, str]
) -> dict[str, Call]:
    """``self.x = Class(...)`` anywhere in the class's methods, in source order."""
    attributes: dict[str, Call] = {}
    for member in cls.body:
        if not isinstance(member, _Function):
            continue
        for node in _in_order(member.body):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                local: dict[str, Call] = {}
                _note_instances(node, names, known, local)
                attributes.update((k, v) for k, v in local.items() if k.startswith("self."))
    return attributes


def _fixtures(tree: ast.Module, names: _Names, known: Mapping[str, str]) -> dict[str, Call]:
    """pytest fixtures that return or yield an instance of the module's class, by name."""
    found: dict[str, Call] = {}
    for node in ast.walk(tree):
        if not isinstance(node, _Function) or not any(map(_is_fixture, node.decorator_list)):
            continue
        local: dict[str, Call] = {}
        for inner in _in_order(node.body):
            if isinstance(inner, ast.Assign) and isinstance(inner.value, ast.Call):
                _note_instances(inner, names, known, local)
            value = inner.value if isinstance(inner, ast.Return | ast.Yield) else None
            if isinstance(value, ast.Name) and value.id in local:
                found[node.name] = local[value.id]
            elif isinstance(value, ast.Call):
                built = _call(value, names, known, local)
                if built is not None and known.get(built.target) == "class":
                    found[node.name] = built
    return found


def _is_fixture(decorator: ast.expr) -> bool:
    """``@pytest.fixture``, ``@fixture`` or either called with options."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(target) in ("pytest.fixture", "fixture")


def _in_order(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of ``body`` in source order (an assignment before the calls after it)."""
    for statement in body:
        nodes = [n for n in ast.walk(statement) if isinstance(n, (ast.stmt, ast.expr))]
        yield from sorted(nodes, key=lambda n: (n.lineno, n.col_offset))


def _call(
    node: ast.Call, names: _Names, known: Mapping[str, str], instances: Mapping[str, Call]
) -> Call | None:
    """``node`` as a call of the module, when it is one and every argument is a literal."""
    arguments = _literal_arguments(node)
    if arguments is None:
        return None
    args, kwargs = arguments
    func = node.func
    member = _member(func, names)
    if member is not None and known.get(member) in ("function", "class"):
        return Call(member, args, kwargs)
    if isinstance(func, ast.Attribute):
        owner = _member(func.value, names)
        static = f"{owner}.{func.attr}"
        if owner is not None and known.get(static, "") in ("staticmethod", "classmethod"):
            return Call(static, args, kwargs)  # ``Version.parse("1.0")``
    if isinstance(func, ast.Attribute) and (
        isinstance(func.value, ast.Name) or _is_self_attribute(func.value)
    ):
        built = instances.get(ast.unparse(func.value))
        target = f"{built.target}.{func.attr}" if built else ""
        if built is not None and known.get(target) == "method":
            return Call(target, args, kwargs, built.args, built.kwargs)
    return None


def _member(func: ast.expr, names: _Names) -> str | None:
    """The module member ``func`` names: ``parse`` (imported) or ``mod.parse``."""
    if isinstance(func, ast.Name):
        return names.local.get(func.id)
    if isinstance(func, ast.Attribute) and ast.unparse(func.value) in names.modules:
        return func.attr
    if isinstance(func, ast.Attribute) and ast.unparse(func.value) in names.packages:
        return func.attr if _offered(func.attr, names.reexported) else None
    return None


def _literal_arguments(
    node: ast.Call,
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]] | None:
    """The call's arguments as literal sources (``repr`` of their value), or None."""
    args: list[str] = []
    for arg in node.args:
        text = _literal(arg)
        if text is None:
            return None
        args.append(text)
    kwargs: list[tuple[str, str]] = []
    for keyword in node.keywords:
        text = _literal(keyword.value) if keyword.arg else None
        if text is None or keyword.arg is None:
            return None
        kwargs.append((keyword.arg, text))
    return tuple(args), tuple(kwargs)


def _literal(node: ast.expr) -> str | None:
    if isinstance(node, ast.Starred):
        return None
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    text = repr(value)
    return text if len(text) <= 2_000 else None
