"""The mutant-directed phase's decisions, as tables: what is observed, planned, killed, chosen."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tddforge.builtin.explore import Call, CallResult, Outcome
from tddforge.builtin.targeting import (
    call_site_strings,
    calls_with_inputs,
    choose,
    inputs_from_lines,
    kills,
    line_literals,
    line_strings,
    observed,
    plan,
    public_data,
    users_of_line,
)
from tddforge.mutation.mutant import Mutant

RET_1 = Outcome("return", "int", "builtins", "1", literal=True)
RET_2 = Outcome("return", "int", "builtins", "2", literal=True)
BOX_A = Outcome("return", "Box", "m", "<Box at 0x1>", state=(("size", "1"),))
BOX_A_ELSEWHERE = Outcome("return", "Box", "m", "<Box at 0x2>", state=(("size", "1"),))
BOX_B = Outcome("return", "Box", "m", "<Box at 0x1>", state=(("size", "2"),))
PLAIN = Outcome("return", "Thing", "m", "<Thing at 0x1>")
PLAIN_ELSEWHERE = Outcome("return", "Thing", "m", "<Thing at 0x9>")
RAISE_A = Outcome("raise", "ValueError", "builtins", message="bad")
RAISE_B = Outcome("raise", "ValueError", "builtins", message="worse")
NONE_AFTER_1 = Outcome("return", "NoneType", "builtins", "None", literal=True, after=(("n", "1"),))
NONE_AFTER_2 = Outcome("return", "NoneType", "builtins", "None", literal=True, after=(("n", "2"),))
TIMEOUT = Outcome("timeout")


@pytest.mark.parametrize(
    ("a", "b", "told_apart"),
    [
        (RET_1, RET_1, False),
        (RET_1, RET_2, True),
        (BOX_A, BOX_A_ELSEWHERE, False),  # only the address differs: no assertion sees it
        (BOX_A, BOX_B, True),  # a public field differs
        (PLAIN, PLAIN_ELSEWHERE, False),  # asserted through its type only
        (RAISE_A, RAISE_B, True),  # pytest.raises(match=) sees the message
        (RAISE_A, RET_1, True),
        (NONE_AFTER_1, NONE_AFTER_2, True),  # the instance's state after a method
    ],
)
def test_observed_is_what_the_written_assertions_pin_down(
    a: Outcome, b: Outcome, told_apart: bool
) -> None:
    assert (observed(a) != observed(b)) is told_apart


VARIES = Outcome("return", "str", "builtins", varies=True)
TEXT = Outcome("return", "str", "builtins", "'x'", literal=True)


@pytest.mark.parametrize(
    ("mutated", "told_apart"),
    [
        (TEXT, False),  # another string: the test asserts the type only
        (RET_1, True),  # another type
        (RAISE_A, True),
    ],
)
def test_a_varying_value_tells_mutants_apart_by_its_type_only(
    mutated: Outcome, told_apart: bool
) -> None:
    assert (observed(mutated, VARIES) != observed(VARIES)) is told_apart
    assert bool(kills([CallResult(Call("f"), frozenset(), VARIES, True)], {"m": {0: mutated}})) is (
        told_apart
    )


def mutant(ident: str, line: int) -> Mutant:
    return Mutant(ident, "op", line, 0, line, 1, "<", "<=")


def result(target: str, arcs: set[tuple[int, int]], deterministic: bool = True) -> CallResult:
    return CallResult(Call(target, (str(len(arcs)),)), frozenset(arcs), RET_1, deterministic)


POOL = [
    result("f", {(-1, 2), (2, 3)}),
    result("f", {(-1, 2), (2, 5)}),
    result("g", {(-7, 8), (8, 3)}),
    result("g", {(-7, 8), (8, 9)}, deterministic=False),
    result("h", {(-11, 12)}),
]


@pytest.mark.parametrize(
    ("line", "per_mutant", "expected"),
    [
        (3, 12, (0, 2)),  # both calls whose arcs touch line 3, one per target in turn
        (2, 1, (0,)),
        (9, 12, None),  # only a non-deterministic call ran line 9: nothing to try
        (30, 2, (0, 2)),  # no call traced line 30 (import-time code): any calls, spread
    ],
)
def test_plan_pairs_each_mutant_with_the_calls_that_ran_its_lines(
    line: int, per_mutant: int, expected: tuple[int, ...] | None
) -> None:
    plans = plan([mutant("m", line)], POOL, per_mutant=per_mutant)
    assert (plans[0].calls if plans else None) == expected


def test_kills_compares_with_the_original_and_ignores_timeouts() -> None:
    runs = {
        "m1": {0: RET_2, 1: RET_1},
        "m2": {0: RET_2, 2: TIMEOUT},
        "m3": {1: RAISE_A},
    }
    assert kills(POOL, runs) == {0: {"m1", "m2"}, 1: {"m3"}}


@pytest.mark.parametrize(
    ("killers", "expected"),
    [
        ({}, []),
        ({0: {"a"}, 1: {"a", "b"}, 2: {"c"}}, [1, 2]),  # 1 kills two; 0 adds nothing after it
        ({3: {"a"}, 1: {"a"}}, [1]),  # a tie goes to the earlier call
        ({0: {"a", "b"}, 1: {"b", "c"}, 2: {"c", "d"}}, [0, 2]),
    ],
)
def test_choose_is_a_greedy_cover(killers: dict[int, set[str]], expected: list[int]) -> None:
    assert choose(killers) == expected


TABLE = """\
import re

PLURALS = [
    (r"(?i)(ox)$", r"\\1en"),
    (r"(?i)(m)ouse$", r"\\1ice"),
]
LIMIT = 3


def pluralize(word):
    for rule, replacement in PLURALS:
        if re.search(rule, word):
            return re.sub(rule, replacement, word)
    return word


def shout(word):
    return word.upper()
"""


def test_a_table_row_mutant_gets_the_words_its_rule_applies_to() -> None:
    strings = line_strings(TABLE)
    row = Mutant("m", "string", 5, 5, 5, 20, 'r"(?i)(m)ouse$"', '""')
    assert inputs_from_lines(row, strings) == ["mouse", "(?i)(m)ouse$", "\\1ice"]
    assert users_of_line(TABLE, 5) == {"pluralize"}  # reads PLURALS; shout does not
    assert users_of_line(TABLE, 7) is None  # LIMIT: no function reads it
    assert users_of_line(TABLE, 40) is None


def test_calls_with_inputs_swaps_the_first_string_argument() -> None:
    pool = [
        CallResult(Call("pluralize", ("'cat'",)), frozenset(), RET_1, True),
        CallResult(Call("pluralize", ("'dog'",)), frozenset(), RET_1, True),  # one per target
        CallResult(Call("shout", ("'a'",)), frozenset(), RET_1, True),
        CallResult(Call("count", ("3",)), frozenset(), RET_1, True),  # no string argument
    ]
    assert calls_with_inputs(pool, ["mouse"], {"pluralize", "count"}) == [
        Call("pluralize", ("'mouse'",))
    ]
    assert calls_with_inputs(pool, ["mouse"]) == [
        Call("pluralize", ("'mouse'",)),
        Call("shout", ("'mouse'",)),
    ]


IRREGULAR = """\
PLURALS = []


def _irregular(singular, plural):
    PLURALS.insert(0, (singular, plural))


def pluralize(word):
    for single, many in PLURALS:
        if word == single:
            return many
    return word


_irregular("person", "people")
_irregular("man", "men")
"""


def test_a_mutant_in_an_import_time_helper_gets_its_call_sites_words() -> None:
    assert call_site_strings(IRREGULAR, 5) == [
        "person",
        "Person",
        "people",
        "People",
        "man",
        "Man",
        "men",
        "Men",
    ]
    assert users_of_line(IRREGULAR, 5) == {"pluralize"}  # reads PLURALS, which _irregular fills
    assert call_site_strings(IRREGULAR, 9) == []  # pluralize is not called at import


def test_public_data_is_what_the_module_binds_at_top_level_in_source_order() -> None:
    source = (
        "import re\n__version__ = '1.0'\n__all__ = ['f']\n_CACHE = {}\n"
        "RULES = [('a', 'b')]\nLIMIT: int = 3\nLATER: int\nA = B = 1\nRULES = RULES + []\n"
        "def f():\n    INNER = 1\n"
    )
    assert public_data(source) == ["__version__", "RULES", "LIMIT", "A", "B"]


ORDINAL = """\
def ordinal(n):
    if n % 100 in (11, 12, 13):
        return "th"
    return {1: "st", 2: "nd"}.get(n % 10, "th")


def shout(text):
    return text.upper()
"""


def test_calls_holding_the_mutated_lines_constants_come_first() -> None:
    # a table's rows in order: 12 and 112 are not among the first
    pool = [
        CallResult(Call("ordinal", (n,)), frozenset({(-1, 2), (2, 4)}), RET_1, True)
        for n in ("1", "2", "3", "4", "5", "112", "'12'", "12.5")
    ]
    twelve = Mutant("m", "number", 2, 0, 2, 1, "12", "13")
    planned = plan([twelve], pool, per_mutant=4, source=ORDINAL)[0].calls
    # 112 is not 12 as a word, nor is 12.5; the string '12' is
    assert planned == (6, 0, 1, 2)
    assert plan([twelve], pool, per_mutant=4)[0].calls == (0, 1, 2, 3)  # without the source


def test_plans_take_each_function_in_turn() -> None:
    pool = [
        CallResult(Call("ordinal", ("1",)), frozenset({(-1, 2), (2, 4)}), RET_1, True),
        CallResult(Call("shout", ("'a'",)), frozenset({(-7, 8)}), RET_1, True),
    ]
    mutants = [mutant("a", 2), mutant("b", 4), mutant("c", 4), mutant("d", 8)]
    order = [p.mutant.id for p in plan(mutants, pool, source=ORDINAL)]
    assert order == ["a", "d", "b", "c"]
    assert [p.mutant.id for p in plan(mutants, pool)] == ["a", "b", "c", "d"]


def test_line_literals() -> None:
    found = line_literals(ORDINAL)
    assert sorted(found[2]) == ["100", "11", "12", "13"]
    assert sorted(found[4]) == ["1", "10", "2", "nd", "st", "th"]
    assert 1 not in found and 7 not in found  # a def line holds no constant


def test_the_repr_after_a_call_tells_mutants_apart_when_the_original_call_changed_it() -> None:
    changed = replace(NONE_AFTER_1, after_repr="D({'a': 1})")
    mutated = replace(NONE_AFTER_1, after_repr="D({})")
    assert observed(mutated, changed) != observed(changed)
    # the original's call left the repr as it was (nothing written about it)
    assert observed(mutated, NONE_AFTER_1) == observed(NONE_AFTER_1)
