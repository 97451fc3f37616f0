"""The special methods a test reaches through syntax (pure)."""

from __future__ import annotations

import ast

import pytest

from tddforge.builtin.special_uses import special_uses


def _uses(source: str) -> list[tuple[str, str, tuple[str, ...]]]:
    tree = ast.parse(source)
    node = tree.body[0]
    if isinstance(node, ast.Expr):
        node = node.value  # type: ignore[assignment]
    return [
        (u.method, ast.unparse(u.receiver), tuple(map(ast.unparse, u.operands)))
        for u in special_uses(node)
    ]


CASES = [
    ("subscript", "d['a.b']", [("__getitem__", "d", ("'a.b'",))]),
    ("item assignment", "d['a'] = 1", [("__setitem__", "d", ("'a'", "1"))]),
    ("two targets, one subscript", "x = d[0] = 2", [("__setitem__", "d", ("0", "2"))]),
    ("item deletion", "del d['a'], e", [("__delitem__", "d", ("'a'",))]),
    ("membership", "'a' in d", [("__contains__", "d", ("'a'",))]),
    ("non-membership", "'a' not in d", [("__contains__", "d", ("'a'",))]),
    ("assertIn", "self.assertIn('a', d)", [("__contains__", "d", ("'a'",))]),
    ("assertNotIn with a message", "self.assertNotIn(1, s, 'm')", [("__contains__", "s", ("1",))]),
    ("equality", "a == b", [("__eq__", "a", ("b",))]),
    ("ordering", "a >= 2", [("__ge__", "a", ("2",))]),
    ("a chained comparison is two", "a < b < c", []),
    ("identity is no method", "a is b", []),
    ("binary: both sides", "a | b", [("__or__", "a", ("b",)), ("__ror__", "b", ("a",))]),
    ("division", "a / 2", [("__truediv__", "a", ("2",)), ("__rtruediv__", "2", ("a",))]),
    ("negation", "-a", [("__neg__", "a", ())]),
    ("not is no method", "not a", []),
    ("len", "len(s)", [("__len__", "s", ())]),
    ("list iterates", "list(s)", [("__iter__", "s", ())]),
    ("format is read where f-strings are", "format(v, '>5')", []),
    ("len with a keyword is not len's", "len(s, k=1)", []),
    ("a starred argument", "len(*s)", []),
    ("an attribute assignment", "d.a = 1", []),
    ("a plain call", "f(d)", []),
]


@pytest.mark.parametrize(("case", "source", "expected"), CASES, ids=[c[0] for c in CASES])
def test_special_uses(
    case: str, source: str, expected: list[tuple[str, str, tuple[str, ...]]]
) -> None:
    assert _uses(source) == expected
