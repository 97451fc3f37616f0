"""pytest fixtures as the project's tests read them: their values, from every conftest above.

A test asks for a fixture by parameter (``def test_one_match(self, index)``), and the
fixture may live in the test file or in a ``conftest.py`` of any directory above it. It
may ask for other fixtures in turn: lunr's ``index(documents)`` returns
``lunr(ref="id", fields=(...), documents=documents)``, the documents being another
fixture's list. ``definitions`` reads a file's fixtures; the test file's own hide those
of the conftests above it (``conftest_chain``), and a nearer conftest's hide a farther's,
as in pytest. ``fixture_values`` then settles them all from the test file's place: each
with the fixtures it asks for bound, the nearest of each name.

Statically (``ast``), as the rest of ``from_tests``: nothing is imported or run.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import PurePosixPath
from types import MappingProxyType
from typing import NamedTuple

from tddforge.builtin.bindings import MISSING, CallValue, Env, Reference, evaluate, is_plain, walk

_Function = ast.FunctionDef | ast.AsyncFunctionDef

#: How many passes settle fixtures asking for fixtures defined after them (one per level).
MAX_PASSES = 4


class Definition(NamedTuple):
    """A fixture as its file defines it: its function, and its file's names and calls."""

    node: ast.FunctionDef | ast.AsyncFunctionDef
    module: Env
    build: CallValue


NONE: Mapping[str, Definition] = MappingProxyType({})


def is_fixture(decorator: ast.expr) -> bool:
    """``@pytest.fixture``, ``@fixture`` or either called with options."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(target) in ("pytest.fixture", "fixture")


def definitions(tree: ast.Module, module: Env, build: CallValue) -> dict[str, Definition]:
    """The fixtures ``tree`` defines, by name."""
    return {
        node.name: Definition(node, module, build)
        for node in ast.walk(tree)
        if isinstance(node, _Function) and any(map(is_fixture, node.decorator_list))
    }


def fixture_values(defined: Mapping[str, Definition]) -> dict[str, object]:
    """The fixtures a test can ask for, by name: those of ``defined`` (the conftests' above
    it and its file's own, the nearest definition of each name) that return or yield a
    literal value or a value the module can be called with (a ``Reference``), each with
    the fixtures it asks for bound, as pytest resolves them from the test's place (a
    conftest's fixture asking for ``size`` gets the ``size`` nearest the test)."""
    found: dict[str, object] = {}
    left = dict(defined)
    for _ in range(MAX_PASSES):  # one more level of fixtures asking for fixtures each
        settled = {}
        for name, (node, module, build) in left.items():
            made = _returned(node, {**module, **_asked(node, found)}, build)
            if made is not MISSING:
                settled[name] = made
        found.update(settled)
        left = {name: d for name, d in left.items() if name not in settled}
        if not settled or not left:
            break
    return found


def conftest_chain(path: str, sources: Mapping[str, str]) -> list[str]:
    """The ``conftest.py`` files of ``sources`` that apply to the test file ``path``: those of
    the directories above it, the project's root first (nearer ones override)."""
    parents = list(reversed(PurePosixPath(path).parents))
    found = [(parent / "conftest.py").as_posix() for parent in parents]
    return [c for c in found if c in sources and c != path]


def _asked(node: _Function, found: Mapping[str, object]) -> dict[str, object]:
    """The fixtures ``node`` asks for by parameter, those settled so far."""
    arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    return {a.arg: found[a.arg] for a in arguments if a.arg in found}


def _returned(node: _Function, env: Env, build: CallValue) -> object:
    """What the fixture returns or yields first, when it is known (``MISSING`` else)."""
    for statement, envs in walk(node.body, [env], build):
        value = statement.value if isinstance(statement, ast.Return | ast.Expr) else None
        if isinstance(value, ast.Yield | ast.YieldFrom):
            value = value.value
        if value is None or not envs or not isinstance(statement, ast.stmt):
            continue
        made = evaluate(value, envs[0], build)
        if made is not MISSING and (isinstance(made, Reference) or is_plain(made)):
            return made
    return MISSING
