"""The search's neighbours: one argument mutated at a time, within its hint."""

from __future__ import annotations

import pytest

from tddforge.builtin.discover import CallableInfo
from tddforge.builtin.explore import Call
from tddforge.builtin.search import (
    MAX_BATCH,
    first_calls_ahead,
    given_by_parameter,
    neighbours,
)


def func(*params: tuple[str, str | None, str]) -> CallableInfo:
    return CallableInfo.model_validate(
        {
            "name": "f",
            "qualname": "f",
            "kind": "function",
            "returns": None,
            "docstring": None,
            "doctests": [],
            "is_async": False,
            "is_generator": False,
            "lines": None,
            "parameters": [
                {
                    "name": n,
                    "annotation": a,
                    "kind": k,
                    "has_default": False,
                    "default": None,
                    "default_is_literal": False,
                }
                for n, a, k in params
            ],
        }
    )


POS = "positional_or_keyword"


@pytest.mark.parametrize(
    ("call", "params", "expected"),
    [
        pytest.param(
            Call("f", ("7",)),
            [("n", "int", POS)],
            [("8",), ("6",), ("-7",), ("0",)],
            id="int-plus-minus-sign-zero",
        ),
        pytest.param(Call("f", ("0",)), [("n", "int", POS)], [("1",), ("-1",)], id="no-repeats"),
        pytest.param(Call("f", ("True",)), [("b", "bool", POS)], [("False",)], id="bool"),
        pytest.param(
            Call("f", ("'ab'",)),
            [("s", "str", POS)],
            [("''",), ("'a'",), ("'abab'",), ("'AB'",), ("' ab'",)],
            id="str",
        ),
        pytest.param(
            Call("f", ("1", "'x'")),
            [("n", "int", POS), ("s", None, POS)],
            [
                ("2", "'x'"),
                ("0", "'x'"),
                ("-1", "'x'"),
                ("1", "''"),
                ("1", "'xx'"),
                ("1", "'X'"),
                ("1", "' x'"),
            ],
            id="one-argument-at-a-time",
        ),
        pytest.param(Call("f", ("2.0",)), [("n", "int", POS)], [], id="hint-filters-mutations"),
    ],
)
def test_neighbours_of_positional_arguments(
    call: Call, params: list[tuple[str, str | None, str]], expected: list[tuple[str, ...]]
) -> None:
    assert [c.args for c in neighbours(call, func(*params))] == expected


def test_neighbours_of_keyword_arguments_keep_the_rest() -> None:
    call = Call("f", ("1",), (("k", "3"),), init_args=("'box'",))
    found = neighbours(call, func(("n", "Literal[1]", POS), ("k", "int", "keyword_only")))
    assert found == [
        Call("f", ("1",), (("k", "4"),), init_args=("'box'",)),
        Call("f", ("1",), (("k", "2"),), init_args=("'box'",)),
        Call("f", ("1",), (("k", "-3"),), init_args=("'box'",)),
        Call("f", ("1",), (("k", "0"),), init_args=("'box'",)),
    ]


def test_an_optional_keyword_left_out_is_tried_with_its_candidates() -> None:
    f = func(("doc", "dict", POS), ("default", None, POS), ("strict", None, "keyword_only"))
    options = {"default": ["0", "None", "'x'", "[]", "{}"], "strict": ["True", "False"]}
    added = [c.kwargs for c in neighbours(Call("f", ("{}",)), f, options) if c.kwargs]
    assert added == [
        (("default", "0"),),
        (("default", "None"),),
        (("default", "'x'"),),
        (("default", "[]"),),
        (("strict", "True"),),
        (("strict", "False"),),
    ]
    given = Call("f", ("{}", "0"))  # default given by position: not added again by keyword
    assert all(name != "default" for c in neighbours(given, f, options) for name, _ in c.kwargs)


def test_what_the_tests_pass_to_a_parameter_of_a_name_is_offered_to_every_function() -> None:
    reach = func(("graph", None, POS), ("start", None, POS))
    chain = func(("graph", None, POS), ("strict", None, "keyword_only"))
    funcs = {"reach": reach, "chain": chain}
    seeded = [
        Call("reach", ("pkg.Graph([(1, 2), (1, 3)])", "1")),
        Call("chain", ("pkg.Graph([(1, 2)])",), (("strict", "True"),)),
        Call("chain", ("pkg.Graph([(1, 2)])",)),  # once per name
        Call("reach", ("'a'", "2")),
        Call("reach", ("'b'", "3")),  # past the limit
        Call("unknown", ("9",)),  # not a callable of the module
    ]
    assert given_by_parameter(seeded, funcs) == {
        "graph": ["pkg.Graph([(1, 2), (1, 3)])", "pkg.Graph([(1, 2)])", "'a'"],
        "start": ["1", "2", "3"],
        "strict": ["True"],
    }


def test_each_callables_first_planned_calls_come_first() -> None:
    calls = [
        Call("A", ("1",)),
        Call("A", ("2",)),
        Call("A", ("3",)),
        Call("A.m", ("1",), init_args=()),
        Call("B", ()),
        Call("B.m", ("1",), init_args=()),
        Call("B.m", ("2",), init_args=()),
    ]
    assert first_calls_ahead(calls, first=1, batch=2) == [
        Call("A", ("1",)),
        Call("A.m", ("1",), init_args=()),
        Call("B", ()),
        Call("B.m", ("1",), init_args=()),
        Call("A", ("2",)),
        Call("A", ("3",)),
        Call("B.m", ("2",), init_args=()),
    ]
    assert first_calls_ahead(calls, first=2, batch=2) == [*calls[:2], *calls[3:], calls[2]]
    assert first_calls_ahead([]) == []


def test_planned_calls_that_fit_in_a_round_keep_their_order() -> None:
    calls = [Call("A", (str(i),)) for i in range(3)] + [Call("B", ())]
    assert first_calls_ahead(calls, first=1) == calls
    many = [Call("A", (str(i),)) for i in range(MAX_BATCH)] + [Call("B", ())]
    assert first_calls_ahead(many, first=1)[:3] == [many[0], Call("B", ()), many[1]]
