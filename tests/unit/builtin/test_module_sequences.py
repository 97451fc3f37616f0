"""Call sequences on the module's own state: what changes it, what reads it, what to run."""

from __future__ import annotations

import textwrap

import pytest

from tddforge.builtin.explore import Call, CallResult, Outcome, Step
from tddforge.builtin.module_sequences import StateUse, known, plan_module_sequences, state_uses
from tddforge.builtin.writer import write_module

WORLD = textwrap.dedent(
    """\
    from itertools import count as _count

    _ids = _count(start=1)
    _things = {}
    _handlers = []
    _mode = "plain"


    def create(*parts):
        ident = next(_ids)
        _things[ident] = list(parts)
        return ident


    def part(ident, kind):
        for value in _things[ident]:
            if isinstance(value, kind):
                return value
        raise LookupError(ident)


    def on(handler):
        _handlers.append(handler)


    def fire():
        for handler in _handlers:
            handler()


    def use(mode):
        global _mode
        _mode = mode


    def build(*parts):
        return create(*parts)


    def describe():
        return f"{_mode}: {len(_things)}"


    def pure(x):
        return x + 1
    """
)


def test_state_uses_finds_who_changes_and_who_reads_the_modules_state() -> None:
    uses = state_uses(WORLD)
    assert uses.writes == {
        "create": {"_ids", "_things"},  # an iterator advanced, a container stored into
        "on": {"_handlers"},
        "use": {"_mode"},  # a global rebound
        "build": {"_ids", "_things"},  # through the function it calls
    }
    assert uses.reads["part"] == {"_things"}
    assert uses.reads["describe"] == {"_mode", "_things"}
    assert uses.reads["pure"] == frozenset()


@pytest.mark.parametrize(
    ("function", "kinds"),
    [
        ("part", {"create", "build"}),  # what changes ``_things``
        ("fire", {"on"}),
        ("describe", {"create", "build", "use"}),
        ("pure", {"create", "build", "on", "use"}),  # reads none of it: every changer
    ],
)
def test_a_function_is_run_after_the_changers_of_what_it_reads(
    function: str, kinds: set[str]
) -> None:
    assert state_uses(WORLD).kinds_for(function) == kinds


@pytest.mark.parametrize("source", ["def broken(:\n", "", "x = 1\n"])
def test_state_uses_of_a_module_without_functions_or_that_does_not_parse(source: str) -> None:
    assert state_uses(source) == StateUse()


def _returned(call: Call, text: str) -> CallResult:
    return CallResult(call, frozenset(), Outcome("return", "int", "builtins", text, True), True)


def _raised(call: Call) -> CallResult:
    return CallResult(call, frozenset(), Outcome("raise", "KeyError", "builtins"), True)


SEEN = [
    _returned(Call("create"), "1"),
    _returned(Call("create", ("'a'", "1")), "1"),
    _raised(Call("part", ("0", "int"))),
    _returned(Call("pure", ("1",)), "2"),
]


def test_a_reader_runs_after_the_richest_step_given_what_it_returned_and_its_type() -> None:
    """``part(0, int)`` raised on an empty module: after ``create('a', 1)`` (which
    stores most) it is given the number ``create`` returned, and asked for the type of
    a value stored (``str``, the one it did not ask for)."""
    planned = plan_module_sequences(SEEN, state_uses(WORLD), per_method=4)
    step = Step("create", ("'a'", "1"))
    assert Call("part", ("0", "int"), before=(step,)) in planned
    assert Call("part", ("1", "int"), before=(step,)) in planned
    assert Call("part", ("1", "str"), before=(step,)) in planned
    # ``create`` runs after two of its own other steps first (a third entry)
    firsts = [c.before for c in planned if c.target == "create"]
    assert firsts[0] == (step, step)


def test_nothing_is_planned_again_from_the_same_steps() -> None:
    uses = state_uses(WORLD)
    first = plan_module_sequences(SEEN, uses, per_method=4)
    assert first
    again = plan_module_sequences(SEEN, uses, per_method=4, planned=known(SEEN, set(uses.writes)))
    assert again == []
    # nor what was tried
    assert plan_module_sequences(SEEN, uses, per_method=4, tried=set(first)) == []


def test_a_step_that_returned_only_after_others_is_tried_first_as_a_chain() -> None:
    steps = (Step("create", ("'a'", "1")),)
    chained = _returned(Call("create", ("2",), before=steps), "2")
    planned = plan_module_sequences([*SEEN, chained], state_uses(WORLD), per_method=4)
    reads = [c for c in planned if c.target == "part"]
    assert reads[0].before == (*steps, Step("create", ("2",)))


def test_no_sequences_without_changers_or_without_steps_seen() -> None:
    assert plan_module_sequences(SEEN, StateUse(), per_method=4) == []
    raised_only = [_raised(Call("create", ("[]",))), SEEN[2]]
    assert plan_module_sequences(raised_only, state_uses(WORLD), per_method=4) == []


def test_a_functions_steps_are_written_before_it_and_imported() -> None:
    steps = (Step("create", ("'a'", "1")),)
    call = Call(
        "part",
        ("1", "str"),
        before=steps,
        copied=("_things",),
        rebuilt=(("_ids", "_count(start=1)"),),
    )
    source = write_module("world", [_returned(call, "'a'")])
    assert "from world import _count, _things, create, part\n" in source
    body = source.split("def test_part_after_create_returns_a(", 1)[1]
    lines = [line.strip() for line in body.splitlines()]
    start = lines.index("monkeypatch.setattr('world._things', copy.copy(_things))")
    assert lines[start : start + 4] == [
        "monkeypatch.setattr('world._things', copy.copy(_things))",
        "monkeypatch.setattr('world._ids', _count(start=1))",
        "create('a', 1)",
        "assert part(1, str) == 'a'",
    ]
