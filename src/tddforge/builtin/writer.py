"""The test writer: kept calls → a readable test module (pure: data in, source text out).

One test per kept call, grouped by the callable in the order given, named
from the callable and what it did (``test_classify_returns_negative``,
``test_parse_raises_value_error``; the input is added only to tell two tests
apart). A method called after others on the same instance (a sequence, see
``sequences``) is written as those calls in order, after the instance is
built. Inputs are literals. Assertions are only on what was deterministic:
a literal value by equality, an exception by type and message, another
object through its public literal attributes (or its type when it has none).
Timeouts, crashes and non-deterministic results are never written.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import itertools
import keyword
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from tddforge.builtin.explore import Call, CallResult, Outcome, Step
from tddforge.builtin.naming import camel, instance_name, snake
from tddforge.builtin.values import STDLIB_MODULES
from tddforge.target.probe import (
    ATTRIBUTE_METHODS,
    CALL,
    OPERATORS,
    ROUND_TRIPS,
    STATEMENTS,
)

_SLUG_MAX = 30
_NAME_MAX = 79  # ``def NAME() -> None:`` stays on one line of a 100-column file
_LOOPED = 3  # a step run this many times in a row is written as a loop
_BUILTINS = "builtins"
_REGEX_SPECIAL = re.compile(r"[.^$*+?{}\[\]\\|()]")
# the repr of a set of two or more strings, and a pattern any set's repr matches
_QUOTED = r"""(?:'[^'\\]*'|"[^"\\]*")"""
_SET_OF_STRINGS = re.compile(rf"\{{{_QUOTED}(?:, {_QUOTED})+\}}")
_ANY_SET = "r'\\{[^{}]*\\}'"
_SINGLETONS = ("True", "False", "None")  # compared with ``is`` (ruff E711/E712)
# modules the writer's own spellings use (a ``match=``, a round trip), by how they show
_WRITTEN_MODULES = {
    "re": re.compile(r"\bre\.(?:escape|fullmatch)\("),
    "copy": re.compile(r"\bcopy\.(?:copy|deepcopy)\("),
    "pickle": re.compile(r"\bpickle\.loads\(pickle\.dumps\("),
    "os": re.compile(r"\bos\.(?:environ|chdir)\b"),
    "tempfile": re.compile(r"\btempfile\.TemporaryDirectory\("),
    "itertools": re.compile(r"\bitertools\.islice\("),
    "operator": re.compile(r"\boperator\.(?:eq|ne)\("),
}
# ``x == None`` tests ``__eq__`` against None, and is what linters reject (E711, E712)
_SINGLETON_COMPARISONS = {"__eq__": "operator.eq", "__ne__": "operator.ne"}
_FIXTURE_TYPES = {"monkeypatch": "pytest.MonkeyPatch", "tmp_path": "pathlib.Path"}
#: a unittest body's start for a call that writes where it runs (pytest: ``tmp_path``)
_OWN_DIRECTORY = (
    "directory = tempfile.TemporaryDirectory()",
    "self.addCleanup(directory.cleanup)",
    "self.addCleanup(os.chdir, os.getcwd())",
    "os.chdir(directory.name)",
)
_ROUND_TRIP_NAMES = {
    "__copy__": "copy",
    "__deepcopy__": "deepcopy",
}  # the others are pickling's


@dataclass(frozen=True)
class WrittenTest:
    """One test function: its name and its source lines (without the ``def`` line), and
    the pytest fixtures it asks for (``monkeypatch``, for a variable it sets)."""

    name: str
    body: tuple[str, ...]
    fixtures: tuple[str, ...] = ()


@dataclass(frozen=True)
class Style:
    """How one framework spells the assertions the writer makes."""

    equal: str
    identical: str
    instance: str
    raises_matching: str
    raises: str
    matches: str  # a text ({0}) matched whole by a pattern ({1})


PYTEST = Style(
    equal="assert {0} == {1}",
    identical="assert {0} is {1}",
    instance="assert isinstance({0}, {1})",
    raises_matching="with pytest.raises({0}, match={1}):",
    raises="with pytest.raises({0}):",
    matches="assert re.fullmatch({1}, {0})",
)
UNITTEST = Style(
    equal="self.assertEqual({0}, {1})",
    identical="self.assertIs({0}, {1})",
    instance="self.assertIsInstance({0}, {1})",
    raises_matching="with self.assertRaisesRegex({0}, {1}):",
    raises="with self.assertRaises({0}):",
    matches="self.assertIsNotNone(re.fullmatch({1}, {0}))",
)


@dataclass(frozen=True)
class Names:
    """Where the tests import from: the module under test, and for each exception class
    raised that the module's own namespace or its package makes public, that home."""

    module: str
    homes: Mapping[str, str] = field(default_factory=dict)


def write_module(
    module: str,
    results: Sequence[CallResult],
    framework: str = "pytest",
    homes: Mapping[str, str] | None = None,
) -> str:
    """A test module for ``module`` (its import name) asserting what ``results`` observed.

    ``framework`` is the project's (``analysis.project.detect_framework``):
    pytest functions, or for ``unittest`` and ``django`` one ``unittest.TestCase``
    per function or class under test. ``homes``: exception class name → the module it
    is public in (``public_homes``), so a test expects the most specific public class.
    """
    style = PYTEST if framework == "pytest" else UNITTEST
    kept, tests, imports = _written(Names(module, homes or {}), results, style)
    body = "\n".join(line for _, t in tests for line in t.body)
    used = {name for name, pattern in _WRITTEN_MODULES.items() if pattern.search(body)}
    header = ['"""Tests written by tddforge\'s builtin generator from observed behaviour."""', ""]
    if any("tmp_path" in t.fixtures for _, t in tests):
        used.add("pathlib")  # its annotation
    modules = sorted((imports & set(STDLIB_MODULES)) | used)
    imports -= set(STDLIB_MODULES)
    stdlib = [f"import {name}" for name in sorted(modules)]
    if style is UNITTEST:
        stdlib.append("import unittest")
        stdlib += ["import unittest.mock"] if "unittest.mock." in body else []
    fixtures = any(t.fixtures for _, t in tests)
    uses_pytest = style is PYTEST and (fixtures or "pytest.raises(" in body)
    third = ["import pytest"] if uses_pytest else []
    elsewhere = {name for name in imports if ":" in name}  # ``home:Name``, not the module's
    imports -= elsewhere
    top = module.split(".")[0]
    # a callable of the module named like its package (``sparklines.sparklines.sparklines``):
    # the name is the module's, imported from it; ``import sparklines`` would shadow it
    called = {_own_name(r.call) for r in kept}
    package: list[str] = []
    if top != module and top in imports and top not in called:  # ``networkx.DiGraph(...)``
        imports.discard(top)
        package.append(f"import {top}")
    by_home: dict[str, list[str]] = {module: sorted(imports, key=_isort_key)} if imports else {}
    for home, name in sorted(entry.split(":", 1) for entry in elsewhere):
        by_home.setdefault(home, []).append(name)
    own = package + [
        f"from {home} import {', '.join(sorted(names, key=_isort_key))}"
        for home, names in sorted(by_home.items())
    ]
    blocks = [block for block in (stdlib, third, own) if block]
    lines = header + [line for block in blocks for line in [*block, ""]]
    lines += _pytest_functions(tests) if style is PYTEST else _test_cases(tests)
    return "\n".join(lines).rstrip("\n") + "\n"


def written_keys(
    module: str, results: Sequence[CallResult], framework: str = "pytest"
) -> dict[Call, str]:
    """Each written call's test, as the cover loop names tests (``name``, or
    ``TestClass::name`` for a unittest case); calls that are not written are absent."""
    style = PYTEST if framework == "pytest" else UNITTEST
    kept, tests, _ = _written(Names(module), results, style)
    cases = case_names([root for root, _ in tests])
    return {
        r.call: test.name if style is PYTEST else f"{cases[root]}::{test.name}"
        for r, (root, test) in zip(kept, tests, strict=True)
    }


def case_names(roots: Sequence[str]) -> dict[str, str]:
    """Each function's or class's ``TestCase`` name, in first-seen order, each once: a
    class ``Dotty`` and a function ``dotty`` would both be ``TestDotty``, and the second
    class of a name hides the first, so the later one says which it is
    (``TestDottyFunction``), or is numbered."""
    found: dict[str, str] = {}
    taken: set[str] = set()
    for root in dict.fromkeys(roots):
        name = f"Test{camel(root)}"
        if name in taken:
            name += "Function" if root[:1].islower() else "Class"
        base, number = name, 2
        while name in taken:
            name, number = f"{base}{number}", number + 1
        taken.add(name)
        found[root] = name
    return found


def _written(
    module: Names, results: Sequence[CallResult], style: Style
) -> tuple[list[CallResult], list[tuple[str, WrittenTest]], set[str]]:
    """The results that are written, in order (grouped by function or class), each one's
    test, and the names the tests import from the module."""
    kept = [
        r
        for r in results
        if r.deterministic and r.confirmed and r.outcome.kind in ("return", "raise")
    ]
    first_seen: dict[str, int] = {}
    for r in kept:
        first_seen.setdefault(r.call.target.split(".")[0], len(first_seen))
    kept.sort(key=lambda r: first_seen[r.call.target.split(".")[0]])  # grouped by function or class
    names: set[str] = set()
    imports: set[str] = set()
    # what the tests import from the module: no instance is named so as to hide one
    taken = frozenset(r.call.target.split(".")[0] for r in kept)
    written: list[CallResult] = []
    tests: list[tuple[str, WrittenTest]] = []
    for r in kept:  # one odd value never costs the suite
        test_names, test_imports = set(names), set(imports)
        try:
            test = _test(module, r, test_names, test_imports, style, taken)
        except (MemoryError, RecursionError):  # a value nested past the parser
            continue
        if _compiles(test):
            names, imports = test_names, test_imports
            written.append(r)
            tests.append((r.call.target.split(".")[0], test))
    return written, tests, imports


def _own_name(call: Call) -> str | None:
    """The module's function or class a call's test imports; None for a method called on
    an object ``via`` gives, whose class is not named."""
    return call.target.split(".")[0] if call.via is None else None


def _compiles(test: WrittenTest) -> bool:
    source = "\n".join([f"def {test.name}():", *(f"    {line}" for line in test.body), ""])
    try:
        compile(source, "<test>", "exec")
    except (SyntaxError, ValueError, MemoryError, RecursionError):  # nested past the parser
        return False
    return True


def _pytest_functions(tests: Sequence[tuple[str, WrittenTest]]) -> list[str]:
    lines: list[str] = []
    for _, test in tests:
        params = ", ".join(f"{name}: {_FIXTURE_TYPES[name]}" for name in test.fixtures)
        lines += ["", f"def {test.name}({params}) -> None:"]
        lines += [*(f"    {line}" for line in test.body), ""]
    return lines


def _test_cases(tests: Sequence[tuple[str, WrittenTest]]) -> list[str]:
    """One ``TestCase`` per function or class under test, in first-seen order."""
    groups: dict[str, list[WrittenTest]] = {}
    for root, test in tests:
        groups.setdefault(root, []).append(test)
    lines: list[str] = []
    cases = case_names(list(groups))
    for root, members in groups.items():
        lines += ["", f"class {cases[root]}(unittest.TestCase):"]
        for i, test in enumerate(members):
            lines += [""] if i else []
            lines += [f"    def {test.name}(self) -> None:", *(f"        {x}" for x in test.body)]
        lines.append("")
    return lines


def _test(
    module: Names,
    result: CallResult,
    names: set[str],
    imports: set[str],
    style: Style,
    taken: frozenset[str] = frozenset(),
) -> WrittenTest:
    call, outcome = result.call, result.outcome
    imports.update(_imported_by(call))

    def expect(step: Step) -> str:
        raised = Outcome("raise", type=step.raises[0], type_module=step.raises[1])
        return style.raises.format(_type_name(raised, module, imports))

    setup, expr = _call_expression(call, taken, expect)
    statement = call.target.split(".")[-1] in STATEMENTS and call.on_instance
    if (statement and outcome.kind == "return") or (
        outcome.after and outcome.repr == "None" and outcome.literal
    ):
        # run for its effect (``box[0] = 1``): assert the effect, not the None
        checks = _entered(expr) if call.enter else [expr]
    else:
        checks = _assertions(expr, outcome, module, imports, call, style)
        named = _member_of(outcome, module) is not None  # ``is Colour.RED`` says it all
        if result.readable_repr and outcome.kind == "return" and not named:
            checks.append(_equal_text(style, "repr(result)", outcome.repr))
    # the instance its steps ran on (a function of the module has none: its steps are calls)
    instance = setup[0].split(" = ")[0] if setup and call.on_instance else _held(call) or ""
    effects = [
        _compare(style, f"{instance}{name}" if name.startswith("[") else f"{instance}.{name}", text)
        for name, text in outcome.after  # ``box.size``, or an item read back: ``box[0]``
    ]
    if instance and outcome.after_repr:  # what the call changed in it, as it shows itself
        effects.append(_equal_text(style, f"repr({instance})", outcome.after_repr))
    body = [*setup, *checks, *effects]
    name = _unique_name(call, outcome, names)
    env = (*call.pinned, *call.env, *((variable, None) for variable in call.unset))
    imports.update(call.restore)  # each global's value as imported, to put back
    kept_as_imported = [(f"{module.module}.{global_}", global_) for global_ in call.restore]
    imports.update(dotted.split(".")[0] for dotted in call.copied)  # changed on a copy
    kept_as_imported += [
        (f"{module.module}.{dotted}", f"copy.copy({dotted})") for dotted in call.copied
    ]
    for iterator, source in call.rebuilt:  # an iterator it advances, built afresh
        imports.update(module_names(source))
        kept_as_imported.append((f"{module.module}.{iterator}", source))
    if call.argv:  # the command line and streams the runner called it with, not pytest's
        streams = [("sys.stdin", "io.StringIO()"), ("sys.stdout", "io.StringIO()")]
        kept_as_imported += [("sys.argv", repr([call.argv])), *streams]
        imports.add("io")
    if not (env or kept_as_imported or call.workdir):
        return WrittenTest(name, tuple(body))
    if style is PYTEST:  # the globals and variables first, as ``monkeypatch`` sets them
        restored = [f"monkeypatch.setattr({t!r}, {v})" for t, v in kept_as_imported]
        moved = ["monkeypatch.chdir(tmp_path)"] if call.workdir else []
        fixtures = ("monkeypatch", "tmp_path") if call.workdir else ("monkeypatch",)
        return WrittenTest(name, (*moved, *restored, *_monkeypatched(env), *body), fixtures)
    if call.workdir:  # it writes where it runs: in a directory of its own, removed after
        body = [*_OWN_DIRECTORY, *body]
    if env:
        body = list(_patched_environ(env, body))
    if kept_as_imported:
        patches = ", ".join(f"unittest.mock.patch({t!r}, {v})" for t, v in kept_as_imported)
        body = [f"with {patches}:", *(f"    {line}" for line in body)]
    return WrittenTest(name, tuple(body))


def _monkeypatched(env: Sequence[tuple[str, str | None]]) -> list[str]:
    return [
        f"monkeypatch.delenv({name!r}, raising=False)"
        if value is None
        else f"monkeypatch.setenv({name!r}, {value!r})"
        for name, value in env
    ]


def _patched_environ(env: Sequence[tuple[str, str | None]], body: Sequence[str]) -> tuple[str, ...]:
    """A unittest body run with the variables set: ``unittest.mock.patch.dict`` puts
    ``os.environ`` back as it was, a variable popped inside it too."""
    values = {name: value for name, value in env if value is not None}
    patched = f"os.environ, {values!r}" if values else "os.environ"
    popped = [f"os.environ.pop({name!r}, None)" for name, value in env if value is None]
    inner = [*popped, *body]
    return (f"with unittest.mock.patch.dict({patched}):", *(f"    {line}" for line in inner))


def public_homes(module: str, source: str, package_source: str | None = None) -> dict[str, str]:
    """Each public name bound at the top of ``module`` (a class, an import, an assignment),
    and of its package's ``__init__`` when given, with the module to import it from.

    A test then expects the module's own ``ParseError`` (imported from ``._errors``)
    rather than ``Exception``: the most specific class a person could import.
    """
    homes: dict[str, str] = {}
    package = module.rpartition(".")[0]
    for home, text in ((module, source), (package, package_source)):
        if not home or text is None:
            continue
        for name in bound_names(text):
            if not name.startswith("_"):
                homes.setdefault(name, home)
    return homes


def bound_names(source: str) -> Iterator[str]:
    """Names a module binds at its top level (also under ``if`` and ``try``): its classes,
    functions, imports and assignments."""
    try:
        body = ast.parse(source).body
    except (SyntaxError, ValueError):
        return
    todo = list(body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, (ast.If, ast.Try)):
            todo += [*node.body, *node.orelse, *getattr(node, "finalbody", [])]
            todo += [n for handler in getattr(node, "handlers", []) for n in handler.body]
        elif isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            yield from ((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and getattr(node, "value", None):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            yield from (n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))


def module_names(source: str) -> set[str]:
    """Names an argument's source takes from the module (``Money`` in ``Money(5000)``)."""
    try:
        tree = ast.parse(source, mode="eval")
    except SyntaxError:
        return set()
    lambdas = [node.args for node in ast.walk(tree) if isinstance(node, ast.Lambda)]
    params = [
        a
        for args in lambdas
        for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
    ]
    bound = {a.arg for a in params if a is not None}
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return {n for n in names - bound if not hasattr(builtins, n)}


def _call_expression(
    call: Call, taken: frozenset[str], expect: Callable[[Step], str]
) -> tuple[list[str], str]:
    """Lines that build the instance (for a method), and the call itself; a step that
    raises is written under the line ``expect`` gives it (``with pytest.raises(E):``)."""
    arguments = call_arguments(call.args, call.kwargs)
    parts = call.target.split(".")
    if call.module_data:  # read: ``PLURALS``
        return [], call.target
    if len(parts) == 1:  # after the module's functions it reads the state of, if any
        setup = _steps_written(call.before, _function_call, expect)
        return setup, f"{parts[0]}({arguments})"
    if not call.on_instance:  # static or class method
        return [], f"{call.target}({arguments})"
    init = call_arguments(call.init_args or (), call.init_kwargs)
    steps = [call_arguments(step.args, step.kwargs) for step in call.before]
    words = ", ".join([init, call.via or "", arguments, *steps, *taken])
    held = _held(call)
    # a function another call returned (``autoparams()``), called in its turn: not an
    # instance of a class named ``autoparams``
    function = parts[1] == CALL and call.via is not None and parts[0].lstrip("_")[:1].islower()
    instance = held or _instance_name("Returned" if function else parts[0], words)
    built = call.via if call.via is not None else f"{parts[0]}({init})"
    setup = [] if held else [f"{instance} = {built}"]
    setup += _steps_written(call.before, partial(_written_call, instance), expect)
    if call.attribute:  # a property of the instance: ``entry.key``
        return setup, f"{instance}.{parts[1]}"
    return setup, _written_call(instance, Step(parts[1], call.args, call.kwargs))


def _steps_written(
    steps: Sequence[Step], written: Callable[[Step], str], expect: Callable[[Step], str]
) -> list[str]:
    """The lines of a sequence's steps, in order (state first); a step that raises under
    the line ``expect`` gives it, the same failure again and again as a loop."""
    lines: list[str] = []
    for step, run in itertools.groupby(steps):
        line, times = written(step), len(list(run))
        own = [expect(step), f"    {line}"] if step.raises else [line]
        if times >= _LOOPED:
            lines += [f"for _ in range({times}):", *(f"    {x}" for x in own)]
        else:
            lines += own * times
    return lines


def _imported_by(call: Call) -> set[str]:
    """The module's names a call's test takes: its own, those its arguments name, and the
    module's functions its steps call (for a function of the module)."""
    own = _own_name(call)
    sources = [
        *call.args,
        *(v for _, v in call.kwargs),
        *(call.init_args or ()),
        *([call.via] if call.via else []),
        *(v for _, v in call.init_kwargs),
        *(v for step in call.before for v in (*step.args, *(v for _, v in step.kwargs))),
    ]
    names = {name for source in sources for name in module_names(source)}
    if not call.on_instance and "." not in call.target:
        names.update(step.method for step in call.before)
    return names | ({own} if own is not None else set())


def _function_call(step: Step) -> str:
    return f"{step.method}({call_arguments(step.args, step.kwargs)})"


def _held(call: Call) -> str | None:
    """The name of the module's own object a call runs on (``countries`` of
    ``countries.get("AF")``), used as it is; None when the instance is built."""
    return call.via if call.via is not None and call.via.isidentifier() else None


def call_arguments(args: Sequence[str], kwargs: Sequence[tuple[str, str]]) -> str:
    return ", ".join([*args, *(f"{k}={v}" for k, v in kwargs)])


def method_call(instance: str, step: Step) -> str:
    """``instance.method(args)``; a special method as a person writes it (``money + 5``,
    ``box[0:2]``, ``box[k] = v``), not ``money.__add__(5)``."""
    name = _attribute_name(step)
    if name is not None:  # ``box.size``, ``box.size = 3``, ``del box.size``
        value = f" = {step.args[1]}" if step.method == "__setattr__" else ""
        return f"{'del ' if step.method == '__delattr__' else ''}{instance}.{name}{value}"
    if step.method == CALL:  # ``query(document)``, not ``query.__call__(document)``
        return f"{instance}({call_arguments(step.args, step.kwargs)})"
    if step.method in OPERATORS and not step.kwargs:
        template, args = OPERATORS[step.method], list(step.args)
        if "{self}[{0}]" in template:  # ``box[0:2]``, not ``box[slice(0, 2)]``
            args[0] = _as_slice(args[0])
        return template.format(*args, self=instance)
    return f"{instance}.{step.method}({call_arguments(step.args, step.kwargs)})"


def _written_call(instance: str, step: Step) -> str:
    """``method_call`` as a test file writes it: a comparison with a singleton as
    ``operator.eq(line, None)``, the same comparison (``method_call``'s text also runs in
    the target, where ``operator`` is not imported)."""
    compare = _SINGLETON_COMPARISONS.get(step.method)
    if compare and not step.kwargs and len(step.args) == 1 and step.args[0] in _SINGLETONS:
        return f"{compare}({instance}, {step.args[0]})"
    return method_call(instance, step)


def _attribute_name(step: Step) -> str | None:
    """The attribute a ``__getattr__``/``__setattr__``/``__delattr__`` step names, when a
    person could write it after a dot (an identifier, no keyword); else None."""
    arity = 2 if step.method == "__setattr__" else 1
    if step.method not in ATTRIBUTE_METHODS or step.kwargs or len(step.args) != arity:
        return None
    try:
        name = ast.literal_eval(step.args[0])
    except (ValueError, SyntaxError):
        return None
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        return None
    return name


def _instance_name(cls: str, arguments: str) -> str:
    """A local name for an instance of ``cls`` (``naming.instance_name``), shadowing
    nothing the test uses (``Re`` gives ``re_``: ``re.escape`` stays)."""
    used = {cls, "re", "pytest", "self", "result", *re.findall(r"[A-Za-z_]\w*", arguments)}
    return instance_name(cls, used)


def _isort_key(name: str) -> tuple[int, str, str]:
    """The order ruff's isort gives imported names: constants, classes, the rest; each
    group regardless of case (``BarrelList`` before ``BList``)."""
    kind = 0 if len(name) > 1 and name.isupper() else 1 if name[:1].isupper() else 2
    return kind, name.lower(), name


def _as_slice(source: str) -> str:
    """``slice(0, 2)`` as a subscript writes it (``0:2``); any other source unchanged."""
    try:
        node = ast.parse(source, mode="eval").body
    except SyntaxError:
        return source
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "slice"
        and 1 <= len(node.args) <= 3
        and not node.keywords
        and not any(isinstance(a, ast.Starred) for a in node.args)
    ):
        return source
    parts = [ast.unparse(a) for a in node.args]
    parts = ["" if part == "None" else part for part in parts]
    return ":".join(["", *parts] if len(parts) == 1 else parts)


def _assertions(
    expr: str, outcome: Outcome, module: Names, imports: set[str], call: Call, style: Style
) -> list[str]:
    consume = call.consume
    if outcome.kind == "raise":
        exc = _type_name(outcome, module, imports)
        if call.enter:  # raised as it is entered or left
            lines = [f"    {line}" for line in _entered(expr)]
        elif consume:  # a generator raises as it is consumed, not when called
            lines = [f"    {_listed(expr)}"]
        else:  # not a bare read
            lines = [f"    _ = {expr}" if _useless_alone(expr) else f"    {expr}"]
        if outcome.message:
            return [style.raises_matching.format(exc, _pattern(outcome.message)), *lines]
        return [style.raises.format(exc), *lines]
    entered = _entered(expr, "result") if call.enter else []
    if call.enter:  # what the ``with`` gave, asserted once it is left
        value = "result"
    elif consume and outcome.taken:  # an endless generator: its first items, as it took
        value = f"list(itertools.islice({expr}, {outcome.taken}))"
    else:
        value = _listed(expr) if consume else expr
    if outcome.literal:
        return [*entered, _compare(style, value, outcome.repr)]
    if outcome.type == "NoneType" and outcome.type_module == _BUILTINS:  # its one value
        return [*entered, _compare(style, value, "None")]
    member = _member_of(outcome, module)
    if member is not None:  # an enumeration's member: the one it is
        imports.add(outcome.type)
        return [*entered, style.identical.format(value, member)]
    lines = entered or [f"result = {value}"]
    if outcome.state:
        return lines + [_compare(style, f"result.{name}", text) for name, text in outcome.state]
    if _importable_type(outcome, module):
        return [*lines, style.instance.format("result", _type_name(outcome, module, imports))]
    return [*lines, style.equal.format("type(result).__name__", repr(outcome.type))]


def _entered(expr: str, name: str = "") -> list[str]:
    """``with expr:`` (``as name``), a context manager entered and left at once."""
    bound = f" as {name}" if name else ""
    return [f"with {expr}{bound}:", "    pass"]


def _listed(expr: str) -> str:
    """``list(expr)``, unless ``expr`` is one already (``iter`` is written ``list(box)``)."""
    try:
        node = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return f"list({expr})"
    already = (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "list"
        and len(node.args) == 1
        and not node.keywords
    )
    return expr if already else f"list({expr})"


#: An enumeration member's repr: ``<Colour.RED: 1>`` (a flag's ``<Perm.R|W: 6>`` is not one).
_MEMBER_REPR = re.compile(r"<([A-Za-z_]\w*)\.([A-Za-z_]\w*): .*>", re.DOTALL)


def _enum_member(outcome: Outcome) -> str | None:
    """The member's name when the value returned is a member of an enumeration."""
    found = _MEMBER_REPR.fullmatch(outcome.repr) if outcome.kind == "return" else None
    return found.group(2) if found and found.group(1) == outcome.type else None


def _member_of(outcome: Outcome, module: Names) -> str | None:
    """``Colour.RED``, when the value is a member of an enumeration of the module's own."""
    member = _enum_member(outcome)
    if member is None or outcome.type_module != module.module or "." in outcome.type:
        return None
    return f"{outcome.type}.{member}"


def _importable_type(outcome: Outcome, module: Names) -> bool:
    """Whether a test can name the returned value's type: a class of the module's own, or
    a builtin one (``dict``), not one the builtins do not bind (``generator``)."""
    if "." in outcome.type:
        return False
    if outcome.type_module == module.module:
        return True
    return outcome.type_module == _BUILTINS and isinstance(
        getattr(builtins, outcome.type, None), type
    )


def _useless_alone(expr: str) -> bool:
    """Whether a linter calls ``expr`` useless or pointless when it stands alone: an attribute
    read (``box.missing``), a comparison (``x > None``), a unary operation, a bare name or
    a literal."""
    try:
        node = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return False
    return isinstance(node, ast.Attribute | ast.Compare | ast.UnaryOp | ast.Name | ast.Constant)


def _compare(style: Style, left: str, right: str) -> str:
    """``left == right``, or ``left is right`` for None, True and False (as a person writes);
    a text showing a set of strings is matched (``_equal_text``)."""
    if _SET_OF_STRINGS.search(right):
        with contextlib.suppress(ValueError, SyntaxError, MemoryError, RecursionError):
            value = ast.literal_eval(right)
            if isinstance(value, str):
                return _equal_text(style, left, value)
    return (style.identical if right in _SINGLETONS else style.equal).format(left, right)


def _equal_text(style: Style, left: str, text: str) -> str:
    """``left == text``; where ``text`` shows a set of strings (``{'b', 'a'}``), whose order
    follows string hashing and differs between interpreters, ``left`` matches it with the
    set in any order."""
    if _SET_OF_STRINGS.search(text) is None:
        return style.equal.format(left, repr(text))
    return style.matches.format(left, _pattern(text))


def _type_name(outcome: Outcome, module: Names, imports: set[str]) -> str:
    if outcome.type_module == module.module and "." not in outcome.type:
        imports.add(outcome.type)
        return outcome.type
    if outcome.type_module == _BUILTINS:
        return outcome.type
    home = module.homes.get(outcome.type)
    if home == module.module:  # defined elsewhere, public in the module: ``from m import E``
        imports.add(outcome.type)
        return outcome.type
    if home is not None:  # public in the module's package
        imports.add(f"{home}:{outcome.type}")
        return outcome.type
    return "Exception"  # an exception from elsewhere: its message still pins it down


def _pattern(message: str) -> str:
    """A ``match=`` argument that matches ``message`` literally, as readably as possible.

    A set of strings shown in it (``Missed fields: {'jsonrpc', 'method'}``) is listed in
    an order string hashing decides, which differs from one interpreter to the next:
    any set matches there."""
    parts = _SET_OF_STRINGS.split(message)
    if len(parts) == 1:
        return _literal_pattern(message)
    pieces = [_literal_pattern(parts[0])] if parts[0] else []
    for part in parts[1:]:
        pieces += [_ANY_SET, _literal_pattern(part)] if part else [_ANY_SET]
    return " + ".join(pieces)


def _literal_pattern(text: str) -> str:
    if _REGEX_SPECIAL.search(text) is None:
        return repr(text)
    return f"re.escape({text!r})"


def _unique_name(call: Call, outcome: Outcome, names: set[str]) -> str:
    parts = call.target.split(".")
    if parts[-1] in ROUND_TRIPS:  # ``Box.__getstate__``: box_pickle_round_trip
        parts[-1] = _ROUND_TRIP_NAMES.get(parts[-1], "pickle_round_trip")
    target = "_".join(part.strip("_") for part in parts)  # Money.__add__: money_add
    entered = "entered_" if call.enter else ""  # ``with f() as result``: gives, raises
    base = f"test_{snake(target)}_{_after(call.before)}{entered}{_scenario(call, outcome)}"
    base += _environment(call.env)
    name = base
    if name in names:
        given = _slug(", ".join(call.args + tuple(v for _, v in call.kwargs)))
        name = f"{base}_with_{given}"
        if not given or len(name) > _NAME_MAX:  # no words, or too many: a number instead
            name = base
    counter = 2
    while name in names:
        name, counter = f"{base}_{counter}", counter + 1
    names.add(name)
    return name


def _environment(env: Sequence[tuple[str, str | None]]) -> str:
    """``_when_no_color_is_1``, ``_when_term_is_empty``, ``_when_ci_unset``: the
    variables a test sets, in its name."""
    said = [
        f"{_slug(name)}_unset" if value is None else f"{_slug(name)}_is_{_slug(value) or 'empty'}"
        for name, value in env
    ]
    return f"_when_{'_and_'.join(said)}" if said else ""


def _after(steps: Sequence[Step]) -> str:
    """``after_put_`` for a call after ``put`` steps (each method named once, in order)."""
    methods = dict.fromkeys(snake(step.method.strip("_")) for step in steps)
    return f"after_{'_'.join(methods)}_" if methods else ""


def _scenario(call: Call, outcome: Outcome) -> str:
    if call.module_data:  # a property returns
        return "value"
    if outcome.kind == "raise":
        return f"raises_{snake(outcome.type.split('.')[-1])}"
    if "." not in call.target and outcome.type == call.target:  # a class, not ``Parse()``
        return "builds"
    verb = "gives" if call.enter else "returns"
    member = _enum_member(outcome)
    if member is not None:  # ``returns_possible``
        return f"{verb}_{snake(member)}"
    if not outcome.literal:
        return f"{verb}_{snake(outcome.type.split('.')[-1])}"
    return f"{verb}_{_value_slug(outcome.repr)}"


def _value_slug(text: str) -> str:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return "value"
    if isinstance(value, (str, bytes, list, tuple, dict, set)) and not value:
        return f"empty_{type(value).__name__}"
    slug = _slug(text) or "value"
    if slug in _CONSTANT_WORDS and value not in (None, True, False):  # not ``None`` itself
        return f"{type(value).__name__}_{slug}"  # ``[['None']]``: returns_list_none
    return slug


#: Slugs that name a constant, and so must not stand for text or a container holding it.
_CONSTANT_WORDS = {"none", "true", "false"}


def _slug(text: str) -> str:
    words = re.sub(r"(?<![0-9A-Za-z])-(?=\d)", "minus ", text)  # -7 is minus 7; E-42 is not
    slug = re.sub(r"[^0-9a-zA-Z]+", "_", words).strip("_").lower()
    if len(slug) > _SLUG_MAX:  # cut at a word boundary when there is one
        cut = slug[: _SLUG_MAX + 1].rfind("_")
        slug = slug[: cut if cut > 0 else _SLUG_MAX]
    return slug.rstrip("_")
