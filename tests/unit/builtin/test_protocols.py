"""Instances as a test handles them: compared with their own kind, taken from the calls
that return them."""

from __future__ import annotations

import pytest

from tddforge.builtin.explore import Call, CallResult, Outcome, Step, plan_calls
from tddforge.builtin.protocols import (
    FAILURES_BEFORE,
    call_source,
    calls_after_failures,
    calls_entering,
    calls_of_returned_functions,
    calls_on_returned,
    instances_made_elsewhere,
    returned_instances,
    with_instance_hints,
)
from tddforge.builtin.writer import write_module
from tests.unit.builtin.test_explore_plan import func, klass, module, param


def result(
    call: Call, type_: str, module_: str = "m", *, kind: str = "return", ok: bool = True
) -> CallResult:
    return CallResult(call, frozenset(), Outcome(kind, type_, module_, repr="<x>"), ok)


@pytest.mark.parametrize(
    ("call", "source"),
    [
        (Call("parse", ("'a=1'",)), "parse('a=1')"),
        (Call("parse", ("'a'",), (("strict", "True"),)), "parse('a', strict=True)"),
        (Call("Entry.of", ("1",)), "Entry.of(1)"),  # a class method
        (Call("Entry.copy", init_args=()), "Entry().copy()"),  # built in place
        (
            Call("Entry.copy", ("1",), init_args=("'a'",), init_kwargs=(("b", "2"),)),
            "Entry('a', b=2).copy(1)",
        ),
        (Call("Query.__eq__", ("1",), via="where('a')"), "(where('a') == 1)"),  # an operator
        (Call("Query.__invert__", via="(where('a') == 1)"), "(~(where('a') == 1))"),
        (Call("Query.__getattr__", ("'name'",), init_args=()), "Query().name"),
        (Call("Query.__getitem__", ("'a b'",), init_args=()), "Query()['a b']"),
        (Call("Query.__call__", ("{}",), via="where('a')"), "where('a')({})"),
        (Call("Entry.key", attribute=True, via="parse('a=1')"), "parse('a=1').key"),
        (Call("Entry.__setitem__", ("0", "1"), init_args=()), None),  # a statement
        (Call("Entry.__copy__", init_args=()), None),  # a round trip: the same instance
        (Call("Entry.grow", init_args=(), before=(Step("push", ("1",)),)), None),  # steps
        (Call("Entry.copy", ("'" + "x" * 200 + "'",), init_args=()), None),  # too long
        (Call("parse", consume=True), None),  # a generator: its items, not one value
        (Call("scratch", ("'a'",), enter=True), None),  # entered: what its ``with`` gives
        (Call("TABLE", attribute=True), None),
    ],
)
def test_call_source(call: Call, source: str | None) -> None:
    assert call_source(call) == source


def test_returned_instances_are_the_calls_returning_the_modules_own_classes() -> None:
    seen = [
        result(Call("parse", ("'a=1'",)), "Entry"),
        result(Call("parse", ("'b=2'",)), "Entry"),
        result(Call("parse", ("'c=3'",)), "Entry"),  # past the cap of two per class
        result(Call("Entry", ("'a'", "'1'")), "Entry"),  # built by its class: planned already
        result(Call("load", ("'x'",)), "dict", "builtins"),
        result(Call("parse", ("'#'",)), "ValueError", kind="raise"),
        result(Call("tick", ()), "Entry", ok=False),  # not deterministic
        result(Call("hidden", ()), "_Private"),
    ]
    found = returned_instances(seen, "m", {"Entry"}, per_class=2)
    assert found == {"Entry": ["parse('a=1')", "parse('b=2')"]}


def test_an_instance_returned_by_a_call_on_another_is_followed_after_plain_calls() -> None:
    seen = [
        result(Call("Query.__eq__", ("Query()",), via="where('a')"), "QueryInstance"),
        result(Call("Query.__eq__", ("1",), via="where('a')"), "QueryInstance"),
        result(Call("Query.__eq__", ("2",), via="where('a')"), "QueryInstance"),
        result(Call("Query.__getattr__", ("'b'",), init_args=()), "Query"),
        result(Call("where", ("'a'",)), "Query"),
        result(Call("QueryInstance.__and__", ("1",), init_args=("'x'",)), "QueryInstance"),
        result(Call("QueryInstance.__invert__", init_args=("'y'",)), "QueryInstance"),
    ]
    found = returned_instances(seen, "m", {"Query", "QueryInstance"}, per_class=3)
    assert found == {  # one per callable that makes the class before a second of any
        "QueryInstance": ["(where('a') == 1)", "(QueryInstance('x') & 1)", "(~QueryInstance('y'))"],
        "Query": ["where('a')", "Query().b"],  # the plain call first
    }
    again = returned_instances(seen, "m", {"Query", "QueryInstance"}, per_class=5)
    # literals before an object, whose repr (an address) may leak into the state
    assert again["QueryInstance"][-2:] == ["(where('a') == 2)", "(where('a') == Query())"]


def reached(call: Call, arcs: int, *, kind: str = "return", ok: bool = True) -> CallResult:
    spread = frozenset((n, n + 1) for n in range(arcs))
    return CallResult(call, spread, Outcome(kind, "int", "builtins", repr="1"), ok)


PARSED = "pkg.Parser().parse"


@pytest.mark.parametrize(
    ("case", "seen", "expected"),
    [
        (
            "the objects whose calls reached the most arcs first",
            [
                reached(Call("Token.value", via=f"{PARSED}('1')", attribute=True), 2),
                reached(Call("Token.arity", via=f"{PARSED}('1 + 2')", attribute=True), 5),
                reached(Call("Token.eval", ("1",), via=f"{PARSED}('1')"), 3),
            ],
            {"Token": [f"{PARSED}('1 + 2')", f"{PARSED}('1')"]},
        ),
        (
            "a call that raised, or ran differently twice, does not count",
            [
                reached(Call("Token.eval", via=f"{PARSED}('x')"), 4, kind="raise"),
                reached(Call("Token.eval", via=f"{PARSED}('y')"), 4, ok=False),
            ],
            {},
        ),
        (
            "at most per_class, and not another module's class nor a built instance",
            [
                *(reached(Call("Token.eval", via=f"{PARSED}('{n}')"), n) for n in range(5)),
                reached(Call("Other.eval", via=f"{PARSED}('1')"), 9),
                reached(Call("Token.eval", init_args=("1",)), 9),
                reached(Call("Token.eval", via=f"{PARSED}('{'x' * 200}')"), 9),
            ],
            {"Token": [f"{PARSED}('4')", f"{PARSED}('3')", f"{PARSED}('2')"]},
        ),
    ],
)
def test_instances_made_elsewhere_are_the_objects_a_classs_calls_ran_on(
    case: str, seen: list[CallResult], expected: dict[str, list[str]]
) -> None:
    """elementpath's tokens: made by the package's parsers, as its tests make them; the
    module's class is never built by name."""
    assert instances_made_elsewhere(seen, {"Token"}, per_class=3) == expected


def test_calls_on_returned_move_each_methods_calls_and_read_each_property() -> None:
    eq = func("Entry.__eq__", param("other"), kind="method")
    of = func("Entry.of", param("n"), kind="classmethod")
    info = module([], [klass("Entry", None, eq, of) | {"properties": ["key"]}])
    variants = {
        "Entry.__eq__": [Call("Entry.__eq__", ("1",), init_args=("'x'",))],
        "Entry.of": [Call("Entry.of", ("1",))],
    }
    returned = {"Entry": ["parse('a=1')", "parse('b=2')"]}
    calls = calls_on_returned(info, returned, variants, done={"parse('b=2')"})
    assert calls == [
        Call("Entry.key", attribute=True, via="parse('a=1')"),
        Call("Entry.__eq__", ("1",), via="parse('a=1')"),
    ]


def test_a_comparisons_untyped_operand_is_hinted_as_its_own_class() -> None:
    eq = func("Version.__eq__", param("other"), kind="method")
    lt = func("Version.__lt__", param("other", "int"), kind="method")
    add = func("Version.__add__", param("other"), kind="method")
    info = with_instance_hints(module([], [klass("Version", None, eq, lt, add)]))
    hints = {m.qualname: m.parameters[0].annotation for m in info.classes[0].methods}
    assert hints == {
        "Version.__eq__": "Version | None",
        "Version.__lt__": "int",  # annotated: kept
        "Version.__add__": "Version | Any",  # another version first, then anything
    }


def test_a_returned_function_is_called_in_its_turn() -> None:
    """inject's ``autoparams()`` returns its decorator: called with a function, a number,
    a string and nothing; a wrapper it returns is followed the same way, a level down."""
    seen = [
        result(Call("autoparams"), "function", "builtins"),
        result(Call("autoparams", ("'a'",)), "function", "builtins"),
        result(Call("autoparams", ("'b'",)), "function", "builtins"),  # past two per maker
        result(Call("bind", ("1",)), "partial", "functools"),
        result(Call("loads", ("'1'",)), "int", "builtins"),  # not a function
        result(Call("tick"), "function", "builtins", ok=False),  # not deterministic
        result(Call("Binder.install", ("len",), init_args=()), "function", "builtins"),
        result(Call("autoparams.__call__", ("len",), via="autoparams()"), "function", "builtins"),
    ]
    calls = calls_of_returned_functions(seen, done={"Binder().install(len)"})
    called = {(c.via, c.args) for c in calls}
    sources = list(dict.fromkeys(c.via for c in calls))
    assert sources == ["autoparams()", "autoparams('a')", "bind(1)", "autoparams()(len)"]
    assert ("autoparams()", ("lambda *args: args",)) in called
    assert ("bind(1)", ("1",)) in called and ("bind(1)", ()) in called
    assert {c.target for c in calls} == {"autoparams.__call__", "bind.__call__"}


def test_a_returned_function_that_failed_is_called_again_after_repeated_failures() -> None:
    """circuitbreaker's wrapper opens after five failures: the call after them raises
    ``CircuitBreakerError``, which no single call shows."""
    fail = ("TypeError", "builtins")
    wrapper = "circuit(failure_threshold=len)"
    seen = [
        result(Call("circuit.__call__", ("1",), via=wrapper), *fail, kind="raise"),
        result(Call("circuit.__call__", ("'a'",), via=wrapper), *fail, kind="raise"),  # 2nd
        result(Call("circuit.__call__", ("'a'",), via="circuit(len)"), "int", "builtins"),
        result(Call("cache.__call__", via="cache(len)"), *fail, kind="raise", ok=False),
        result(Call("parse", ("1",)), *fail, kind="raise"),  # not a returned function
        result(Call("Box.__call__", init_args=()), *fail, kind="raise"),
        result(Call("circuit.__call__", via="w", before=(Step("__call__"),)), *fail, kind="raise"),
        result(
            Call("denied.__call__", via="denied()"), "PermissionError", "builtins", kind="raise"
        ),
    ]
    seen[-1] = CallResult(
        seen[-1].call,
        frozenset(),
        Outcome("raise", "PermissionError", "builtins", denied=True),
        True,
    )
    calls = calls_after_failures(seen)
    assert {c.via for c in calls} == {wrapper}
    step = Step("__call__", ("1",), (), fail)
    assert {c.before for c in calls} == {(step,) * times for times in FAILURES_BEFORE}
    assert calls == [
        Call("circuit.__call__", ("1",), via=wrapper, before=(step,) * times)
        for times in FAILURES_BEFORE
    ]


def test_a_call_after_repeated_failures_is_written_as_a_loop() -> None:
    step = Step("__call__", ("1",), (), ("TypeError", "builtins"))
    call = Call("circuit.__call__", ("1",), via="circuit(len)", before=(step,) * 5)
    outcome = Outcome("raise", "CircuitBreakerError", "m")
    source = write_module("m", [CallResult(call, frozenset(), outcome, True)])
    assert (
        "    returned = circuit(len)\n"
        "    for _ in range(5):\n"
        "        with pytest.raises(TypeError):\n"
        "            returned(1)\n"
        "    with pytest.raises(CircuitBreakerError):\n"
        "        returned(1)\n"
    ) in source


def test_a_returned_function_is_written_as_called() -> None:
    call = Call("autoparams.__call__", ("len",), via="autoparams()")
    source = write_module(
        "inj", [CallResult(call, frozenset(), Outcome("return", "int", "builtins", repr="3"), True)]
    )
    assert "    returned = autoparams()\n    result = returned(len)\n" in source


def context(call: Call, *, ok: bool = True, kind: str = "return") -> CallResult:
    """A call seen returning a context manager (or raising)."""
    outcome = Outcome(kind, "_GeneratorContextManager", "contextlib", repr="<x>", context=True)
    return CallResult(call, frozenset(), outcome, ok)


def test_a_call_returning_a_context_manager_is_entered_up_to_a_cap_per_callable() -> None:
    seen = [
        context(Call("scratch", ("'a'",))),
        result(Call("scratch", ("1",)), "str", "builtins"),  # no context manager
        context(Call("scratch", ("''",)), kind="raise"),  # raised before returning one
        context(Call("Session.begin", init_args=("'u'",))),
        context(Call("scratch", ("'a'",))),  # seen twice: entered once
        context(Call("scratch", ("'b'",), enter=True)),  # entered already
        context(Call("scratch", ("'c'",), consume=True)),  # iterated, not entered
        context(Call("scratch", ("'d'",))),
        context(Call("scratch", ("'e'",))),
        context(Call("OPENER", attribute=True)),  # the module's data: not a call
    ]
    done = {Call("scratch", ("'d'",), enter=True)}  # planned before: counts towards the cap
    assert calls_entering(seen, done, per_maker=2) == [
        Call("scratch", ("'a'",), enter=True),
        Call("Session.begin", init_args=("'u'",), enter=True),
    ]
    assert calls_entering(seen, done, per_maker=3) == [
        Call("scratch", ("'a'",), enter=True),
        Call("Session.begin", init_args=("'u'",), enter=True),
        Call("scratch", ("'e'",), enter=True),
    ]


def test_an_untyped_operand_of_addition_is_given_two_built_instances_then_literals() -> None:
    """junitparser's ``TestSuite.__add__(self, other)`` merges two equal suites and nests
    two others: both need another suite, where literals alone only raise."""
    ctor = func("Suite", param("name", "str"), kind="constructor")
    add = func("Suite.__add__", param("other"), kind="method")
    info = with_instance_hints(module([], [klass("Suite", ctor, add)]))
    calls = [c for c in plan_calls(info, {}) if c.target == "Suite.__add__"]
    operands = [c.args[0] for c in calls]
    assert operands[:2] == ["Suite('')", "Suite('a')"]
    assert operands[2:] == ["0", "1", "-1", "''", "'a'", "None"]


def test_an_operand_hinted_from_its_use_only_is_also_its_own_class() -> None:
    """``for case in other`` in junitparser's ``TestSuite.__add__`` made ``other`` a list;
    a hint written in the source is kept, as is a comparison's inferred one."""
    add = func("Suite.__add__", param("other", "list"), kind="method")
    sub = func("Suite.__sub__", param("other", "int"), kind="method")
    eq = func("Suite.__eq__", param("other", "str"), kind="method")
    inferred = {
        "Suite.__add__": {"other": "list"},
        "Suite.__sub__": {"other": "list"},
        "Suite.__eq__": {"other": "str"},
    }
    info = with_instance_hints(module([], [klass("Suite", None, add, sub, eq)]), inferred)
    hints = {m.qualname: m.parameters[0].annotation for m in info.classes[0].methods}
    assert hints == {
        "Suite.__add__": "Suite | list",
        "Suite.__sub__": "int",  # written: kept
        "Suite.__eq__": "str",
    }
