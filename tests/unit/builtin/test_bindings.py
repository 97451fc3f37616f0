"""What names in a test stand for: values followed statically through assignments, tables
and parametrize."""

from __future__ import annotations

import ast
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tddforge.builtin.bindings import (
    MAX_ROWS,
    MISSING,
    Reference,
    evaluate,
    parametrized,
    settle,
    source_of,
    walk,
)

ENV = {
    "len": 7,
    "s": "ab",
    "n": 3,
    "table": (("x", 1), ("y", 2)),
    "self.text": "t",
    "T.CASES": [1, 2],
}

EVALUATE = [
    ("a literal", "'a\\nb'", "a\nb"),
    ("a bound name", "s", "ab"),
    ("an unbound name", "missing", MISSING),
    ("a builtin type as a value", "int", Reference("int")),
    (
        "a schema of types",
        "{'q': int, 'r': [str]}",
        {"q": Reference("int"), "r": [Reference("str")]},
    ),
    ("a builtin the test rebinds", "len", 7),
    ("self's attribute", "self.text", "t"),
    ("a class attribute", "T.CASES", [1, 2]),
    ("another object's attribute", "os.sep", MISSING),
    ("a row's cell", "table[1][0]", "y"),
    ("an index past the end", "table[5]", MISSING),
    ("a slice", "s[1:]", "b"),
    ("a slice with an unknown bound", "s[:k]", MISSING),
    ("a tuple of bound names", "(s, n)", ("ab", 3)),
    ("a starred element", "[*table]", MISSING),
    # a row keeps what is known of it: the text, not the expected object
    ("a tuple partly known", "(s, make(s))", ("ab", MISSING)),
    ("a table of partly known rows", "[(s, make()), (n, make())]", [("ab", MISSING), (3, MISSING)]),
    ("a tuple of nothing known", "(make(), other)", MISSING),
    ("an empty tuple", "()", ()),
    ("a dict", "{s: n}", {"ab": 3}),
    ("a dict unpacking another", "{**d}", MISSING),
    ("an unhashable set member", "{[1]}", MISSING),
    ("concatenated texts", "s + '-' + s", "ab-ab"),
    ("text and a number", "s + n", MISSING),
    ("a repeated text", "s * n", "ababab"),
    ("a text repeated past the size limit", "s * 5000", MISSING),
    ("arithmetic", "-n * 2 - 1", -7),
    ("division is not followed", "n / 2", MISSING),
    ("a bool is not a number here", "True + 1", MISSING),
    (".items() of a dict", "{'a': 1}.items()", [("a", 1)]),
    ("enumerate", "enumerate(s)", [(0, "a"), (1, "b")]),
    ("zip", "zip(s, [1, 2])", [("a", 1), ("b", 2)]),
    ("range", "range(n)", [0, 1, 2]),
    ("a huge range", "range(10**9)", MISSING),
    ("sorted", "sorted([2, 1])", [1, 2]),
    ("a call of anything else", "make(s)", MISSING),
    ("a builtin with keywords", "sorted(t, key=len)", MISSING),
]


@pytest.mark.parametrize(("case", "source", "expected"), EVALUATE, ids=[c[0] for c in EVALUATE])
def test_evaluate(case: str, source: str, expected: Any) -> None:
    assert evaluate(ast.parse(source, mode="eval").body, ENV) == expected


def test_evaluate_asks_the_caller_about_calls_it_does_not_know() -> None:
    def built(node: ast.Call, env: Any) -> Any:
        return ("built", ast.unparse(node))

    assert evaluate(ast.parse("[Game(1)]", mode="eval").body, {}, built) == [("built", "Game(1)")]


def _walked(source: str) -> list[tuple[str, list[dict[str, Any]]]]:
    """Each call in ``source``'s first function, with the environments in force there."""
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    return [
        (ast.unparse(node), [dict(e) for e in envs])
        for node, envs in walk(function.body, [{}])
        if isinstance(node, ast.Call)
    ]


def test_walk_binds_rows_in_loops_and_unbinds_after() -> None:
    source = (
        "def t():\n    for a, b in [(1, 2), (3, 4)]:\n        f(a)\n"
        "        for c in 'xy', 'z':\n            g(c)\n    h(a)\n"
    )
    assert _walked(source) == [
        ("f(a)", [{"a": 1, "b": 2}, {"a": 3, "b": 4}]),
        (
            "g(c)",
            [
                {"a": 1, "b": 2, "c": "xy"},
                {"a": 1, "b": 2, "c": "z"},
                {"a": 3, "b": 4, "c": "xy"},
                {"a": 3, "b": 4, "c": "z"},
            ],
        ),
        ("h(a)", [{}]),
    ]


def test_walk_follows_if_with_try_and_match_bodies() -> None:
    source = (
        "def t():\n    x = 1\n    if x:\n        f(x)\n    with open(p) as x:\n        g(x)\n"
        "    try:\n        y = 2\n        h(y)\n    except E:\n        pass\n"
        "    match y:\n        case 1:\n            k(y)\n"
    )
    found = dict(_walked(source))
    assert found["f(x)"] == [{"x": 1}]
    assert found["g(x)"] == [{}]  # ``as x`` rebinds it to what is unknown
    assert found["h(y)"] == [{"y": 2}]
    assert "k(y)" in found


def test_the_rows_in_force_are_capped() -> None:
    source = (
        "def t():\n    for a in range(100):\n        for b in range(100):\n            f(a, b)\n"
    )
    envs = dict(_walked(source))["f(a, b)"]
    assert len(envs) == MAX_ROWS
    assert envs[-1] == {"a": 2, "b": 99}


def test_settle_keeps_assignments_and_forgets_loop_names() -> None:
    body = ast.parse("A = 'x'\nB = A + 'y'\nfor A in load():\n    pass\nC: int = 4\n").body
    assert settle(body, {}) == {"B": "xy", "C": 4}


PARAMETRIZED = [
    ("no decorator", "def t(a): pass", [{}]),
    (
        "one name, rows are values",
        "@pytest.mark.parametrize('a', [(1, 2)])\ndef t(a): pass",
        [{"a": (1, 2)}],
    ),
    (
        "a list of one name, rows are tuples",
        "@pytest.mark.parametrize(['a'], [(1,)])\ndef t(a): pass",
        [{"a": 1}],
    ),
    (
        "a row of the wrong length is left out",
        "@pytest.mark.parametrize('a,b', [(1,), (1, 2)])\ndef t(a, b): pass",
        [{"a": 1, "b": 2}],
    ),
    (
        "a table that is a text binds nothing",
        "@parametrize('a', [1, 2])\n@parametrize('b', 'xy')\ndef t(a, b): pass",
        [{"a": 1}, {"a": 2}],
    ),
    (
        "stacked decorators with lists",
        "@parametrize('a', [1, 2])\n@parametrize('b', ['x'])\ndef t(a, b): pass",
        [{"a": 1, "b": "x"}, {"a": 2, "b": "x"}],
    ),
    (
        "a row whose expected value is not literal binds its input",
        "@pytest.mark.parametrize('text,expected', [('2007-01-01', datetime(2007, 1, 1))])\n"
        "def t(text, expected): pass",
        [{"text": "2007-01-01", "expected": MISSING}],
    ),
    (
        "unknown rows bind nothing",
        "@pytest.mark.parametrize('a', load())\ndef t(a): pass",
        [{}],
    ),
]


@pytest.mark.parametrize(
    ("case", "source", "expected"), PARAMETRIZED, ids=[c[0] for c in PARAMETRIZED]
)
def test_parametrized(case: str, source: str, expected: list[dict[str, Any]]) -> None:
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    assert [dict(e) for e in parametrized(function.decorator_list, {})] == expected


_LEAF = st.sampled_from(["s", "n", "table", "x", "1", "'a'", "()", "None", "-1", "2.5", "b'z'"])


def _combine(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "%", "**"]), inner).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}:]"),
        st.lists(inner, max_size=3).map(lambda xs: f"[{', '.join(xs)}]"),
        st.tuples(inner, inner).map(lambda t: f"{{{t[0]}: {t[1]}}}"),
        st.tuples(
            st.sampled_from(["enumerate", "zip", "range", "sorted", "reversed", "list", "f"]),
            st.lists(inner, max_size=2),
        ).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        inner.map(lambda x: f"({x}).items()"),
        inner.map(lambda x: f"-{x}"),
    )


@settings(max_examples=300, deadline=None)
@given(st.recursive(_LEAF, _combine, max_leaves=8))
def test_evaluate_never_raises(source: str) -> None:
    evaluate(ast.parse(source, mode="eval").body, ENV)


def test_a_schema_of_types_is_written_as_its_source() -> None:
    value = evaluate(ast.parse("{'q': int, 'r': [str]}", mode="eval").body, {})
    assert source_of(value) == "{'q': int, 'r': [str]}"
