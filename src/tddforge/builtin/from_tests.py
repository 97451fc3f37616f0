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
import string
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from tddforge.builtin.bindings import (
    MISSING,
    CallValue,
    Env,
    Reference,
    evaluate,
    parametrized,
    settle,
    source_of,
    walk,
)
from tddforge.builtin.data_files import DataFiles
from tddforge.builtin.discover import CallableInfo, ModuleInfo
from tddforge.builtin.explore import Call, Step
from tddforge.builtin.fixtures import (
    NONE,
    Definition,
    conftest_chain,
    definitions,
    fixture_values,
    is_fixture,
)
from tddforge.builtin.special_uses import special_uses
from tddforge.builtin.values import STDLIB_MODULES
from tddforge.builtin.writer import bound_names
from tddforge.pysource import read_python
from tddforge.target.probe import CALL, OPERATORS

#: How much of the project's tests is read, at most (files, characters), and calls kept.
MAX_FILES = 200
MAX_CHARS = 4_000_000
MAX_CALLS = 600
MAX_DRIVERS = 200
#: Helpers followed into from a test (a helper that calls a helper: 2).
MAX_HELPER_DEPTH = 2
_Function = ast.FunctionDef | ast.AsyncFunctionDef
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
            text = read_python(path)
        except (OSError, UnicodeDecodeError, SyntaxError):
            continue
        total += len(text)
        if len(found) >= MAX_FILES or total > MAX_CHARS:
            break
        found[rel.as_posix()] = text
    return found


def _is_test_file(rel: Path) -> bool:
    name = rel.name
    in_tests = any(part in ("test", "tests") for part in rel.parts[:-1])
    named = name.startswith("test_") or name.endswith("_test.py")
    # a conftest anywhere: its fixtures are what the tests below it ask for
    return named or in_tests or name in ("test.py", "tests.py", "conftest.py")


class TestInputs(NamedTuple):
    """What the project's tests give: the module's own calls, and the calls of the rest of
    its package (``drivers``: ``hjson.loads(text)``, each a :class:`Call` whose target is
    a dotted path), whose calls into the module ``explore.capture_calls`` records."""

    calls: list[Call]
    drivers: list[Call]


def calls_from_tests(
    import_name: str,
    info: ModuleInfo,
    sources: Mapping[str, str],
    reexported: frozenset[str] = frozenset(),
    namespace: frozenset[str] = frozenset(),
) -> list[Call]:
    """The module's calls in ``sources`` with literal arguments (``read_tests``)."""
    return read_tests(import_name, info, sources, reexported, namespace).calls


def read_tests(
    import_name: str,
    info: ModuleInfo,
    sources: Mapping[str, str],
    reexported: frozenset[str] = frozenset(),
    namespace: frozenset[str] = frozenset(),
    files: DataFiles | None = None,
    above: Mapping[str, frozenset[str]] = MappingProxyType({}),
    star: Callable[[str], frozenset[str]] = lambda dotted: frozenset(),
) -> TestInputs:
    """The module's calls in ``sources`` with literal arguments, in order, each once; and
    the calls of its package's other functions and classes (the drivers), likewise.

    ``reexported``: the module's names its package also offers (``package_reexports``),
    so that ``idna.encode(...)`` counts for ``idna.core``'s ``encode``. ``namespace``:
    the names the module binds at its top level (``writer.bound_names``); a test's argument
    made of those (``Strategy.SEMVER``, ``[Strategy.SEMVER]``, ``Version("1.0")``) is kept
    as its source, which the runner evaluates in the module and the writer imports from it.
    ``files``: the project's data files, read where a test loads its inputs from one
    (``json.load(open("testdata.json"))``). ``above``: the module's names each package
    above its own offers (``ancestor_reexports``), so that ``from netaddr import IPSet``
    counts for ``netaddr.ip.sets``. ``star``: the names ``from X import *`` binds, for a
    module ``X`` of the package (``star_names`` of its source), so that ``div()`` after
    ``from dominate.tags import *`` is a call of the package's ``dominate.tags.div``.
    """
    known = _known_targets(info)
    optional = _optional_parameters(info)
    owners = _owners(known)
    package, _, last = import_name.rpartition(".")
    # its name, its package's, and its top package's (``nx.ancestors`` names no other)
    words = [last, package.rsplit(".", 1)[-1], package.split(".")[0]] if package else [last]
    ranked: list[tuple[int, Call]] = []
    drivers: list[tuple[int, Call]] = []

    def names_for(tree: ast.Module, path: str) -> _Names:
        names = _imported_names(
            tree, import_name, reexported, _dotted(path), namespace, above, star
        )
        names.optional, names.known, names.owners = optional, known, owners
        names.held = {i.name: i.class_name for i in info.instances}
        if names.local.pop("*", None):  # ``from colorutils import *``: every public member
            public = (n for n in known if "." not in n and not n.startswith("_"))
            names.local.update((n, n) for n in public if n not in names.local)
        return names

    conftests = _Conftests(sources, names_for, known, files)
    for path, text in sources.items():
        if not any(word in text for word in words):
            continue  # a test file that never names the module nor its package
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        names = names_for(tree, path)
        if names.local or names.modules or names.packages or names.paths:
            inherited = conftests.above(path)
            ranked += _calls_in(tree, names, known, drivers, files, path, inherited)
    calls = consuming(_in_rank_order(ranked, MAX_CALLS), info)
    return TestInputs(calls, _in_rank_order(drivers, MAX_DRIVERS))


@dataclass
class _Conftests:
    """The fixtures the ``conftest.py`` files above a test file hand down to it (lunr's
    ``index`` fixture, made by ``lunr(...)`` in ``tests/conftest.py``), each conftest read
    once, with what the ones above it hand down in turn."""

    sources: Mapping[str, str]
    names_for: Callable[[ast.Module, str], _Names]
    known: Mapping[str, str]
    files: DataFiles | None
    read: dict[str, Mapping[str, Definition]] = field(default_factory=dict)

    def above(self, path: str) -> Mapping[str, Definition]:
        """The fixtures of every conftest above ``path``, the nearer over the farther."""
        found: dict[str, Definition] = {}
        for conftest in conftest_chain(path, self.sources):
            if conftest not in self.read:
                self.read[conftest] = self._definitions(conftest)
            found.update(self.read[conftest])
        return found

    def _definitions(self, conftest: str) -> Mapping[str, Definition]:
        try:
            tree = ast.parse(self.sources[conftest])
        except SyntaxError:
            return NONE
        names = self.names_for(tree, conftest)
        module, build = _file_env(tree, names, self.known, self.files, conftest)
        return definitions(tree, module, build)


def consuming(calls: Iterable[Call], info: ModuleInfo) -> list[Call]:
    """Each call of a generator function or method collecting what it yields, as one the
    search makes does: its body runs only as it is consumed (read from a test, or captured
    while the package's API ran)."""
    generators = {f.qualname for f in info.callables() if f.is_generator}
    return [
        replace(c, consume=True)
        if c.target in generators and not c.attribute and not c.consume
        else c
        for c in calls
    ]


def _in_rank_order(ranked: list[tuple[int, Call]], limit: int) -> list[Call]:
    """A table's later rows after every site's first calls (a sort by rank is stable)."""
    calls = [call for _, call in sorted(ranked, key=lambda pair: pair[0])]
    return list(dict.fromkeys(calls))[:limit]


class _Names:
    """How a test file refers to the module: local names bound to its members, and module
    aliases (``import pkg.mod as m``)."""

    def __init__(self) -> None:
        self.local: dict[str, str] = {}  # local name → the member's name in the module
        self.modules: set[str] = set()  # dotted expressions that mean the module
        #: ... that mean its package or one above it, with the module's names each offers
        self.packages: dict[str, frozenset[str]] = {}
        self.reexported: frozenset[str] = frozenset()
        #: local name → the name the module binds too (``Strategy`` imported by both), whose
        #: values (``Strategy.SEMVER``) the tests can pass as they are
        self.shared: dict[str, str] = {}
        #: local name → the dotted path it stands for in the module's package, outside the
        #: module (``json`` → ``hjson``, ``loads`` → ``hjson.loads``): the drivers' names
        self.paths: dict[str, str] = {}
        self.own = ""  # the module's dotted name
        #: target → its parameters in order, each name, or "" for one without a default
        self.optional: Mapping[str, tuple[str, ...]] = {}
        #: local names of the packages the module is in, beyond its own (``nx`` for
        #: ``networkx`` of ``networkx.algorithms.dag``), which offer its names by star
        #: imports a reading cannot follow
        self.ancestors: set[str] = set()
        self.known: Mapping[str, str] = {}  # the module's targets (``_known_targets``)
        self.owners: Mapping[str, str] = {}  # method name -> its one class (``_owners``)
        #: local name → what it names in the standard library's value modules (``StringIO``
        #: → ``io.StringIO``, ``io`` → ``io``)
        self.stdlib: dict[str, str] = {}
        #: the module's names bound to its own instances → their class (``InstanceInfo``)
        self.held: Mapping[str, str] = {}
        #: what each call made in each environment (``_instance``), by their ids, with
        #: the node and the environment kept alive so that neither id is reused
        self.made: dict[tuple[int, int], tuple[ast.Call, Env, object]] = {}


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
    tree: ast.Module,
    import_name: str,
    reexported: frozenset[str],
    here: str = "",
    namespace: frozenset[str] = frozenset(),
    above: Mapping[str, frozenset[str]] = MappingProxyType({}),
    star: Callable[[str], frozenset[str]] = lambda dotted: frozenset(),
) -> _Names:
    """How the test file ``here`` (its dotted name) refers to the module, absolute
    imports and relative ones (``from .._headers import normalize``) alike. ``above``:
    the module's names each package above its own offers (``ancestor_reexports``);
    ``star``: the names a star import of another module of the package binds."""
    names = _Names()
    package, _, last = import_name.rpartition(".")
    top = import_name.split(".")[0]
    names.own = import_name
    for walked in ast.walk(tree):
        found = _absolute(walked, here) if isinstance(walked, ast.ImportFrom) else None
        node = _as_import(walked, found, top)
        names.paths.update(_package_paths(node, found, top, import_name, star))
        if isinstance(node, ast.ImportFrom):  # ``Strategy``, which the module binds too
            names.shared.update(
                (a.asname or a.name, a.name) for a in node.names if a.name in namespace
            )
        names.stdlib.update(_stdlib_names(node))
        if isinstance(node, ast.ImportFrom) and _names_module(node, found, import_name):
            names.local.update((a.asname or a.name, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and found and found in above:
            offers = above[found]  # ``from netaddr import IPSet``
            names.local.update(
                (a.asname or a.name, a.name) for a in node.names if _offered(a.name, offers)
            )
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
                    names.packages[alias.asname or package] = reexported
                elif above.get(alias.name):
                    names.packages[alias.asname or alias.name] = above[alias.name]
                elif alias.asname and import_name.startswith(alias.name + "."):
                    names.ancestors.add(alias.asname)  # ``import networkx as nx``
    names.reexported = reexported
    return names


def _as_import(node: ast.AST, found: str | None, top: str) -> ast.AST:
    """``from .context import asttokens`` read as ``import asttokens``: a helper of the
    tests (``context.py`` puts the project on ``sys.path`` and imports it) hands on the
    package ``top``. ``found``: the module ``node`` imports from, when it is one."""
    if not isinstance(node, ast.ImportFrom):
        return node
    if found is not None and (found == top or found.startswith(top + ".")):
        return node  # from the package itself
    handed = [alias for alias in node.names if alias.name == top]
    return ast.Import(names=handed) if handed else node


def _package_paths(
    node: ast.AST,
    found: str | None,
    top: str,
    import_name: str,
    star: Callable[[str], frozenset[str]] = lambda dotted: frozenset(),
) -> Iterator[tuple[str, str]]:
    """The names an import binds to parts of the package ``top`` other than the module
    (``star``: what a star import of one of its modules binds)."""
    pairs: list[tuple[str, str]] = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                pairs.append((alias.asname, alias.name))
            else:  # ``import a.b`` binds ``a``
                pairs.append((alias.name.split(".")[0], alias.name.split(".")[0]))
    elif isinstance(node, ast.ImportFrom) and found:
        pairs += [(a.asname or a.name, f"{found}.{a.name}") for a in node.names if a.name != "*"]
        if any(a.name == "*" for a in node.names):  # ``from dominate.tags import *``
            pairs += [(name, f"{found}.{name}") for name in star(found)]
    for local, path in pairs:
        inside = path == top or path.startswith(f"{top}.")
        if inside and path != import_name and not path.startswith(f"{import_name}."):
            yield local, path


def star_names(source: str | None) -> frozenset[str]:
    """The names ``from X import *`` binds, from ``X``'s source: its ``__all__`` when that
    is a literal list or tuple, else every public name it binds at its top level."""
    if not source:
        return frozenset()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(_is_name(t, "__all__") for t in node.targets)
            and isinstance(node.value, ast.List | ast.Tuple)
        ):
            listed = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
            return frozenset(n for n in listed if isinstance(n, str))
    return frozenset(n for n in bound_names(source) if not n.startswith("_"))


def _offered(name: str, reexported: frozenset[str]) -> bool:
    return name in reexported or ("*" in reexported and not name.startswith("_"))


def package_reexports(
    init_source: str | None,
    import_name: str,
    sibling: Callable[[str], str | None] = lambda name: None,
) -> frozenset[str]:
    """The names the package's ``__init__`` takes from the module: each name of a
    ``from .mod import a, b``, or ``*`` for ``from .mod import *``; also through a
    sibling module it star-imports that takes them in turn (``from .colorutils import *``
    where ``colorutils.py`` has ``from .convert import *``). ``sibling``: a sibling
    module's source by its name, or None."""
    package, _, last = import_name.rpartition(".")
    if not init_source or not package:
        return frozenset()
    found: set[str] = set()
    starred: set[str] = set()  # siblings the package star-imports
    for module, names in _sibling_imports(init_source, package):
        found.update(names if module == last else [])
        starred.update([module] if "*" in names and module != last else [])
    for module in starred:
        taken = _sibling_imports(sibling(module) or "", package)
        if any(name == last and "*" in names for name, names in taken):
            found.add("*")
    return frozenset(found)


def ancestor_reexports(
    import_name: str, offered: frozenset[str], init_of: Callable[[str], str | None]
) -> dict[str, frozenset[str]]:
    """The module's names each package above its own offers, by the package's dotted name:
    ``netaddr/__init__.py`` doing ``from netaddr.ip.sets import IPSet`` (or ``from .ip.sets
    import *``) offers ``IPSet`` of ``netaddr.ip.sets``, and one taking a name from a
    nearer package that offers it (``from netaddr.ip import IPSet``) does too.
    ``offered``: what the module's own package offers (``package_reexports``);
    ``init_of``: a package's ``__init__`` source by its dotted name, or None."""
    parts = import_name.split(".")
    by_package = {".".join(parts[:-1]): offered}
    found: dict[str, frozenset[str]] = {}
    for depth in range(len(parts) - 2, 0, -1):
        package = ".".join(parts[:depth])
        names: set[str] = set()
        for module, imported in _from_imports(init_of(package) or "", package):
            source = frozenset({"*"}) if module == import_name else by_package.get(module)
            if not source:
                continue
            if "*" in imported:
                names |= source
            else:
                names.update(n for n in imported if _offered(n, source))
        by_package[package] = found[package] = frozenset(names)
    return {package: names for package, names in found.items() if names}


def _from_imports(source: str, package: str) -> Iterator[tuple[str, list[str]]]:
    """Each ``from`` import in ``source``, a module directly in ``package`` (its ``__init__``
    or a sibling): the dotted module it names (a relative one resolved) and the names."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    here = f"{package}.__init__"  # a relative import counts from the package itself
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (dotted := _absolute(node, here)):
            yield dotted, [a.name for a in node.names]


def _sibling_imports(source: str, package: str) -> Iterator[tuple[str, list[str]]]:
    """Each ``from`` import in ``source`` of a module of ``package`` (``from .convert import
    a`` or ``from pkg.convert import a``): that module's name and the names imported."""
    for dotted, names in _from_imports(source, package):
        sibling = dotted.removeprefix(f"{package}.")
        if sibling != dotted and "." not in sibling:
            yield sibling, names


def _known_targets(info: ModuleInfo) -> dict[str, str]:
    """Member name → the kind of target: ``function``, ``class``, or ``Class.method``."""
    known = {f.name: "function" for f in info.functions}
    for cls in info.classes:
        # no constructor described: built as ``Cls()`` (no ``__init__`` of its own, as
        # pkginfo's ``Distribution``), or one without a signature; the tests' calls say how
        built = not cls.is_abstract and not cls.hidden
        known[cls.name] = "class" if built else ""
        for method in cls.methods:
            known[f"{cls.name}.{method.name}"] = method.kind
        known.update((f"{cls.name}.{name}", "property") for name in cls.properties)
    return known


def _optional_parameters(info: ModuleInfo) -> dict[str, tuple[str, ...]]:
    """Each target's parameters that may be passed positionally or by name, in order:
    its name when it has a default, else ``""`` (see ``_literal_arguments``)."""

    def optional(func: CallableInfo) -> tuple[str, ...]:
        return tuple(p.name if p.has_default else "" for p in func.parameters)

    found = {f.name: optional(f) for f in info.functions}
    for cls in info.classes:
        if cls.constructor is not None:
            found[cls.name] = optional(cls.constructor)
        found.update((f"{cls.name}.{m.name}", optional(m)) for m in cls.methods)
    return found


@dataclass(frozen=True)
class _Built(Reference):
    """An instance of the module's class, as the constructor call that built it (its
    ``source``: ``Game(3)``, an argument the runner can build in turn)."""

    call: Call = field(kw_only=True)


@dataclass(frozen=True)
class _Alias:
    """A name in a test standing for one of the module's functions: a class attribute
    ``unidecode = staticmethod(unidecode_expect_ascii)`` that a mixin's tests call as
    ``self.unidecode(...)``, one subclass per implementation."""

    member: str


@dataclass(frozen=True)
class _Made(Reference):
    """What one of the module's functions returned, called with literal arguments
    (``dot = dotty({"a": {"b": 1}})``): its ``source``, on which a method call is kept
    as a call on that expression's object (``Call.via``)."""


@dataclass(frozen=True)
class _Package(Reference):
    """What a call of the package's other code made (``div()`` of ``dominate.tags``, built
    on the module's ``dom_tag``): its ``source`` by its path in the package, on which a
    method of the module's classes is kept as a call on that object (``Call.via``)."""


@dataclass(frozen=True)
class _Held(Reference):
    """One of the module's own instances (iso3166's ``countries``): its name in the module
    (``source``), on which a method call is kept as a call on that object (``Call.via``),
    and its class."""

    cls: str = field(kw_only=True)


def _held(node: ast.expr, names: _Names) -> _Held | None:
    """The module's own instance ``node`` names (``countries``, ``iso3166.countries``)."""
    member = _member(node, names)
    if member is None or member not in names.held:
        return None
    return _Held(member, cls=names.held[member])


def _receiver(node: ast.expr, names: _Names, env: Env, build: CallValue) -> object:
    """What a method is called on: the module's own instance ``node`` names, or its value."""
    return _held(node, names) or evaluate(node, env, build)


def _built(call: Call) -> _Built:
    return _Built(_call_text(call.target, call.args, call.kwargs), call=call)


def _receiver_call(
    receiver: object,
    method: str,
    known: Mapping[str, str],
    classes: Mapping[str, str],
    kind: str = "method",
) -> tuple[str, Call | None, str | None] | None:
    """A method called (or a property read, ``kind``) on ``receiver``: its target, and the
    constructor call that built the instance or the expression that returned it (``via``);
    None when it is not one of the module's. An object a function returned is taken for
    the one class of the module that defines ``method`` (``classes``: member name -> that
    class, when one)."""
    if isinstance(receiver, _Built):
        target = f"{receiver.call.target}.{method}"
        return (target, receiver.call, None) if known.get(target) == kind else None
    if isinstance(receiver, _Held):
        target = f"{receiver.cls}.{method}"
        return (target, None, receiver.source) if known.get(target) == kind else None
    if (
        isinstance(receiver, _Made | _Package)
        and known.get(f"{classes.get(method)}.{method}") == kind
    ):
        return f"{classes[method]}.{method}", None, receiver.source
    return None


def _owners(known: Mapping[str, str]) -> dict[str, str]:
    """Method or property name -> the module's one class that defines it (names several
    define are left out)."""
    owners: dict[str, list[str]] = {}
    for target, kind in known.items():
        owner, _, method = target.partition(".")
        if method and kind in ("method", "property"):
            owners.setdefault(method, []).append(owner)
    return {method: found[0] for method, found in owners.items() if len(found) == 1}


def _call_text(target: str, args: Sequence[str], kwargs: Sequence[tuple[str, str]]) -> str:
    """``target(args, name=value)``, from the arguments' sources."""
    arguments = [*args, *(f"{name}={value}" for name, value in kwargs)]
    return f"{target}({', '.join(arguments)})"


def _calls_in(
    tree: ast.Module,
    names: _Names,
    known: Mapping[str, str],
    drivers: list[tuple[int, Call]] | None = None,
    files: DataFiles | None = None,
    path: str = "",
    inherited: Mapping[str, Definition] = NONE,
) -> Iterator[tuple[int, Call]]:
    """The module's calls in ``tree``, each with its rank among the calls one site makes
    (a call inside a loop over a table, or in a parametrized test, is made once per row);
    the package's other calls go to ``drivers``, ranked the same way. ``files``: the
    data files the test file ``path`` reads; ``inherited``: the fixtures the conftests
    above it define (``fixtures.definitions``)."""
    module, build = _file_env(tree, names, known, files, path)
    helpers = _helpers(tree)
    build = _Returned(helpers.functions, module, build)
    fixtures = fixture_values({**inherited, **definitions(tree, module, build)})
    reader = _Reader(names, known, build, module, helpers, drivers)
    for body, envs, cls in _scopes(tree, module, fixtures, build):
        yield from reader.calls(body, envs, cls, 0)


class _Returned:
    """Reads calls as ``build`` does, and a call of one of the test file's own functions as
    what it returns: ``dist = _make_distribution(None)``, whose body builds the module's
    ``Distribution()``, sets its attributes and returns it, is that instance, on which
    ``dist.parse("Metadata-Version: 1.0")`` is kept (pkginfo's tests make every object
    so). The first return whose value is known, with the helper's parameters bound to
    what the call passes; a helper that calls itself is not followed."""

    def __init__(self, functions: Mapping[str, _Function], module: Env, build: CallValue):
        self.functions = functions
        self.module = module
        self.build = build
        self.active: set[str] = set()

    def __call__(self, node: ast.Call, env: Env) -> object:
        value = self.build(node, env)
        func = node.func
        if value is not MISSING or not isinstance(func, ast.Name):
            return value
        function = self.functions.get(func.id)
        if function is None or func.id in self.active or len(self.active) >= MAX_HELPER_DEPTH:
            return value
        self.active.add(func.id)
        try:
            return self._returned(function, node, env)
        finally:
            self.active.discard(func.id)

    def _returned(self, function: _Function, node: ast.Call, env: Env) -> object:
        start = {**self.module, **_parameters(function, node, env, False, self, self.module)}
        for statement, in_force in walk(function.body, [start], self):
            if isinstance(statement, ast.Return) and statement.value is not None:
                for inner in in_force:
                    value = evaluate(statement.value, inner, self)
                    if value is not MISSING:
                        return value
        return MISSING


def _file_env(
    tree: ast.Module,
    names: _Names,
    known: Mapping[str, str],
    files: DataFiles | None,
    path: str,
) -> tuple[Env, CallValue]:
    """What the test file's top level binds (its imports of the module and the package,
    its constants), and how its calls are read."""
    build: CallValue = partial(_instance, names, known)
    shared: dict[str, object] = {}
    if files is not None:
        build = files.call(path, build)
        shared.update(files.start(path))
    shared.update((local, Reference(name)) for local, name in names.shared.items())
    shared.update(  # ``XSD_NAMESPACE`` of ``elementpath.namespaces``: by its path
        (local, _Package(path))
        for local, path in names.paths.items()
        if _constant_name(local) and "." in path and local not in shared
    )
    shared.update(  # ``countries``, passed on as an argument too
        (local, _Held(member, cls=names.held[member]))
        for local, member in names.local.items()
        if member in names.held
    )
    shared.update(
        (local, _Alias(member))
        for local, member in names.local.items()
        if known.get(member) in ("function", "class") and local not in shared
    )
    # ``LOCK_TYPE = filelock.FileLock`` in a mixin's subclass, called as ``self.LOCK_TYPE(...)``
    shared.update(
        (f"{prefix}.{member}", _Alias(member))
        for prefix, member in _qualified_members(names, known)
        if f"{prefix}.{member}" not in shared
    )
    return settle(tree.body, shared, build), build


def _qualified_members(names: _Names, known: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """The module's top-level functions and classes as the test file can name them through
    a module or package it imported (``filelock`` and ``FileLock``, for ``filelock.FileLock``)."""
    members = [m for m, kind in known.items() if "." not in m and kind in ("function", "class")]
    for prefix in names.modules:
        yield from ((prefix, member) for member in members)
    for prefix, offers in names.packages.items():
        yield from ((prefix, member) for member in members if _offered(member, offers))


@dataclass(frozen=True)
class _Reader:
    """Reads the module's calls out of test bodies, following the test file's own helpers
    (``check(text, expected)``, ``self._assert_render(expected, template)``) with their
    parameters bound to what each call site passes."""

    names: _Names
    known: Mapping[str, str]
    build: CallValue
    module: Env
    helpers: _Helpers
    drivers: list[tuple[int, Call]] | None = None

    def calls(
        self, body: Sequence[ast.stmt], envs: Sequence[Env], cls: str | None, depth: int
    ) -> Iterator[tuple[int, Call]]:
        history = _History(self.build)
        for node, in_force in walk(body, envs, self.build):
            if isinstance(node, ast.stmt):
                history.statement(node, in_force)
            if isinstance(node, ast.Call | ast.FormattedValue):
                formatted = (_formatted(node, env, self.build, self.known) for env in in_force)
                yield from enumerate(dict.fromkeys(c for cs in formatted for c in cs))
            special = (
                history.after(receiver, call)
                for env in in_force
                for receiver, call in _special_calls(node, self.names, env, self.build)
            )
            yield from enumerate(dict.fromkeys(special))
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                read = (_property_read(node, self.names, env, self.build) for env in in_force)
                found = [history.after(node.value, call) for call in read if call is not None]
                yield from enumerate(dict.fromkeys(found))
            if not isinstance(node, ast.Call):
                continue
            found = _calls(node, self.names, self.known, in_force, self.build)
            if isinstance(node.func, ast.Attribute | ast.Name):
                found = [history.after(_receiver_of(node, call), call) for call in found]
            yield from enumerate(found)
            if found or depth >= MAX_HELPER_DEPTH:
                continue
            helper = self.helpers.find(node.func, cls)
            path = _package_path(node.func, self.names)
            if path is not None and self.drivers is not None:
                ran = (_literal_arguments(node, env, self.build) for env in in_force)
                made = [Call(path, *arguments) for arguments in ran if arguments is not None]
                self.drivers.extend(enumerate(dict.fromkeys(made)))
            elif helper is not None:
                owner, function, bound = helper
                inner = [self._entered(function, node, env, bound) for env in in_force]
                yield from self.calls(function.body, inner, owner, depth + 1)

    def _entered(self, function: _Function, node: ast.Call, env: Env, bound: bool) -> Env:
        """The environment a helper's body starts in, called by ``node`` from ``env``: the
        module's names, what ``self`` holds, and its parameters bound to the arguments."""
        start = {k: v for k, v in env.items() if k.startswith("self.") or k in self.module}
        return {**start, **_parameters(function, node, env, bound, self.build, self.module)}


@dataclass(frozen=True)
class _Helpers:
    """The test file's functions by name, and each class's methods (its bases' too)."""

    functions: Mapping[str, _Function]
    classes: Mapping[str, ast.ClassDef]

    def find(self, func: ast.expr, cls: str | None) -> tuple[str | None, _Function, bool] | None:
        """What ``func`` calls, when it is one of the file's helpers: its class (for a
        method), its definition, and whether ``self`` is bound (the first parameter skipped)."""
        if isinstance(func, ast.Name) and func.id in self.functions:
            return None, self.functions[func.id], False
        owner = func.value if isinstance(func, ast.Attribute) else None
        if cls is None or not isinstance(owner, ast.Name) or owner.id not in ("self", "cls"):
            return None
        assert isinstance(func, ast.Attribute)
        for name in _lineage(self.classes, cls):
            for member in self.classes[name].body:
                if isinstance(member, _Function) and member.name == func.attr:
                    static = any(ast.unparse(d) == "staticmethod" for d in member.decorator_list)
                    return cls, member, not static
        return None


def _lineage(classes: Mapping[str, ast.ClassDef], cls: str) -> list[str]:
    """``cls`` and its bases defined in the same file, nearest first."""
    order: list[str] = []
    todo = [cls]
    while todo:
        name = todo.pop(0)
        if name in classes and name not in order:
            order.append(name)
            todo += [ast.unparse(b) for b in classes[name].bases]
    return order


def _helpers(tree: ast.Module) -> _Helpers:
    functions = {
        node.name: node
        for node in tree.body
        if isinstance(node, _Function) and not any(map(is_fixture, node.decorator_list))
    }
    classes = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    return _Helpers(functions, classes)


def _parameters(
    function: _Function, node: ast.Call, env: Env, bound: bool, build: CallValue, module: Env
) -> dict[str, object]:
    """``function``'s parameters as ``node`` passes them from ``env`` (its defaults, from
    the module, where it passes none; unknown as ``MISSING``)."""
    spec = function.args
    positional = [*spec.posonlyargs, *spec.args][1 if bound else 0 :]
    defaults = dict(
        zip([a.arg for a in reversed(positional)], reversed(spec.defaults), strict=False)
    )
    defaults.update((a.arg, d) for a, d in zip(spec.kwonlyargs, spec.kw_defaults, strict=True) if d)
    values: dict[str, object] = {
        name: evaluate(default, module, build) for name, default in defaults.items()
    }
    values.update((a.arg, MISSING) for a in [*positional, *spec.kwonlyargs] if a.arg not in values)
    given = []
    for arg in node.args:
        if isinstance(arg, ast.Starred):
            given.append(MISSING)
            break
        given.append(evaluate(arg, env, build))
    values.update((a.arg, value) for a, value in zip(positional, given, strict=False))
    if spec.vararg is not None:
        extra = given[len(positional) :]
        values[spec.vararg.arg] = MISSING if MISSING in extra else tuple(extra)
    extra_keywords: dict[str, object] = {}
    for keyword in node.keywords:
        value = MISSING if keyword.arg is None else evaluate(keyword.value, env, build)
        if keyword.arg in values:
            values[keyword.arg] = value
        elif keyword.arg is not None:
            extra_keywords[keyword.arg] = value
    if spec.kwarg is not None:
        known = MISSING not in extra_keywords.values() and all(k.arg for k in node.keywords)
        values[spec.kwarg.arg] = extra_keywords if known else MISSING
    return values


def _instance(names: _Names, known: Mapping[str, str], node: ast.Call, env: Env) -> object:
    """``_made``, once per call and environment: a method chain's receiver is read by
    ``_call`` (twice: the method, and the object it is called on) and by
    ``_package_method``, and each of those reads the receiver's own receiver again, so a
    chain of ten calls was read tens of thousands of times (environments are never
    changed once made)."""
    key = (id(node), id(env))
    hit = names.made.get(key)
    if hit is None:
        hit = names.made[key] = (node, env, _made(names, known, node, env))
    return hit[2]


def _made(names: _Names, known: Mapping[str, str], node: ast.Call, env: Env) -> object:
    """``Game(3)``: an instance of the module's class, for the names that keep it; or what
    a call of its package's other code with literal arguments makes (``G =
    nx.DiGraph([(1, 2)])`` for a graph algorithm), kept as that call's source by its
    path in the package (``networkx.DiGraph([(1, 2)])``), which the runner evaluates and
    the writer imports the package for."""
    if _is_name(node.func, "staticmethod", "classmethod") and len(node.args) == 1:
        # ``staticmethod(unidecode)`` in a class body: the module's function, by name
        member = _member(node.args[0], names)
        if member is not None and known.get(member) == "function":
            return _Alias(member)
        wrapped = evaluate(node.args[0], env)
        return _Alias(wrapped.member) if isinstance(wrapped, _Alias) else MISSING
    built = _call(node, names, known, env)
    if built is not None and known.get(built.target) == "class":
        return _built(built)
    if built is not None and known.get(built.target) == "function" and not built.on_instance:
        return _Made(_call_text(built.target, built.args, built.kwargs))
    if built is not None:
        return MISSING
    package = _package_path(node.func, names)
    build = partial(_instance, names, known)
    stdlib = _stdlib_value(node.func, names)
    path = package or stdlib or _package_method(node.func, names, env, build)
    if path is None or _member(node.func, names) in known:
        return MISSING
    arguments = _literal_arguments(node, env, build)
    if arguments is None:
        return MISSING
    return (Reference if path == stdlib else _Package)(_call_text(path, *arguments))


def _constant_name(name: str) -> bool:
    """``XSD_NAMESPACE``: a name written as a constant's."""
    return name.isupper() and name.lstrip("_")[:1].isalpha()


def _package_method(func: ast.expr, names: _Names, env: Env, build: CallValue) -> str | None:
    """``parser.parse`` on what the package's other code made (``parser =
    XPath2Parser()``), a method not of the module: its source on that object's, so that
    what it returns (a token of the module's class) is known by how it was made."""
    if not isinstance(func, ast.Attribute) or func.attr.startswith("_"):
        return None
    if func.attr in names.owners:
        return None  # the module's own method, read as its call
    receiver = evaluate(func.value, env, build)
    return f"{receiver.source}.{func.attr}" if isinstance(receiver, _Package) else None


#: The standard library's value types a test builds from literals, which the runner and the
#: writer name by their module (``values.STDLIB_MODULES``): an in-memory file holding a
#: whole document (``StringIO('''msgid "foo"...''')``), a date, a decimal.
STDLIB_VALUES = frozenset(
    {
        "io.StringIO",
        "io.BytesIO",
        "datetime.date",
        "datetime.datetime",
        "datetime.time",
        "datetime.timedelta",
        "decimal.Decimal",
        "fractions.Fraction",
        "logging.LogRecord",
        "uuid.UUID",
    }
)


def _stdlib_names(node: ast.AST) -> Iterator[tuple[str, str]]:
    """What an import binds of the standard library's value modules: ``StringIO`` →
    ``io.StringIO``, ``io`` → ``io``."""
    if isinstance(node, ast.ImportFrom) and node.module in STDLIB_MODULES and not node.level:
        yield from ((a.asname or a.name, f"{node.module}.{a.name}") for a in node.names)
    elif isinstance(node, ast.Import):
        yield from ((a.asname or a.name, a.name) for a in node.names if a.name in STDLIB_MODULES)


def _stdlib_value(func: ast.expr, names: _Names) -> str | None:
    """``io.StringIO`` for ``StringIO`` (``from io import StringIO``) or ``io.StringIO``
    (``import io``), when it is one of ``STDLIB_VALUES``; else None."""
    if isinstance(func, ast.Name):
        path = names.stdlib.get(func.id)
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        module = names.stdlib.get(func.value.id)
        path = f"{module}.{func.attr}" if module else None
    else:
        path = None
    return path if path in STDLIB_VALUES else None


def _scopes(
    tree: ast.Module, module: Env, fixtures: Mapping[str, object], build: CallValue
) -> Iterator[tuple[list[ast.stmt], list[Env], str | None]]:
    """Each function's body (a test) with the environments it starts in, and the module's
    own statements. A test starts with the module's constants, the fixtures it asks for
    by parameter, a row of each ``parametrize`` on it or its class, and, in a class, the
    class's attributes and what any of its methods (``setUp``) stores on ``self``; and
    the name of the class each function is a method of (None for the others)."""
    statements = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    yield statements, [module], None
    classes = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    own: dict[str, Env] = {}
    bodies: dict[str, Env] = {}
    for name, cls_node in classes.items():
        bodies[name] = settle(cls_node.body, module, build)  # what its decorators see
        own[name] = _class_attributes(cls_node, module, bodies[name], build)
    # a method runs in its class and in every subclass of the file, with what each binds
    # (a mixin's tests, one subclass per implementation: ``unidecode = staticmethod(...)``)
    in_class: dict[int, list[tuple[ast.ClassDef, Env, Env]]] = {}
    for name, cls_node in classes.items():
        inherited: dict[str, object] = {}  # the bases' first, the class's own over them
        lineage = _lineage(classes, name)
        for ancestor in reversed(lineage):
            inherited.update(own[ancestor])
        for ancestor in lineage:
            for member in classes[ancestor].body:
                if isinstance(member, _Function):
                    runs = in_class.setdefault(id(member), [])
                    runs.append((cls_node, bodies[name], inherited))
    for node in ast.walk(tree):
        if not isinstance(node, _Function):
            continue
        parameters = {a.arg for a in [*node.args.posonlyargs, *node.args.args]}
        for cls, decorated, attributes in in_class.get(id(node), [(None, module, {})]):
            start = {k: v for k, v in module.items() if k not in parameters}
            start.update(attributes)
            start.update((name, fixtures[name]) for name in parameters if name in fixtures)
            decorators = [*node.decorator_list, *(cls.decorator_list if cls else [])]
            rows = parametrized(decorators, decorated, build)
            yield (
                node.body,
                [{**start, **{k: v for k, v in row.items() if k in parameters}} for row in rows],
                cls.name if cls else None,
            )


def _class_attributes(cls: ast.ClassDef, module: Env, body: Env, build: CallValue) -> Env:
    """The class's attributes as its methods see them (``self.CASES``, ``TestX.CASES``),
    and what any method stores on ``self`` (``self.parser = Parser()`` in ``setUp``)."""
    attributes: dict[str, object] = {}
    for name, value in body.items():
        if module.get(name, MISSING) is not value:
            attributes[f"self.{name}"] = attributes[f"{cls.name}.{name}"] = value
    for member in cls.body:
        if isinstance(member, _Function):
            stored = settle(member.body, module, build)
            attributes.update((k, v) for k, v in stored.items() if k.startswith("self."))
            # ``cls.parser = Parser()`` in ``setUpClass``: what its tests read as ``self.parser``
            attributes.update(
                (f"self.{k[4:]}", v) for k, v in stored.items() if k.startswith("cls.")
            )
    return attributes


def _calls(
    node: ast.Call,
    names: _Names,
    known: Mapping[str, str],
    envs: Sequence[Env],
    build: CallValue | None = None,
) -> list[Call]:
    """``node`` as calls of the module, one per environment its arguments are known in."""
    node = called_through(node) or node
    found = (_call(node, names, known, env, build) for env in envs)
    return list(dict.fromkeys(c for c in found if c is not None))


#: The checks that call what they are given (``assertRaises(Error, func, *args, **kw)``):
#: their name, and where the callable is among their arguments.
_CALLING_CHECKS = {
    "assertRaises": 1,
    "assertWarns": 1,
    "assertRaisesRegex": 2,
    "assertRaisesRegexp": 2,
    "assertWarnsRegex": 2,
    "raises": 1,  # ``pytest.raises(Error, func, *args)``
    "warns": 1,
}


def called_through(node: ast.Call) -> ast.Call | None:
    """The call a check makes of what it is given, as if written out: argcomplete's tests
    call ``self.assertRaises(SystemExit, autocomplete, parser, exit_method=sys.exit)``;
    None when ``node`` is no such check."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    at = _CALLING_CHECKS.get(name)
    if at is None or len(node.args) <= at or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    keywords = [k for k in node.keywords if k.arg not in ("msg", "match")]
    made = ast.Call(func=node.args[at], args=node.args[at + 1 :], keywords=keywords)
    return ast.copy_location(made, node)


def _call(
    node: ast.Call,
    names: _Names,
    known: Mapping[str, str],
    env: Env,
    build: CallValue | None = None,
) -> Call | None:
    """``node`` as a call of the module in ``env``, when it is one and every argument's
    value is known and literal (``build``: the calls whose values are known besides an
    instance of the module's class: a data file's content)."""
    build = build or partial(_instance, names, known)
    func = node.func
    target, instance, via = _target(func, names, known, env, build)
    if not target:
        return None
    arguments = _literal_arguments(node, env, build, names.optional.get(target))
    if arguments is None:
        return None
    return _on_receiver(target, instance, via, *arguments)


def _target(
    func: ast.expr, names: _Names, known: Mapping[str, str], env: Env, build: CallValue
) -> tuple[str, Call | None, str | None]:
    """What a call of ``func`` calls in the module (``""`` when nothing), and for a method,
    the constructor call that built its instance or the expression that returned it."""
    member = _member(func, names)
    if member is not None and known.get(member) in ("function", "class"):
        return member, None, None
    alias = (
        _receiver(func, names, env, build) if isinstance(func, ast.Name | ast.Attribute) else None
    )
    if isinstance(alias, _Alias):  # ``self.unidecode(...)``, ``f = parse; f(...)``
        return alias.member, None, None
    called = _receiver_call(alias, CALL, known, names.owners)
    if called is not None:  # ``schema = Schema(...)`` then ``schema(data)``
        return called
    if not isinstance(func, ast.Attribute):
        return "", None, None
    owner = _member(func.value, names)
    static = f"{owner}.{func.attr}"
    if owner is not None and known.get(static, "") in ("staticmethod", "classmethod"):
        return static, None, None  # ``Version.parse("1.0")``
    receiver = _receiver(func.value, names, env, build)
    found = _receiver_call(receiver, func.attr, known, names.owners)
    return found if found is not None else ("", None, None)


def _on_receiver(
    target: str,
    instance: Call | None,
    via: str | None,
    args: tuple[str, ...] = (),
    kwargs: tuple[tuple[str, str], ...] = (),
    attribute: bool = False,
) -> Call:
    """A call of ``target`` (``_target``, ``_receiver_call``): on the instance its
    constructor call built, on the object ``via`` returned, or of a function."""
    if instance is not None:
        return Call(target, args, kwargs, instance.args, instance.kwargs, attribute=attribute)
    return Call(target, args, kwargs, attribute=attribute, via=via)


def _sources(nodes: Sequence[ast.expr], env: Env, build: CallValue) -> tuple[str, ...] | None:
    """The sources of the values ``nodes`` hold in ``env``; None when one is not known."""
    found = [source_of(evaluate(node, env, build)) for node in nodes]
    return None if None in found else tuple(s for s in found if s is not None)


def _special_calls(
    node: ast.AST, names: _Names, env: Env, build: CallValue
) -> list[tuple[ast.expr, Call]]:
    """The module's special methods ``node`` calls through syntax (``special_uses``), on an
    instance of its class, with every operand known in ``env``: each with its receiver."""
    found: list[tuple[ast.expr, Call]] = []
    for use in special_uses(node):
        if use.method not in OPERATORS:
            continue
        receiver = _receiver(use.receiver, names, env, build)
        target = _receiver_call(receiver, use.method, names.known, names.owners)
        operands = _sources(use.operands, env, build) if target is not None else None
        if target is not None and operands is not None:
            found.append((use.receiver, _on_receiver(*target, operands)))
    return found


def _receiver_of(node: ast.Call, call: Call) -> ast.expr:
    """The expression holding the object a method call ran on: ``s`` of ``s.add(x)``, and of
    ``s(x)`` when the object itself is called."""
    if call.target.endswith(f".{CALL}") or not isinstance(node.func, ast.Attribute):
        return node.func
    return node.func.value


def _property_read(node: ast.Attribute, names: _Names, env: Env, build: CallValue) -> Call | None:
    """``entry.msgid``: a property of the module's class read on an instance of it."""
    receiver = _receiver(node.value, names, env, build)
    found = _receiver_call(receiver, node.attr, names.known, names.owners, "property")
    return _on_receiver(*found, attribute=True) if found is not None else None


#: Steps a call is read after, at most: a longer setup is not rebuilt step by step.
MAX_STEPS = 24


class _History:
    """The method calls a test body made on each of its objects so far, by the receiver's
    source (``s = IPSet()``, ``s.add("10.0.0.0/24")``, ``s["k"] = 1``): a later call on the
    same object is read as made after them (``Call.before``), so the state the test built
    is the state the call runs on. A step whose arguments are not known, or that is not a
    method of the module, leaves the object's state unknown: later calls on it are read
    without steps, as a fresh object's. Assigning to the name starts a new object. The
    first environment's arguments are taken (a table's rows share the steps)."""

    def __init__(self, build: CallValue) -> None:
        self.build = build
        self.steps: dict[str, list[Step] | None] = {}
        self.pending: list[tuple[str, Step | None]] = []
        self.rebound: list[str] = []

    def statement(self, node: ast.stmt, envs: Sequence[Env]) -> None:
        """Take in what the previous statement did, then read what ``node`` does."""
        for key, step in self.pending:
            steps = self.steps.get(key, [])
            grown = None if step is None or steps is None else [*steps, step]
            self.steps[key] = grown if grown is None or len(grown) <= MAX_STEPS else None
        for key in self.rebound:
            self.steps.pop(key, None)
        env = envs[0] if envs else {}
        read = _steps_of(node, env, self.build)
        keyed = ((_receiver_key(receiver), step) for receiver, step in read)
        self.pending = [(name, step) for name, step in keyed if name is not None]
        self.rebound = _rebound_keys(node)

    def after(self, receiver: ast.expr, call: Call) -> Call:
        """``call`` on ``receiver``, after the steps the body made on it so far."""
        key = _receiver_key(receiver)
        steps = self.steps.get(key) if key is not None else None
        return replace(call, before=tuple(steps)) if steps and call.on_instance else call


def _steps_of(node: ast.stmt, env: Env, build: CallValue) -> Iterator[tuple[ast.expr, Step | None]]:
    """What a statement does to the module's objects: each method call on one, in the order
    they run (``self.assertEqual("+4", f.input_digit("4"))`` holds one; one its class
    inherits too), an item set or deleted, an attribute set; None for a step whose
    arguments are not known."""
    for call in _calls_run(node):
        func = call.func
        if isinstance(func, ast.Attribute) and _is_ours(evaluate(func.value, env, build)):
            arguments = _literal_arguments(call, env, build)
            yield func.value, Step(func.attr, *arguments) if arguments is not None else None
    if isinstance(node, ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Attribute) and _is_ours(evaluate(target.value, env, build)):
                shown = source_of(evaluate(node.value, env, build))
                step = Step("__setattr__", (repr(target.attr), shown)) if shown else None
                yield target.value, step
    for use in special_uses(node):  # ``d[k] = v``, ``del d[k]``
        if _is_ours(evaluate(use.receiver, env, build)):
            operands = _sources(use.operands, env, build)
            yield use.receiver, Step(use.method, operands) if operands is not None else None


def _calls_run(node: ast.AST) -> Iterator[ast.Call]:
    """The calls a statement makes, in the order they run (arguments before the call that
    takes them); not those of a lambda or comprehension, which may not run."""
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, ast.Lambda | ast.comprehension | ast.stmt):
            yield from _calls_run(child)
    if isinstance(node, ast.Call):
        yield node


def _is_ours(value: object) -> bool:
    return isinstance(value, _Built | _Made)


def _receiver_key(node: ast.expr) -> str | None:
    """``s`` or ``self.s``: a name the test keeps an object under; None for an expression."""
    inner = node
    while isinstance(inner, ast.Attribute):
        inner = inner.value
    return ast.unparse(node) if isinstance(inner, ast.Name) else None


def _rebound_keys(node: ast.stmt) -> list[str]:
    """The names (``s``, ``self.s``) a statement binds anew."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    else:
        return []
    return [k for t in targets if not isinstance(t, ast.Subscript) and (k := _receiver_key(t))]


def _is_name(node: ast.expr, *names: str) -> bool:
    return isinstance(node, ast.Name) and node.id in names


def _formatted(
    node: ast.Call | ast.FormattedValue, env: Env, build: CallValue, known: Mapping[str, str]
) -> list[Call]:
    """An instance of the module's class formatted with a spec, as its ``__format__`` call:
    ``format(x, ".2h")``, ``"{:.2h}".format(x)`` or ``f"{x:.2h}"``."""
    pairs: list[tuple[ast.expr, object]] = []
    if isinstance(node, ast.FormattedValue):
        if node.conversion == -1:  # ``!r`` formats a str, not the instance
            pairs.append((node.value, _spec(node.format_spec, env, build)))
    elif isinstance(node.func, ast.Name) and node.func.id == "format" and node.args:
        spec = evaluate(node.args[1], env, build) if len(node.args) > 1 else ""
        pairs.append((node.args[0], spec))
    elif isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        template = evaluate(node.func.value, env, build)
        if isinstance(template, str):
            pairs += _fields(template, node.args)
    found = []
    for value, spec in pairs:
        built = evaluate(value, env, build)
        target = f"{built.call.target}.__format__" if isinstance(built, _Built) else ""
        if isinstance(spec, str) and known.get(target) == "method":
            found.append(Call(target, (repr(spec),), (), built.call.args, built.call.kwargs))
    return found


def _spec(spec: ast.expr | None, env: Env, build: CallValue) -> object:
    """An f-string field's format spec (``.2h`` in ``f"{x:.2h}"``), or ``MISSING``."""
    if spec is None:
        return ""
    parts = [evaluate(v, env, build) for v in getattr(spec, "values", ())]
    return "".join(parts) if all(isinstance(p, str) for p in parts) else MISSING


def _fields(template: str, args: Sequence[ast.expr]) -> list[tuple[ast.expr, object]]:
    """The positional arguments ``template.format(*args)`` formats, each with its spec."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        return []
    pairs: list[tuple[ast.expr, object]] = []
    automatic = 0
    for _, field_name, spec, _ in parsed:
        if field_name is None:
            continue
        index = automatic if field_name == "" else int(field_name) if field_name.isdigit() else -1
        automatic += field_name == ""
        if 0 <= index < len(args) and not isinstance(args[index], ast.Starred):
            pairs.append((args[index], spec or ""))
    return pairs


def _package_path(func: ast.expr, names: _Names) -> str | None:
    """The dotted path ``func`` names in the module's package (``json.loads`` with
    ``import hjson as json``: ``hjson.loads``), outside the module; None otherwise."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.insert(0, func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in names.paths:
        return None
    path = ".".join([names.paths[func.id], *parts])
    if "." not in path or path == names.own or path.startswith(f"{names.own}."):
        return None
    return path


def _member(func: ast.expr, names: _Names) -> str | None:
    """The module member ``func`` names: ``parse`` (imported) or ``mod.parse``."""
    if isinstance(func, ast.Name):
        return names.local.get(func.id)
    if isinstance(func, ast.Attribute) and ast.unparse(func.value) in names.modules:
        return func.attr
    offers = (
        names.packages.get(ast.unparse(func.value)) if isinstance(func, ast.Attribute) else None
    )
    if isinstance(func, ast.Attribute) and offers is not None:
        return func.attr if _offered(func.attr, offers) else None
    if isinstance(func, ast.Attribute) and ast.unparse(func.value) in names.ancestors:
        # ``nx.ancestors(G, 2)``: the package's name when the module defines it publicly
        return func.attr if not func.attr.startswith("_") else None
    return None


def _literal_arguments(
    node: ast.Call, env: Env, build: CallValue, optional: Sequence[str] | None = None
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]] | None:
    """The call's arguments as literal sources (``repr`` of their value), or None.

    ``optional``: the target's parameters in order, each name or ``""`` for one without
    a default. An unknown argument to a parameter with a default is left out, with the
    positional ones after it: ``cal.parse("11 PM", start)``, where ``start`` is the time
    the test ran, still gives the text."""
    given = _unpacked(node, env, build)
    if given is None:
        return None
    positional, keywords = given
    args: list[str] = []
    for index, value in enumerate(positional):
        text = source_of(value)
        if text is None:
            rest = list(optional or ())[index : len(positional)]
            if len(rest) < len(positional) - index or "" in rest:
                return None
            break  # every parameter from here on has a default
        args.append(text)
    kwargs: list[tuple[str, str]] = []
    for name, value in keywords:
        text = source_of(value)
        if text is None:
            if name not in (optional or ()):
                return None
            continue
        kwargs.append((name, text))
    return tuple(args), tuple(kwargs)


def _unpacked(
    node: ast.Call, env: Env, build: CallValue
) -> tuple[list[object], list[tuple[str, object]]] | None:
    """The values ``node`` passes, positional and by name, with ``*args`` and ``**kwargs``
    spread where they hold a known tuple or dict (a test helper passing on what its caller
    gave: ``jsmin(js_input, **kwargs)``); None when one of those is not known."""
    positional: list[object] = []
    for arg in node.args:
        if not isinstance(arg, ast.Starred):
            positional.append(evaluate(arg, env, build))
            continue
        spread = evaluate(arg.value, env, build)
        if not isinstance(spread, tuple | list):
            return None
        positional.extend(spread)
    keywords: list[tuple[str, object]] = []
    for keyword in node.keywords:
        if keyword.arg is not None:
            keywords.append((keyword.arg, evaluate(keyword.value, env, build)))
            continue
        spread = evaluate(keyword.value, env, build)
        if not isinstance(spread, dict) or not all(isinstance(k, str) for k in spread):
            return None
        keywords.extend(spread.items())
    return positional, keywords
