"""Environment variables the module reads at run time, and calls made with them set (pure).

A terminal-colour module asks ``os.environ.get("NO_COLOR")``, a config loader
``os.getenv("APP_HOME", "~")``, a CLI helper ``"CI" in os.environ``: those branches
run only when a test sets the variable, as a person would with ``monkeypatch``.
``env_reads`` finds, in the functions of a module's source, each variable read by
a literal name (``os.environ.get``/``[...]``/``in``, ``os.getenv``), the function it
is read in, and the values it is compared with; ``env_variants`` gives each kept
call that ran such a function again with the variable set to each of those values,
to ``"1"`` and to ``""``, and unset. Reads at import time are left out: a test cannot
change what the module saw when it was imported.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from tddforge.builtin.explore import Call, CallResult

#: Values every variable is tried with (None: unset), before the values it is compared with.
BASE_VALUES: tuple[str | None, ...] = ("1", "", None)
MAX_COMPARED = 4  # compared values kept per variable
MAX_NAMES = 8  # variables planned per call
MAX_PER_CALL = 16  # variants of one call

_ENVIRON = frozenset({"os.environ", "environ"})
_GETENV = frozenset({"os.getenv", "getenv", "os.environ.get", "environ.get"})


@dataclass(frozen=True)
class EnvRead:
    """A variable the module reads in functions: where, and what it is compared with."""

    name: str
    spans: tuple[tuple[int, int], ...]  # the (first, last) lines of each function reading it
    values: tuple[str | None, ...]  # what to set it to (None: unset), in the order to try


def env_reads(source: str) -> dict[str, EnvRead]:
    """Each variable a function of ``source`` reads by a literal name, in source order."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    spans: dict[str, list[tuple[int, int]]] = {}
    compared: dict[str, list[str]] = {}
    for node, name in _reads(tree):
        function = _enclosing_function(node, parents)
        if function is None:
            continue  # read at import time
        span = (function.lineno, function.end_lineno or function.lineno)
        if span not in spans.setdefault(name, []):
            spans[name].append(span)
        found = compared.setdefault(name, [])
        found += [v for v in _compared_values(node, parents) if v not in found]
    return {
        name: EnvRead(name, tuple(where), _values(compared[name]))
        for name, where in sorted(spans.items(), key=lambda item: item[1][0])
    }


def _values(compared: Sequence[str]) -> tuple[str | None, ...]:
    extra = [v for v in compared if v not in BASE_VALUES][:MAX_COMPARED]
    return (*extra, *BASE_VALUES)


def _reads(tree: ast.AST) -> Iterator[tuple[ast.expr, str]]:
    """Each read of a variable named by a string literal, and the name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) in _GETENV and node.args:
            name = _text(node.args[0])
            if name is not None:
                yield node, name
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) in _ENVIRON:
            name = _text(node.slice)
            if name is not None and isinstance(node.ctx, ast.Load):
                yield node, name
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            container = node.comparators[0]
            if isinstance(node.ops[0], ast.In | ast.NotIn) and ast.unparse(container) in _ENVIRON:
                name = _text(node.left)
                if name is not None:
                    yield node, name


def _text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
        return node.value
    return None


def _enclosing_function(
    node: ast.AST, parents: Mapping[ast.AST, ast.AST]
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return node
    return None


def _compared_values(read: ast.expr, parents: Mapping[ast.AST, ast.AST]) -> list[str]:
    """The strings the value read is compared with, through calls on it (``.lower()``,
    ``.strip()``) and a default given to ``get``/``getenv``: ``getenv("X", "").lower() in
    ("1", "true")`` gives ``["1", "true"]``."""
    values: list[str] = []
    if isinstance(read, ast.Call) and len(read.args) > 1:
        default = _text(read.args[1])
        values += [default] if default is not None else []
    node: ast.AST = read
    # climb through method calls on the value: ``read.lower().strip()``
    while isinstance(parents.get(node), ast.Attribute) and isinstance(
        parents.get(parents[node]), ast.Call
    ):
        node = parents[parents[node]]
    compare = parents.get(node)
    if isinstance(compare, ast.Compare):
        for operand in [compare.left, *compare.comparators]:
            if operand is node:
                continue
            items = (
                operand.elts if isinstance(operand, ast.Tuple | ast.List | ast.Set) else [operand]
            )
            values += [text for text in map(_text, items) if text is not None]
    return values


def env_variants(
    kept: Sequence[CallResult], reads: Mapping[str, EnvRead], done: Collection[Call] = ()
) -> list[Call]:
    """Each call in ``kept`` (not in ``done``, not already run with a variable set) that ran
    a function reading a variable, again with that variable set to each of its values."""
    calls: list[Call] = []
    for result in kept:
        if result.call.env or result.call in done:
            continue
        names = _read_by(result, reads)[:MAX_NAMES]
        variants = [
            replace(result.call, env=((read.name, value),))
            for read in names
            for value in read.values
        ]
        calls += variants[:MAX_PER_CALL]
    return list(dict.fromkeys(calls))


def isolated(
    results: Sequence[CallResult], reads: Mapping[str, EnvRead], present: Collection[str]
) -> list[CallResult]:
    """``results``, each call that ran a function reading variables it does not set
    given them as ``unset``: they were unset where it ran (the sandbox's environment
    holds only ``present``), and its test must not pass or fail with the environment
    it is run in (``CI=true`` on a CI runner, ``TERM`` in a terminal)."""
    out = []
    for result in results:
        named = {name for name, _ in result.call.env}
        unset = tuple(
            read.name
            for read in _read_by(result, reads)
            if read.name not in named and read.name not in present
        )
        if unset:
            result = replace(result, call=replace(result.call, unset=unset))
        out.append(result)
    return out


#: Variables never a test's to set: the sandbox's own, and the machine's program search
#: path (``shutil.which`` reads it; pinned, a test held the whole of this machine's ``PATH``,
#: found on ptyprocess in the twenty-fourth held-out set).
_NOT_PINNED = frozenset({"PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", "PATH"})


def pinned(results: Sequence[CallResult]) -> list[CallResult]:
    """``results``, each call given the variables it read at run time and does not set
    (``CallResult.environ``): those that held a value where it ran as ``pinned``, which
    its test sets to that value, and those unset as ``unset``. A value the call got from
    the environment without the module naming it (``HOME`` for ``expanduser``, read in
    the standard library) was the sandbox's: the test must not depend on the machine
    it runs on (platformdirs' ``user_cache_dir()`` is ``$HOME/.cache``)."""
    out = []
    for result in results:
        call = result.call
        named = {name for name, _ in call.env} | set(call.unset) | _NOT_PINNED
        held = tuple((n, v) for n, v in result.environ if n not in named and v is not None)
        absent = tuple(n for n, v in result.environ if n not in named and v is None)
        if held or absent:
            call = replace(call, pinned=held, unset=(*call.unset, *absent))
            result = replace(result, call=call)
        out.append(result)
    return out


def _read_by(result: CallResult, reads: Mapping[str, EnvRead]) -> list[EnvRead]:
    """The variables read in the functions whose lines ``result``'s call ran."""
    lines = {line for arc in result.arcs for line in arc if line > 0}
    return [
        read
        for read in reads.values()
        if any(first <= line <= last for first, last in read.spans for line in lines)
    ]
