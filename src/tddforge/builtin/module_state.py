"""What a call changes or reads beyond its arguments: module globals it rebinds, put
back after its test, and ``sys.argv`` (pure).

``set_small_word_list(small)`` declares ``global SMALL_WORDS`` and compiles a new pattern
into it: every call of the module after it, in the same process, sees the new one. The
runner forks a child per call, so exploring never notices; a written suite runs in one
process, and a test calling it would change what the tests after it observe (their
expected values were seen without it). :func:`rebound_globals` finds, in the module's
functions, the names declared ``global`` and assigned there that the module also binds at
its top level; :func:`restoring` gives each kept call that ran such a function the
names to put back, which the writer does (``monkeypatch.setattr`` or
``unittest.mock.patch`` on the module's attribute, with its value as imported).

A command-line entry point (``def cmd(): args = parser.parse_args()``) reads
``sys.argv``: under pytest that is pytest's own command line, so the test would parse
``-q tests/`` and exit. The runner calls everything with ``sys.argv`` set to the
module's name alone (``target/calls.py``) and an empty standard input (the sandbox's),
and :func:`argv_readers` finds the functions whose tests must set both so too (pytest's
captured stdin raises on a read), and give them a ``sys.stdout`` of their own.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import replace

from tddforge.builtin.explore import CallResult
from tddforge.builtin.sequences import MUTATING
from tddforge.builtin.writer import bound_names

Span = tuple[int, int]


def rebound_globals(source: str) -> dict[Span, tuple[str, ...]]:
    """Each function's (first, last) lines → the top-level names it rebinds, in order."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    top = set(bound_names(source))
    found: dict[Span, tuple[str, ...]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        own = _own_nodes(node)
        declared = [name for inner in own if isinstance(inner, ast.Global) for name in inner.names]
        assigned = {
            target.id for inner in own for target in _targets(inner) if isinstance(target, ast.Name)
        }
        names = tuple(dict.fromkeys(n for n in declared if n in assigned and n in top))
        if names:
            found[(node.lineno, node.end_lineno or node.lineno)] = names
    return found


#: what builds a container a module keeps at its top or in a class: a registry, a cache
_CONTAINERS = frozenset(
    {"dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter", "WeakValueDictionary"}
)


def mutated_containers(source: str) -> dict[Span, tuple[str, ...]]:
    """Each function's (first, last) lines → the containers kept at the module's top or
    in one of its classes that it changes in place, as names from the module
    (``REGISTRY``, ``CircuitBreakerMonitor.circuit_breakers``), in order.

    ``CircuitBreakerMonitor.register(breaker)`` stores into ``cls.circuit_breakers``:
    no name is rebound, yet every test after it sees that breaker (``all_closed()``
    turns false). A container is a display or a call of a builtin container type bound
    at the top (``_cache = {}``) or in a class's body (``registry = {}``); it is changed
    by an item stored or deleted (``REGISTRY[k] = v``, ``del cls.seen[k]``) or by a
    container method that changes its receiver (``cls.hooks.append(f)``). A name the
    function binds itself is its own, and an attribute ``self`` also sets is the
    instance's."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    top = _container_names(tree.body)
    classes = {
        node.name: (_container_names(node.body), _self_set(node))
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }
    found: dict[Span, tuple[str, ...]] = {}
    for owner, node in _functions(tree):
        own = _own_nodes(node)
        local = {t.id for inner in own for t in _targets(inner) if isinstance(t, ast.Name)}
        local.update(
            a.arg for a in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        )
        names = []
        for changed in _changed(own):
            name = _container(changed, owner, top - local, classes)
            if name is not None:
                names.append(name)
        if names:
            found[(node.lineno, node.end_lineno or node.lineno)] = tuple(dict.fromkeys(names))
    return found


def advanced_iterators(source: str) -> tuple[dict[Span, tuple[str, ...]], dict[str, str]]:
    """Each function's (first, last) lines → the iterators kept at the module's top that
    it advances (``next(_entity_count)``), and each such iterator's name → the source
    that builds it afresh.

    esper numbers entities with ``_entity_count = _count(start=1)``: each
    ``create_entity()`` takes the next number, so a test that reads entity 1 back holds
    only when it runs first. A copy of the iterator would do (``copy.copy``), but
    Python 3.14 no longer copies ``itertools`` objects: its test builds it again from
    the module's own source instead, when that is a call whose arguments are literals
    (``_count(start=1)``, its names taken from the module)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}, {}
    fresh: dict[str, str] = {}
    for node in tree.body:
        value = getattr(node, "value", None)
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or not isinstance(value, ast.Call):
            continue
        if _is_container(value) or not _literal_arguments(value):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        fresh.update((t.id, ast.unparse(value)) for t in targets if isinstance(t, ast.Name))
    found: dict[Span, tuple[str, ...]] = {}
    for _, node in _functions(tree):
        own = _own_nodes(node)
        local = {t.id for inner in own for t in _targets(inner) if isinstance(t, ast.Name)}
        names = [
            inner.args[0].id
            for inner in own
            if isinstance(inner, ast.Call)
            and isinstance(inner.func, ast.Name)
            and inner.func.id == "next"
            and inner.args
            and isinstance(inner.args[0], ast.Name)
            and inner.args[0].id in fresh.keys() - local
        ]
        if names:
            found[(node.lineno, node.end_lineno or node.lineno)] = tuple(dict.fromkeys(names))
    used = {name for names in found.values() for name in names}
    return found, {name: text for name, text in fresh.items() if name in used}


def _literal_arguments(call: ast.Call) -> bool:
    values = [*call.args, *(k.value for k in call.keywords)]
    if any(isinstance(v, ast.Starred) for v in values) or any(k.arg is None for k in call.keywords):
        return False
    try:
        for value in values:
            ast.literal_eval(value)
    except ValueError:
        return False
    return isinstance(call.func, (ast.Name, ast.Attribute))


def _container_names(body: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for node in body:
        value = getattr(node, "value", None)
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or not _is_container(value):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _is_container(value: ast.expr | None) -> bool:
    if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name in _CONTAINERS
    return False


def _self_set(cls: ast.ClassDef) -> set[str]:
    """The attributes a class's methods set on ``self`` (an instance's own, then)."""
    return {
        t.attr
        for node in ast.walk(cls)
        for t in _targets(node)
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
    }


def _functions(tree: ast.Module) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """The module's functions and its classes' methods, each with its class's name ("")."""
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append(("", node))
        elif isinstance(node, ast.ClassDef):
            found += [
                (node.name, inner)
                for inner in node.body
                if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef))
            ]
    return found


def _changed(nodes: list[ast.AST]) -> list[ast.expr]:
    """The expressions whose object ``nodes`` change in place: stored into, deleted from,
    or given a container method that changes its receiver."""
    changed: list[ast.expr] = []
    for node in nodes:
        targets = node.targets if isinstance(node, ast.Delete) else _targets(node)
        changed += [t.value for t in targets if isinstance(t, ast.Subscript)]
        method = node.func if isinstance(node, ast.Call) else None
        if isinstance(method, ast.Attribute) and method.attr in MUTATING:
            changed.append(method.value)
    return changed


def _container(
    node: ast.expr,
    owner: str,
    top: set[str],
    classes: dict[str, tuple[set[str], set[str]]],
) -> str | None:
    """The module's name for the container ``node`` is, or None."""
    if isinstance(node, ast.Name):
        return node.id if node.id in top else None
    if not isinstance(node, ast.Attribute) or not isinstance(node.value, ast.Name):
        return None
    holder = node.value.id
    cls = owner if holder in ("cls", "self") else holder
    if cls not in classes:
        return None
    kept, on_self = classes[cls]
    if node.attr not in kept or (holder == "self" and node.attr in on_self):
        return None
    return f"{cls}.{node.attr}"


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target] if not isinstance(node, ast.AnnAssign) or node.value else []
    return []


def _own_nodes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """The function's nodes in source order, leaving out nested functions and classes
    (their own scopes)."""
    found: list[ast.AST] = []
    pending: list[ast.AST] = list(reversed(function.body))
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        found.append(node)
        pending += reversed(list(ast.iter_child_nodes(node)))
    return found


_PARSE = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args"})


def argv_readers(source: str) -> list[Span]:
    """The (first, last) lines of each function reading ``sys.argv``, directly or
    through an argument parser called without arguments (``parser.parse_args()``), or
    standard input (``sys.stdin``, ``input()``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            map(_reads_argv, _own_nodes(node))
        ):
            found.append((node.lineno, node.end_lineno or node.lineno))
    return found


def _reads_argv(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute) and node.attr in ("argv", "stdin"):
        return ast.unparse(node.value) == "sys"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id == "input"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        given = node.args or any(k.arg == "args" for k in node.keywords)
        return node.func.attr in _PARSE and not given
    return False


def restoring(
    results: Sequence[CallResult],
    rebinds: Mapping[Span, tuple[str, ...]],
    argv: Sequence[Span] = (),
    prog: str = "",
    changes: Mapping[Span, tuple[str, ...]] | None = None,
    advances: tuple[Mapping[Span, tuple[str, ...]], Mapping[str, str]] = ({}, {}),
) -> list[CallResult]:
    """``results``, each call that ran a function rebinding module globals given their
    names as ``restore`` (in the order the module's functions rebind them), each that
    ran one changing a container of the module in place (``mutated_containers``) given
    its names as ``copied``, each that ran one advancing an iterator of the module
    (``advanced_iterators``, the ``advances``) given it built afresh as ``rebuilt``, and
    each that ran one reading ``sys.argv`` given ``prog``, the command line it ran with."""
    spans, fresh = advances
    out = []
    for result in results:
        lines = {line for arc in result.arcs | result.setup for line in arc if line > 0}
        names = _ran_names(rebinds, lines)
        copied = _ran_names(changes or {}, lines)
        rebuilt = tuple((name, fresh[name]) for name in _ran_names(spans, lines) if name in fresh)
        afresh = {name for name, _ in rebuilt}  # built afresh: put back by that alone
        names = tuple(name for name in names if name not in afresh)
        reads = any(_ran(span, lines) for span in argv)
        if names or copied or rebuilt or reads:
            call = replace(
                result.call,
                restore=names,
                copied=copied,
                rebuilt=rebuilt,
                argv=prog if reads else "",
            )
            result = replace(result, call=call)
        out.append(result)
    return out


def _ran_names(found: Mapping[Span, tuple[str, ...]], lines: set[int]) -> tuple[str, ...]:
    return tuple(
        dict.fromkeys(name for span, names in found.items() if _ran(span, lines) for name in names)
    )


def _ran(span: Span, lines: set[int]) -> bool:
    first, last = span
    return any(first <= line <= last for line in lines)


#: Calls that read the wall clock through ``datetime``, as the module spells them
#: (``datetime.datetime.now()``, ``date.today()``): the value of a call that ran one holds
#: at that moment only. The ``time`` module's clock needs no such list: the runner's
#: second run reads it a year and some later (``target/clock.py``), so a value of the
#: moment differs between the runs, while a duration does not.
_CLOCK = frozenset(
    {
        f"{owner}.{method}"
        for owner in ("datetime", "datetime.datetime", "dt.datetime", "dt")
        for method in ("now", "utcnow", "today")
    }
    | {"date.today", "datetime.date.today", "dt.date.today"}
)


def clock_lines(source: str) -> frozenset[int]:
    """The lines of the module's functions that read the wall clock through ``datetime``.
    Two runs of a call seconds apart agree on ``totp.now()`` (one 30-second window):
    only the line says that its value will differ in a later run."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if ast.unparse(node.func) in _CLOCK:
            found.add(node.lineno)
    return frozenset(found)


def unclocked(results: Sequence[CallResult], lines: frozenset[int]) -> list[CallResult]:
    """``results``, each call that returned after running a line reading the clock
    asserted through its type only (as a value seen to vary is)."""
    out = []
    for result in results:
        outcome = result.outcome
        ran = {line for arc in result.arcs for line in arc if line > 0}
        if outcome.kind == "return" and outcome.type and not outcome.varies and ran & lines:
            result = replace(result, outcome=outcome.typed())
        out.append(result)
    return out
