"""Which covering tests name what a mutant changes (``target.affinity``)."""

from __future__ import annotations

import pytest

from tddforge.target.affinity import Affinity, code_words, grouped, line_words
from tddforge.target.source import line_offsets

TESTS = [f"t::fast{i}" for i in range(6)] + ["t::reads_module", "t::reads_both"]
WORDS = {
    **{f"t::fast{i}": frozenset({"curry", "add"}) for i in range(6)},
    "t::reads_module": frozenset({"curry", "__module__"}),
    "t::reads_both": frozenset({"curry", "__module__", "__qualname__"}),
}


FAST = {f"t::fast{i}": 0.001 for i in range(6)}
F = [f"t::fast{i}" for i in range(6)]


@pytest.mark.parametrize(
    ("wanted", "durations", "expected"),
    [
        # nothing of the line named by any test: the order stays
        ({"getattr"}, {}, TESTS),
        # a word every test names says nothing (more than a quarter of them)
        ({"curry"}, {}, TESTS),
        # the tests naming a rare word go first, in their order when they cost the same
        ({"__module__"}, {}, ["t::reads_module", "t::reads_both", *F]),
        # two shared rare words count more than one
        ({"__module__", "__qualname__"}, {}, ["t::reads_both", "t::reads_module", *F]),
        # as cheap as the rest: the named first
        (
            {"__module__"},
            {**FAST, "t::reads_module": 0.002, "t::reads_both": 0.002},
            ["t::reads_module", "t::reads_both", *F],
        ),
        # a named test far slower than the rest: after those cheaper than its time per chance
        (
            {"__module__"},
            {**FAST, "t::reads_module": 0.05, "t::reads_both": 0.002},
            ["t::reads_both", *F, "t::reads_module"],
        ),
        # ... placed among them by its time per chance (0.0065 / (1 + log 4) < 0.003)
        (
            {"__module__"},
            {
                **FAST,
                "t::fast3": 0.003,
                "t::fast4": 0.003,
                "t::fast5": 0.003,
                "t::reads_module": 0.0065,
                "t::reads_both": 0.002,
            },
            [
                "t::reads_both",
                "t::fast0",
                "t::fast1",
                "t::fast2",
                "t::reads_module",
                "t::fast3",
                "t::fast4",
                "t::fast5",
            ],
        ),
    ],
)
def test_tests_naming_rare_words_of_the_line_move_forward(
    wanted: set[str], durations: dict[str, float], expected: list[str]
) -> None:
    ordered = Affinity(WORDS, durations).first(frozenset(wanted), TESTS)
    assert ordered == expected


def test_only_the_tests_given_are_ordered_and_counted() -> None:
    affinity = Affinity(WORDS)
    # among these two, __module__ is named by half: not rare
    assert affinity.first(frozenset({"__module__"}), ["t::fast0", "t::reads_module"]) == [
        "t::fast0",
        "t::reads_module",
    ]
    assert affinity.first(frozenset({"__module__"}), ["t::reads_module"]) == ["t::reads_module"]
    assert Affinity().first(frozenset({"__module__"}), TESTS) == TESTS


def test_the_words_of_a_test_are_its_names_and_its_strings_words() -> None:
    def test_sample() -> None:
        value = make_thing(1)  # noqa: F821 (never called)
        assert value.__module__ == "pkg.mod"

        def inner() -> object:
            return value.attribute_in_inner

        assert inner()

    found = code_words(test_sample.__code__)
    assert {"make_thing", "__module__", "pkg", "mod", "attribute_in_inner"} <= found
    assert not {"None", "True", "self"} & found
    assert all(w.isidentifier() for w in found)  # not pytest's rewriting helpers (@py_...)


def test_the_words_of_a_mutants_lines() -> None:
    source = "a = 1\nself.__module__ = getattr(func, '__module__', None)\nb = other(2)\n"
    offsets = line_offsets(source)
    assert line_words(source, offsets, 2, 2) == {"__module__", "getattr", "func"}
    assert line_words(source, offsets, 2, 3) == {"__module__", "getattr", "func", "b", "other"}
    assert line_words(source, offsets, 3, 3) == {"b", "other"}


def test_words_travel_grouped_by_set_and_come_back_whole() -> None:
    groups = grouped(WORDS)
    assert len(groups) == 3  # six tests share one set
    again = Affinity.of(groups, {})
    assert again.first(frozenset({"__module__"}), TESTS)[:2] == ["t::reads_module", "t::reads_both"]
