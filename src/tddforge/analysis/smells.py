"""Assertion smells in generated test code, found statically (pure: source in, smells out).

Three smells, each a reason to trust a test less:

* ``no_assertion``: the test checks nothing (no ``assert``, no ``self.assert*``,
  no ``pytest.raises``/``assertRaises`` block, no mock ``assert_called*``), neither
  itself nor in a helper of its file that it calls (``_assert_ordering(a, b)``);
* ``tautology``: an assertion that cannot fail (``assert True``, ``assert x == x``,
  ``self.assertEqual(a, a)``, a comparison of two literals);
* ``mocks_unit_under_test``: the test patches a function or class that the
  module under test itself defines, so it tests the mock instead of the unit.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from tddforge.analysis.checks import Function, called_name, reached

_UNITTEST_ASSERT_PREFIXES = ("assert", "fail")
_RAISES = {
    "raises",
    "assertRaises",
    "assertRaisesRegex",
    "assertWarns",
    "assertWarnsRegex",
    "warns",
    "deprecated_call",
}
_EQUALITY_ASSERTS = {
    "assertEqual",
    "assertIs",
    "assertAlmostEqual",
    "assertCountEqual",
    "assertListEqual",
    "assertDictEqual",
    "assertTupleEqual",
    "assertSetEqual",
}
_TRUTH_ASSERTS = {"assertTrue": True, "assertFalse": False}
_PATCHERS = {"patch", "object"}


@dataclass(frozen=True)
class Smell:
    """One smell in one test function."""

    kind: str
    test: str
    line: int
    detail: str


def defined_names(module_source: str) -> set[str]:
    """Top-level functions and classes a module defines (what "the unit under test" names)."""
    try:
        tree = ast.parse(module_source)
    except SyntaxError:
        return set()
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {node.name for node in tree.body if isinstance(node, kinds)}


def find_smells(test_source: str, module_name: str, module_names: set[str]) -> list[Smell]:
    """Smells of every test in ``test_source``; ``module_name`` is the dotted import name."""
    try:
        tree = ast.parse(test_source)
    except SyntaxError:
        return []
    smells: list[Smell] = []
    for name, funcs in reached(tree).items():
        smells += _smells_of(name, funcs, module_name, module_names)
    return smells


def _smells_of(name: str, funcs: list[Function], module_name: str, names: set[str]) -> list[Smell]:
    """``funcs``: the test first, then the helpers of its file it calls (they may assert)."""
    func = funcs[0]
    found: list[Smell] = []
    checks = sum(1 for helper in funcs[1:] for node in ast.walk(helper) if _check_kind(node))
    for node in ast.walk(func):
        kind = _check_kind(node)
        if kind is None:
            continue
        checks += 1
        if kind == "assert" and _is_tautology(node):
            found.append(
                Smell(
                    "tautology", name, getattr(node, "lineno", func.lineno), ast.unparse(node)[:120]
                )
            )
    if checks == 0:
        found.append(Smell("no_assertion", name, func.lineno, "the test asserts nothing"))
    for node, target in _patch_targets(func, module_name):
        if target in names:
            detail = f"patches {module_name}.{target}, which the module under test defines"
            found.append(Smell("mocks_unit_under_test", name, node.lineno, detail))
    return found


def _check_kind(node: ast.AST) -> str | None:
    """ "assert" for an assertion statement or call, "raises" for an expected-error block."""
    if isinstance(node, ast.Assert):
        return "assert"
    if isinstance(node, ast.Call):
        attr = called_name(node)
        if attr in _RAISES:
            return "raises"
        if attr is not None and attr.startswith(_UNITTEST_ASSERT_PREFIXES):
            return "assert"
        if attr is not None and attr.startswith("assert_"):  # mock.assert_called_once_with
            return "assert"
    return None


def _is_tautology(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        return _always_true(node.test)
    assert isinstance(node, ast.Call)
    attr = called_name(node)
    if attr in _EQUALITY_ASSERTS and len(node.args) >= 2:
        return _same(node.args[0], node.args[1])
    if attr in _TRUTH_ASSERTS and node.args and isinstance(node.args[0], ast.Constant):
        return bool(node.args[0].value) is _TRUTH_ASSERTS[attr]
    return False


def _always_true(test: ast.expr) -> bool:
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        if isinstance(left, ast.Constant) and isinstance(right, ast.Constant):
            return True  # two literals: the outcome is fixed whatever the code does
        reflexive = (ast.Eq, ast.Is, ast.GtE, ast.LtE)
        return isinstance(test.ops[0], reflexive) and _same(left, right)
    return False


def _same(left: ast.expr, right: ast.expr) -> bool:
    return ast.dump(left) == ast.dump(right)


def _patch_targets(func: ast.AST, module_name: str) -> Iterator[tuple[ast.Call, str]]:
    """Names patched on the module under test: ``patch("mod.f")`` and ``patch.object(mod, "f")``."""
    short = module_name.rsplit(".", 1)[-1]
    for node in ast.walk(func):
        if not isinstance(node, ast.Call) or called_name(node) not in _PATCHERS or not node.args:
            continue
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            owner, _, attr = first.value.rpartition(".")
            if owner == module_name:
                yield node, attr
        elif len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
            owner_text = ast.unparse(first)
            if owner_text in (module_name, short) and isinstance(node.args[1].value, str):
                yield node, node.args[1].value
