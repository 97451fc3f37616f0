"""Calls that reach the cases of a ``match`` on a function's parameters: source -> calls."""

from __future__ import annotations

import ast
from textwrap import dedent

import pytest

from tddforge.builtin.discover import CallableInfo, ModuleInfo, Param
from tddforge.builtin.explore import Call
from tddforge.builtin.match_cases import MAX_CALLS, match_calls


def _info(source: str) -> ModuleInfo:
    """The public functions of ``source``, described as the probe would."""
    functions = []
    try:
        body = ast.parse(source).body
    except SyntaxError:
        body = []
    for node in body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.name[0] == "_":
            continue
        args = node.args.args
        defaults = len(node.args.defaults)
        params = tuple(
            Param(
                name=a.arg,
                kind="positional_or_keyword",
                annotation=None,
                has_default=i >= len(args) - defaults,
                default=None,
                default_is_literal=False,
            )
            for i, a in enumerate(args)
        )
        functions.append(
            CallableInfo(
                name=node.name,
                qualname=node.name,
                kind="function",
                parameters=params,
                returns=None,
                docstring=None,
                doctests=(),
                is_async=isinstance(node, ast.AsyncFunctionDef),
                is_generator=any(isinstance(n, ast.Yield) for n in ast.walk(node)),
                lines=None,
            )
        )
    return ModuleInfo(
        name="m", file=None, docstring=None, doctests=(), functions=tuple(functions), classes=()
    )


def _calls(source: str) -> list[Call]:
    source = dedent(source)
    return match_calls(source, _info(source))


GRAPHEME = """
def get_break_possibility(a, b):
    match (a, b):
        case (GCB.OTHER, GCB.OTHER):
            return 1
        case (GCB.CR | GCB.LF, GCB.CONTROL | GCB.LF):
            return 2
        case (_, GCB.EXTEND):
            return 3
        case (GCB.PREPEND, _):
            return 4
    return 5
"""


def kw(target: str, **values: str) -> Call:
    """A call with these values, positional: every function here takes them first."""
    return Call(target, tuple(values.values()))


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # pairs: a call per case, the first alternative, a wildcard given the value the
        # first case names at its place
        (
            GRAPHEME,
            [
                kw("get_break_possibility", a="GCB.OTHER", b="GCB.OTHER"),
                kw("get_break_possibility", a="GCB.CR", b="GCB.CONTROL"),
                kw("get_break_possibility", a="GCB.OTHER", b="GCB.EXTEND"),
                kw("get_break_possibility", a="GCB.PREPEND", b="GCB.OTHER"),
            ],
        ),
        # one parameter: literals, singletons, sequences and mappings; captures, class
        # patterns and stars give nothing
        (
            """
            def command(cmd, verbose=False):
                match cmd:
                    case "quit" | "exit":
                        return 0
                    case None:
                        return 1
                    case ["go", direction]:
                        return direction
                    case {"type": "string", "min": n}:
                        return n
                    case Point(x=0):
                        return 2
                    case [first, *rest]:
                        return first
                    case other if other:
                        return 3
            """,
            [
                kw("command", cmd="'quit'"),
                kw("command", cmd="None"),
                kw("command", cmd="['go', None]"),
                kw("command", cmd="{'type': 'string', 'min': None}"),
            ],  # the last three are given the first case's value: calls already made
        ),
        # a generator is consumed
        (
            "def g(x):\n    match x:\n        case 1:\n            yield 1\n",
            [Call("g", ("1",), consume=True)],
        ),
        # a required parameter the match does not name; a subject that is not a parameter;
        # a private or nested function; an attribute of one: nothing
        ("def f(x, y):\n    match x:\n        case 1:\n            return y\n", []),
        ("def f(x):\n    match x.kind:\n        case 1:\n            return x\n", []),
        ("def f(x):\n    match len(x):\n        case 1:\n            return x\n", []),
        ("def _f(x):\n    match x:\n        case 1:\n            return x\n", []),
        (
            "def f(x):\n    def g(y):\n        match y:\n            case 1:\n"
            "                return y\n    return g(x)\n",
            [],
        ),
        # a tuple pattern of the wrong length, a wildcard no case fills
        ("def f(a, b):\n    match (a, b):\n        case (1, 2, 3):\n            return 0\n", []),
        ("def f(a, b):\n    match (a, b):\n        case (1, _):\n            return 0\n", []),
        ("def f(:\n", []),
    ],
)
def test_match_calls(source: str, expected: list[Call]) -> None:
    assert _calls(source) == expected


def test_a_long_dispatch_is_cut() -> None:
    cases = "".join(f"        case {i}:\n            return {i}\n" for i in range(MAX_CALLS + 5))
    calls = _calls(f"def f(x):\n    match x:\n{cases}")
    assert [c.args for c in calls] == [(str(i),) for i in range(MAX_CALLS)]


def test_parameters_the_match_names_out_of_order_are_given_by_keyword() -> None:
    source = "def f(a, b):\n    match (b, a):\n        case (1, 2):\n            return 0\n"
    assert _calls(source) == [Call("f", ("2", "1"))]  # still its first two: positional
    source = "def f(a, b=0, c=1):\n    match (c, a):\n        case (1, 2):\n            return 0\n"
    assert _calls(source) == [Call("f", kwargs=(("c", "1"), ("a", "2")))]
