"""Exploration's pure parts: planning calls, merging two runs, keeping new coverage."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from tddforge.builtin.constants import MODULE_SCOPE, Constant
from tddforge.builtin.discover import ClassInfo, InstanceInfo, ModuleInfo
from tddforge.builtin.explore import (
    Call,
    CallResult,
    Outcome,
    _equal_literals,
    any_objects,
    constructor_calls,
    held_in_lists,
    implementation_sources,
    keep_new_coverage,
    merge_runs,
    object_sources,
    plan_calls,
    smallest_cover,
    without_subsumed,
    working_instances,
)
from tddforge.builtin.values import parse_hint


def param(
    name: str,
    annotation: str | None = None,
    default: str | None = None,
    kind: str = "positional_or_keyword",
) -> dict[str, Any]:
    return {
        "name": name,
        "kind": kind,
        "annotation": annotation,
        "has_default": default is not None,
        "default": default,
        "default_is_literal": default is not None,
    }


def func(
    qualname: str, *params: dict[str, Any], kind: str = "function", **extra: Any
) -> dict[str, Any]:
    return {
        "name": qualname.rsplit(".", 1)[-1],
        "qualname": qualname,
        "kind": kind,
        "parameters": list(params),
        "returns": None,
        "docstring": None,
        "doctests": [],
        "is_async": False,
        "is_generator": False,
        "lines": None,
        **extra,
    }


def module(functions: list[dict[str, Any]], classes: Sequence[dict[str, Any]] = ()) -> ModuleInfo:
    return ModuleInfo.model_validate(
        {
            "name": "m",
            "file": "/m.py",
            "docstring": None,
            "doctests": [],
            "functions": functions,
            "classes": list(classes),
        }
    )


def klass(name: str, ctor: dict[str, Any] | None, *methods: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "docstring": None,
        "doctests": [],
        "constructor": ctor,
        "methods": list(methods),
        "properties": [],
        "is_abstract": False,
        "is_exception": False,
        "lines": None,
    }


def test_plan_base_call_then_one_parameter_at_a_time() -> None:
    info = module(
        [
            func(
                "f",
                param("n", "bool"),
                param("sep", "str", "'-'"),
                param("k", "bool", "True", kind="keyword_only"),
            )
        ]
    )
    calls = plan_calls(info, {}, per_param=3)
    assert calls == [
        Call("f", ("True",)),
        Call("f", ("False",)),
        Call("f", ("True",), (("sep", "''"),)),
        Call("f", ("True",), (("sep", "'a'"),)),
        Call("f", ("True",), (("k", "False"),)),
    ]


def test_plan_uses_the_callables_constants() -> None:
    info = module([func("f", param("n", "int"))])
    mined = {"f": (Constant(42, "compare"),), MODULE_SCOPE: (Constant(7, "number"),)}
    assert [c.args for c in plan_calls(info, mined, per_param=3)] == [("42",), ("7",), ("0",)]


def test_plan_skips_what_literals_cannot_call() -> None:
    info = module(
        [
            func("needs_box", param("b", "Box")),
            func("later", is_async=True),
            func("gen", param("n", "bool"), is_generator=True),
        ]
    )
    calls = plan_calls(info, {}, per_param=1)
    assert calls == [Call("gen", ("True",), consume=True)]


def test_plan_methods_run_on_an_instance_from_the_constructor() -> None:
    ctor = func("Box", param("size", "bool"), kind="constructor")
    grow = func("Box.grow", param("by", "bool", "True"), kind="method")
    unit = func("Box.unit", kind="staticmethod")
    calls = plan_calls(module([], [klass("Box", ctor, grow, unit)]), {}, per_param=1)
    assert calls == [
        Call("Box", ("True",)),
        Call("Box.grow", init_args=("True",)),
        Call("Box.unit"),
    ]
    no_ctor = klass("Box", func("Box", param("b", "Box"), kind="constructor"), grow, unit)
    assert plan_calls(module([], [no_ctor]), {}) == [Call("Box.unit")]


def row(outcome: dict[str, Any], arcs: Sequence[list[int]] = ()) -> dict[str, Any]:
    return {"outcome": outcome, "arcs": list(arcs)}


@pytest.mark.parametrize(
    ("first", "second", "deterministic"),
    [
        (
            {"kind": "return", "repr": "1", "literal": True},
            {"kind": "return", "repr": "1", "literal": True},
            True,
        ),
        (
            {"kind": "return", "repr": "1", "literal": True},
            {"kind": "return", "repr": "2", "literal": True},
            False,
        ),
        (
            {"kind": "return", "repr": "<X at 0x1>", "state": {"a": "1"}},
            {"kind": "return", "repr": "<X at 0x2>", "state": {"a": "1"}},
            True,
        ),
        (
            {"kind": "return", "repr": "<X at 0x1>", "state": {"a": "1"}},
            {"kind": "return", "repr": "<X at 0x1>", "state": {"a": "2"}},
            False,
        ),
        (
            {"kind": "raise", "type": "E", "message": "m"},
            {"kind": "raise", "type": "E", "message": "m"},
            True,
        ),
        ({"kind": "timeout"}, {"kind": "timeout"}, False),
        ({"kind": "crash"}, {"kind": "crash"}, False),
        ({"kind": "return", "repr": "1", "literal": True}, None, False),
        (  # a write the sandbox refused: the same twice, and still not the code's doing
            {"kind": "raise", "type": "OSError", "message": "[Errno 30] m", "denied": True},
            {"kind": "raise", "type": "OSError", "message": "[Errno 30] m", "denied": True},
            False,
        ),
    ],
)
def test_merge_runs_judges_determinism(
    first: dict[str, Any], second: dict[str, Any] | None, deterministic: bool
) -> None:
    call = Call("f")
    results = merge_runs([call], {0: row(first, [[1, 2]])}, {0: row(second)} if second else {})
    assert [r.deterministic for r in results] == [deterministic]
    assert results[0].arcs == frozenset({(1, 2)})


@pytest.mark.parametrize(
    ("second", "kept_as"),
    [
        ({"kind": "return", "type": "str", "type_module": "builtins", "repr": "'b'"}, "str"),
        ({"kind": "return", "type": "bytes", "type_module": "builtins", "repr": "b'b'"}, None),
        ({"kind": "raise", "type": "str", "type_module": "builtins"}, None),
    ],
)
def test_a_value_that_varies_in_a_stable_type_is_kept_as_its_type(
    second: dict[str, Any], kept_as: str | None
) -> None:
    """``random()`` returned two strings: deterministic in what a test can assert, its
    type; one that changed type, or raised the second time, is not deterministic."""
    first = {"kind": "return", "type": "str", "type_module": "builtins", "repr": "'a'"}
    [found] = merge_runs([Call("f")], {0: row({**first, "literal": True})}, {0: row(second)})
    if kept_as is None:
        assert not found.deterministic
        return
    assert found.deterministic
    assert found.outcome == Outcome("return", kept_as, "builtins", varies=True)
    assert not found.readable_repr


@pytest.mark.parametrize(
    ("second", "kept"),
    [
        ({"kind": "raise", "type": "E", "message": "OPEN until 17:55:21"}, True),
        ({"kind": "raise", "type": "F", "message": "OPEN until 17:55:21"}, False),  # other type
        ({"kind": "return", "repr": "1", "literal": True}, False),
        (
            {"kind": "raise", "type": "E", "message": "OPEN until 17:55:21", "denied": True},
            False,
        ),
    ],
)
def test_an_exception_whose_message_varies_is_kept_as_its_type(
    second: dict[str, Any], kept: bool
) -> None:
    """A circuit breaker's error names the time it opened: what a test can assert is the
    exception's type, with no ``match=``."""
    first = {"kind": "raise", "type": "E", "type_module": "m", "message": "OPEN until 17:55:20"}
    second = {"type_module": "m", **second}
    [found] = merge_runs([Call("f")], {0: row(first)}, {0: row(second)})
    assert found.deterministic is kept
    if kept:
        assert found.outcome == Outcome("raise", "E", "m")


def test_merge_runs_drops_calls_the_first_run_never_finished() -> None:
    ok = row({"kind": "return", "repr": "1", "literal": True})
    assert [r.call for r in merge_runs([Call("a"), Call("b")], {1: ok}, {1: ok})] == [Call("b")]


def result(name: str, arcs: set[tuple[int, int]], deterministic: bool = True) -> CallResult:
    return CallResult(Call(name), frozenset(arcs), Outcome("return"), deterministic)


def test_keep_new_coverage() -> None:
    results = [
        result("a", {(1, 2)}),
        result("b", {(1, 2)}),  # nothing new
        result("c", {(1, 2), (2, 3)}),
        result("d", {(4, 5)}, deterministic=False),  # new, but cannot be asserted on
        result("e", set()),
    ]
    kept, covered = keep_new_coverage(results, frozenset({(9, 9)}))
    assert [r.call.target for r in kept] == ["a", "c"]
    assert covered == {(9, 9), (1, 2), (2, 3)}


def built(target: str, args: str, arcs: set[tuple[int, int]], kind: str = "return") -> CallResult:
    return CallResult(Call(target, (args,)), frozenset(arcs), Outcome(kind), True)


def test_working_instances_put_one_that_ran_more_right_after_the_first() -> None:
    found = working_instances(
        [
            built("Stats", "()", {(1, 2)}),
            built("Stats", "[]", {(1, 2)}),  # the same empty summary
            built("Stats", "['a']", {(1, 2), (2, 3), (3, 9)}, kind="raise"),  # never built
            built("Other", "1", {(7, 8)}),
            built("Stats", "[1, 2]", {(1, 2), (2, 3)}),  # pushed values
            built("Stats", "[3]", {(1, 2), (2, 3)}),  # nothing more than [1, 2]
        ]
    )
    assert {t: [c.args[0] for c in calls] for t, calls in found.items()} == {
        "Stats": ["()", "[1, 2]", "[]", "[3]"],
        "Other": ["1"],
    }


def test_working_instances_leave_out_what_differs_between_runs() -> None:
    flaky = CallResult(Call("Stats", ("[1]",)), frozenset({(5, 6)}), Outcome("return"), False)
    assert working_instances([flaky, built("Stats", "()", {(1, 2)})]) == {
        "Stats": [Call("Stats", ("()",))]
    }


@pytest.mark.parametrize(
    ("arcs", "expected"),
    [
        ([{(1, 2)}, {(1, 2), (2, 3)}], ["1"]),  # the later call reaches all the first did
        ([{(1, 2)}, {(2, 3)}, {(1, 2), (2, 3)}], ["2"]),
        ([{(1, 2), (2, 3)}, {(1, 2)}, {(3, 4)}], ["0", "2"]),
        ([{(1, 2), (2, 3)}, {(2, 3), (3, 4)}, {(1, 2), (3, 4)}], ["0", "1"]),  # greedy, in order
        ([{(1, 2)}, {(1, 2)}], ["0"]),  # a tie: the earlier call
        ([set(), set()], ["0"]),  # nothing reached, but the way it ends is kept once
        ([], []),
    ],
)
def test_smallest_cover_keeps_every_arc_with_fewer_calls(
    arcs: list[set[tuple[int, int]]], expected: list[str]
) -> None:
    results = [
        CallResult(Call("f", (str(i),)), frozenset(a), Outcome("return", "int"), True)
        for i, a in enumerate(arcs)
    ]
    assert [r.call.args[0] for r in smallest_cover(results)] == expected


def test_smallest_cover_keeps_each_way_a_callable_ends() -> None:
    def ends(arg: str, outcome: Outcome, target: str = "f") -> CallResult:
        return CallResult(Call(target, (arg,)), frozenset({(1, 2)}), outcome, True)

    results = [
        ends("1", Outcome("return", "int")),
        ends("2", Outcome("return", "int")),  # same arcs, same ending: left out
        ends("3", Outcome("raise", "ValueError")),
        ends("4", Outcome("raise", "TypeError")),
        ends("5", Outcome("return", "str")),
        ends("6", Outcome("return", "int"), target="g"),
    ]
    assert [r.call.args[0] for r in smallest_cover(results)] == ["1", "3", "4", "5", "6"]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (  # *args after required parameters: one extra value, then two
            [param("f", "Callable"), param("dicts", "dict", kind="var_positional")],
            [
                ("len", "{}"),
                ("len", "{'a': 1}"),
                ("len", "{}", "{'a': 1}"),
                ("len", "[{}, {'a': 1}]"),
            ],
        ),
        (  # an optional positional before *args would swallow the first extra value
            [
                param("a", "int"),
                param("b", "int", "1"),
                param("rest", "int", kind="var_positional"),
            ],
            [],
        ),
    ],
)
def test_plan_gives_star_args_one_and_two_values(
    params: list[dict[str, Any]], expected: list[tuple[str, ...]]
) -> None:
    calls = plan_calls(module([func("g", *params)]), {}, per_param=2)
    assert [c.args for c in calls if len(c.args) > 1] == expected


def test_a_parameter_hinted_with_a_module_class_gets_instances_built_by_its_constructor() -> None:
    money = klass("Money", func("Money", param("cents", "int")))
    info = module(
        [func("pay", param("price", "Money"), param("note", "str | None", "None"))], [money]
    )
    pays = [c for c in plan_calls(info, {}, per_param=3) if c.target == "pay"]
    assert [c.args for c in pays[:2]] == [("Money(0)",), ("Money(1)",)]
    assert {c.args for c in pays} == {("Money(0)",), ("Money(1)",)}  # never a literal price


def test_a_parameter_hinted_with_a_class_the_module_imports_gets_instances_of_it() -> None:
    # pyrate-limiter's ``Limiter(*rates: RequestRate)``, ``RequestRate`` from a sibling
    limiter = klass(
        "Limiter", func("Limiter", param("rates", "pkg.rate.Rate", kind="var_positional"))
    )
    info = module([], [limiter]).model_copy(
        update={
            "imported": (
                ModuleInfo.model_validate(
                    {
                        **module([]).model_dump(),
                        "classes": [klass("Rate", func("Rate", param("limit", "int")))],
                    }
                ).classes[0],
                ModuleInfo.model_validate(
                    {**module([]).model_dump(), "classes": [klass("Token", None)]}
                ).classes[0],
            )
        }
    )
    built = {c.args for c in plan_calls(info, {}, per_param=3) if c.target == "Limiter"}
    assert ("Rate(0)",) in built and ("Rate(1)",) in built
    # an imported class is only an argument: neither it nor its methods are called
    assert {c.target for c in plan_calls(info, {}, per_param=3)} == {"Limiter"}
    # and the constructors run first, to find the instances methods are called on, get it
    assert ("Rate(0)",) in {c.args for c in constructor_calls(info, {})}


def test_a_parameter_hinted_with_lists_of_a_module_class_gets_lists_of_its_instances() -> None:
    # openskill's ``rate(teams: List[List[Rating]])``: two teams of built ratings, where a
    # literal list is empty or holds what its checks reject
    rating = klass("Rating", func("Rating", param("mu", "float")))
    info = module([func("rate", param("teams", "List[List[Rating]]"))], [rating])
    rates = {c.args for c in plan_calls(info, {}, per_param=4) if c.target == "rate"}
    assert ("[[Rating(0.0)]]",) in rates
    assert ("[[Rating(0.0)], [Rating(0.0), Rating(1.5)]]",) in rates


@pytest.mark.parametrize(
    ("hint", "held"),
    [
        ("list[R]", ["[R(1)]", "[R(1), R(2)]"]),
        ("List[List[R]]", ["[[R(1)]]", "[[R(1)], [R(1), R(2)]]"]),
        ("Sequence[Sequence[R]]", ["[[R(1)]]", "[[R(1)], [R(1), R(2)]]"]),
        ("Optional[List[M]]", ["[M()]", "[M(), M()]"]),  # one object: it twice
        ("List[List[List[List[R]]]]", []),  # deeper than three lists: none
        ("List[int]", []),  # literals are the values' business
        ("List[Unknown]", []),  # no object built
        ("Dict[str, R]", []),
        ("R", []),  # the object itself is ``object_sources``'
        (None, []),
    ],
)
def test_held_in_lists(hint: str | None, held: list[str]) -> None:
    objects = {"R": ["R(1)", "R(2)"], "M": ["M()"]}
    assert held_in_lists(parse_hint(hint), objects) == held


@pytest.mark.parametrize(
    ("hint", "given"),
    [
        ("object", ["R(1)", "M()"]),  # the first of each class, two classes at most
        ("object | None", ["R(1)", "M()"]),
        ("Optional[object]", ["R(1)", "M()"]),
        ("Any", []),  # untyped values, as before
        ("R", []),  # the class itself is ``object_sources``'
        ("str", []),
        (None, []),
    ],
)
def test_any_objects(hint: str | None, given: list[str]) -> None:
    objects = {"R": ["R(1)", "R(2)"], "M": ["M()"], "callback:R": ["lambda r: r.f()"], "N": ["N()"]}
    assert any_objects(parse_hint(hint), objects) == given


def test_a_plugin_hinted_object_is_given_an_object_of_the_module() -> None:
    """pluggy's ``register(plugin: _Plugin)``, ``_Plugin`` being ``object``: an instance
    with methods makes it read their hook markers, which no literal has."""
    manager = klass(
        "Manager",
        func("Manager", param("name", "str"), kind="constructor"),
        func("Manager.register", param("plugin", "object"), kind="method"),
    )
    calls = plan_calls(module([], [manager]), {}, per_param=4)
    plugins = [c.args[0] for c in calls if c.target == "Manager.register"]
    assert plugins[0] == "Manager('')"


def test_writer_imports_the_classes_an_argument_builds() -> None:
    from tddforge.builtin.writer import module_names

    assert module_names("Money(5, currency='EUR')") == {"Money"}
    assert module_names("lambda x, *r: len(x) + y") == {"y"}
    assert module_names("[1, 2]") == set()


def test_plan_passes_kwargs_a_keyword_nothing_else_takes() -> None:
    info = module(
        [
            func(
                "merge",
                param("dicts", "dict", kind="var_positional"),
                param("kwargs", kind="var_keyword"),
            )
        ]
    )
    calls = plan_calls(info, {}, per_param=2)
    assert Call("merge", (), (("unexpected", "1"),)) in calls
    assert all(c.kwargs == () for c in calls if c.args)


def test_methods_are_called_on_an_instance_that_built() -> None:
    ptr = klass(
        "Ptr",
        func("Ptr", param("text", "str")),
        func("Ptr.resolve", param("doc", "dict"), kind="method"),
    )
    info = module([], [ptr])
    assert constructor_calls(info, {})[:2] == [Call("Ptr", ("''",)), Call("Ptr", ("'a'",))]
    blind = [c for c in plan_calls(info, {}) if c.target == "Ptr.resolve"]
    assert {c.init_args for c in blind} == {("''",)}  # the first planned constructor call
    working = {"Ptr": [Call("Ptr", ("'/a'",))]}
    seen = [c for c in plan_calls(info, {}, working=working) if c.target == "Ptr.resolve"]
    assert {c.init_args for c in seen} == {("'/a'",)}


@pytest.mark.parametrize(
    ("arcs", "protected", "expected"),
    [
        ([{(1, 2)}, {(1, 2), (2, 3)}], set(), ["1"]),  # the first reaches nothing of its own
        ([{(1, 2)}, {(1, 2), (2, 3)}], {"0"}, ["0", "1"]),  # a killer stays
        ([{(1, 2)}, {(1, 2)}], set(), ["0"]),  # a repeat: the later one goes
        ([{(1, 2)}, {(1, 2)}], {"1"}, ["1"]),
        ([{(1, 2)}, {(1, 2)}], {"0", "1"}, ["0", "1"]),
        ([{(1, 2), (2, 3)}, {(1, 2)}, {(2, 3)}], set(), ["0"]),  # the later ones go first
        ([{(1, 2)}, {(2, 3)}], set(), ["0", "1"]),  # each reaches its own
        ([set(), {(1, 2)}], set(), ["0", "1"]),  # a read of the module's data stays
    ],
)
def test_without_subsumed_drops_what_the_others_reach_too(
    arcs: list[set[tuple[int, int]]], protected: set[str], expected: list[str]
) -> None:
    results = [
        CallResult(Call("f", (str(i),)), frozenset(a), Outcome("return", "int"), True)
        for i, a in enumerate(arcs)
    ]
    guarded = {Call("f", (i,)) for i in protected}
    assert [r.call.args[0] for r in without_subsumed(results, guarded)] == expected


def test_without_subsumed_counts_what_coverage_reports_when_given_the_source() -> None:
    source = "def f(x):\n    y = 10 // x\n    if y:\n        y += 1\n    return y\n"
    ok = CallResult(
        Call("f", ("1",)),
        frozenset({(-1, 2), (2, 3), (3, 4), (4, 5), (5, -1)}),
        Outcome("return", "int"),
        True,
    )
    zero = CallResult(
        Call("f", ("0",)),
        frozenset({(-1, 2), (2, -1)}),
        Outcome("raise", "ZeroDivisionError"),
        True,
    )
    big = CallResult(
        Call("f", ("20",)),
        frozenset({(-1, 2), (2, 3), (3, 5), (5, -1)}),
        Outcome("return", "int"),
        True,
    )
    # the raise's way out of line 2 is an arc, but coverage.py counts no branch there
    assert [r.call.args[0] for r in without_subsumed([ok, zero], source=source)] == ["1"]
    assert [r.call.args[0] for r in without_subsumed([ok, zero])] == ["1", "0"]
    # 10 // 20 is 0: the branch 3 -> 5 is its own, so that call stays
    assert [r.call.args[0] for r in without_subsumed([ok, big], source=source)] == ["1", "20"]


def test_attribute_methods_are_given_names_and_round_trips_no_arguments() -> None:
    """``box.size``: the module's identifier strings and a name nothing sets; a round trip
    (``copy.copy(box)``) takes no argument, whatever its protocol method's signature."""
    ctor = func("Box", kind="constructor")
    get = func("Box.__getattr__", param("k"), kind="method")
    deep = func("Box.__deepcopy__", param("memo"), kind="method")
    mined = {"Box.__getattr__": (Constant("size", "compare"), Constant("a b", "compare"))}
    box = klass("Box", ctor, get, deep) | {"properties": ["area"]}
    calls = plan_calls(module([], [box]), mined, per_param=4)
    assert calls == [
        Call("Box", init_args=None),
        Call("Box.__getattr__", ("'size'",), init_args=()),
        Call("Box.__getattr__", ("'a'",), init_args=()),
        Call("Box.__getattr__", ("'missing'",), init_args=()),
        Call("Box.__deepcopy__", (), init_args=()),
        Call("Box.area", init_args=(), attribute=True),
    ]


def test_what_an_object_shows_after_a_call_is_kept_only_when_both_runs_agree() -> None:
    """``d["a"] = 1`` changed the mapping's repr; a set's repr in another hash order, or a
    clock in it, differs between the runs: the call stays deterministic, the repr is not
    asserted."""
    done = {"kind": "return", "repr": "None", "literal": True, "after_repr": "D({'a': 1})"}
    [same] = merge_runs([Call("D.__setitem__")], {0: row(done)}, {0: row(done)})
    assert same.deterministic and same.outcome.after_repr == "D({'a': 1})"
    other = {**done, "after_repr": "D({'b': 2, 'a': 1})"}
    [differ] = merge_runs([Call("D.__setitem__")], {0: row(done)}, {0: row(other)})
    assert differ.deterministic and differ.outcome.after_repr == ""


def test_an_attribute_the_runs_show_apart_is_dropped_and_the_value_kept() -> None:
    """A set of strings prints in each run's hash order (flashtext's
    ``non_word_boundaries``): the attribute is not asserted, the value returned is."""
    first = {
        "kind": "return",
        "type": "int",
        "type_module": "builtins",
        "repr": "0",
        "literal": True,
        "after": {"case_sensitive": "False", "boundaries": "{'a', 'b'}"},
        "state": {"size": "0", "seen": "{'x', 'y'}"},
    }
    second = {
        **first,
        "after": {"case_sensitive": "False", "boundaries": "{'b', 'a'}"},
        "state": {"size": "0", "seen": "{'y', 'x'}"},
    }
    [merged] = merge_runs([Call("K.__len__")], {0: row(first)}, {0: row(second)})
    assert merged.deterministic and not merged.outcome.varies
    assert merged.outcome.repr == "0" and merged.outcome.literal
    assert merged.outcome.after == (("case_sensitive", "False"),)
    assert merged.outcome.state == (("size", "0"),)
    # a value that differs still does: the outcome's type only, as before
    changed = {**second, "state": {"size": "1", "seen": "{'y', 'x'}"}}
    [varied] = merge_runs([Call("K.__len__")], {0: row(first)}, {0: row(changed)})
    assert varied.outcome.varies and varied.outcome.repr == ""


@pytest.mark.parametrize(
    ("outcome", "kept_as", "deterministic"),
    [
        (
            {"kind": "return", "type": "str", "type_module": "builtins", "repr": "'/r/65534'"},
            "str",
            True,
        ),
        ({"kind": "raise", "type": "KeyError", "message": "65534"}, None, False),
    ],
)
def test_a_call_that_asked_who_runs_it_keeps_only_its_type(
    outcome: dict[str, Any], kept_as: str | None, deterministic: bool
) -> None:
    """``/tmp/runtime-65534``: the sandbox's user id, not the one of whoever runs the test."""
    first = {**row(outcome, [[1, 2]]), "identity": True}
    (result,) = merge_runs([Call("f")], {0: first}, {0: row(outcome)})
    assert (result.deterministic, result.identity) == (deterministic, True)
    if kept_as is not None:
        assert (result.outcome.type, result.outcome.varies, result.outcome.repr) == (
            kept_as,
            True,
            "",
        )


def test_a_call_that_reached_for_the_network_is_never_written() -> None:
    outcome = {"kind": "raise", "type": "gaierror", "message": "[Errno -3] Temporary failure"}
    first = {**row(outcome, [[1, 2]]), "network": True}
    (result,) = merge_runs([Call("connect")], {0: first}, {0: row(outcome)})
    assert (result.deterministic, result.network) == (False, True)
    (plain,) = merge_runs([Call("connect")], {0: row(outcome, [[1, 2]])}, {0: row(outcome)})
    assert plain.deterministic


def test_a_call_that_opened_a_descriptor_it_did_not_make_is_never_written() -> None:
    """mccabe's ``get_module_complexity(7)``: ``open(7)`` is a pipe of the runner's child,
    and pytest's capture file in the test, which closing breaks the tests after it."""
    outcome = {"kind": "raise", "type": "OSError", "message": "[Errno 9] Bad file descriptor"}
    first = {**row(outcome, [[1, 2]]), "descriptor": True}
    (result,) = merge_runs([Call("get_module_complexity", ("7",))], {0: first}, {0: row(outcome)})
    assert (result.deterministic, result.descriptor) == (False, True)


def test_a_call_that_wrote_where_it_ran_is_kept_to_run_in_a_directory_of_its_own() -> None:
    """The runner ran it again in an empty directory (``target/workdir.py``): its
    later runs (confirmation, mutants) and its test go there too."""
    outcome = {"kind": "return", "type": "NoneType", "type_module": "builtins", "repr": "None"}
    for first, second in [({"writes": True}, {}), ({}, {"writes": True})]:
        ran = {0: {**row(outcome, [[1, 2]]), **first}}
        (result,) = merge_runs(
            [Call("Lock.acquire", init_args=("'a'",))], ran, {0: {**row(outcome), **second}}
        )
        assert result.call.workdir and result.call.to_json(0)["workdir"]
    (plain,) = merge_runs([Call("f")], {0: row(outcome, [[1, 2]])}, {0: row(outcome)})
    assert not plain.call.workdir


def test_a_callback_handed_a_module_object_calls_its_methods() -> None:
    """inject's ``configure(config: Callable[[Binder], Binder | None])``: a configuration
    hook, given lambdas that call each public method of the ``Binder`` it is handed."""
    binder = klass(
        "Binder",
        func("Binder.__init__", kind="constructor"),
        func("Binder.bind", param("key", "str"), param("value", "int"), kind="method"),
        func("Binder.freeze", kind="method"),
        func("Binder._check", param("key"), kind="method"),  # private: not a hook's business
        func("Binder.drop", param("key", "Unknown"), kind="method"),  # no input for it
    )
    configure = func("configure", param("config", "Callable[[Binder], Binder | None] | None"))
    info = module([configure], [binder])
    calls = plan_calls(info, {MODULE_SCOPE: (Constant("db", "string"),)})
    given = [c.args[0] for c in calls if c.target == "configure" and c.args]
    assert given[:2] == [
        "lambda binder: binder.bind('db', 0)",
        "lambda binder: binder.freeze()",
    ]
    assert "None" in given and not any("_check" in g or "drop" in g for g in given)


def test_a_held_instance_is_never_the_target_of_an_in_place_operator() -> None:
    """``countries += other`` in a test function makes the imported name a local of it:
    the test would raise before its call."""
    lookup = klass(
        "_Lookup",
        None,
        func("_Lookup.get", param("key", "str"), kind="method"),
        func("_Lookup.__iadd__", param("other"), kind="method"),
        func("_Lookup.__add__", param("other"), kind="method"),
    ) | {"hidden": True}
    info = module([], [lookup]).model_copy(
        update={"instances": (InstanceInfo(name="countries", class_name="_Lookup"),)}
    )
    targets = {c.target for c in plan_calls(info, {}) if c.via == "countries"}
    assert targets == {"_Lookup.get", "_Lookup.__add__"}


def implemented(interface: bool, abstract: bool = False) -> ClassInfo:
    base = klass("Language", None)
    english = {"path": "pkg.lang.English", "constructor": None}
    german = {"path": "German", "constructor": func("German", param("strict", "bool"))}
    broken = {"path": "pkg.Broken", "constructor": func("pkg.Broken", param("a", "Unknown"))}
    return ClassInfo.model_validate(
        {
            **base,
            "is_abstract": abstract,
            "implementations": [german, broken, english],
            "interface": interface,
        }
    )


@pytest.mark.parametrize(
    ("interface", "own", "sources"),
    [
        # an interface's implementations first: its own instance reads what it never set
        (True, ["Language()"], ["German(True)", "pkg.lang.English()", "Language()"]),
        (True, [], ["German(True)", "pkg.lang.English()"]),  # abstract: nothing of its own
        # a class that stands alone: its own first call, then one of each implementation
        (False, ["L(1)", "L(2)"], ["L(1)", "German(True)", "pkg.lang.English()", "L(2)"]),
        (False, [], ["German(True)", "pkg.lang.English()"]),
    ],
)
def test_implementation_sources(interface: bool, own: list[str], sources: list[str]) -> None:
    # ``pkg.Broken`` needs an argument nothing can give: it is left out
    assert implementation_sources(implemented(interface), own, {}) == sources


def test_an_abstract_class_is_built_through_its_implementations() -> None:
    info = module([], [implemented(False, abstract=True).model_dump()])
    assert object_sources(info, {})["Language"] == ["German(True)", "pkg.lang.English()"]


@pytest.mark.parametrize(
    ("first", "second", "equal"),
    [
        ("{'a', 'b'}", "{'b', 'a'}", True),  # one set, two hash orders
        ("[1, 2]", "[2, 1]", False),  # the same characters, another value
        ("{'a'}", "{'b'}", False),  # other characters: not parsed at all
        ("{'a', 'b'}", "{'a', 'bb'}", False),
        ("<X at 0x1>", "<X at 0x1>", False),  # not a literal
    ],
)
def test_two_texts_of_one_literal(first: str, second: str, equal: bool) -> None:
    assert _equal_literals(first, second) is equal


def test_an_abstract_classs_methods_are_called_on_its_implementations() -> None:
    """pykka's ``Actor`` is abstract, and only the package's ``ThreadingActor`` builds: every
    method of it, its class methods too, and its properties are called on one of those."""
    actor = implemented(False, abstract=True).model_dump()
    actor["methods"] = [
        func("Language.ordinal", param("word", "str"), kind="method"),
        func("Language.start", kind="classmethod"),
        func("Language.__iadd__", param("other"), kind="method"),
    ]
    actor["properties"] = ["code"]
    calls = [c for c in plan_calls(module([], [actor]), {}) if c.target.startswith("Language")]
    vias = {c.via for c in calls}
    assert vias <= {"German(True)", "pkg.lang.English()"} and len(vias) == 2
    assert {c.target for c in calls} == {"Language.ordinal", "Language.start", "Language.code"}
    assert all(c.init_args is None for c in calls)  # never built as ``Language(...)``


def test_an_abstract_class_without_implementations_plans_nothing() -> None:
    alone = klass("Language", None, func("Language.ordinal", param("word", "str"), kind="method"))
    assert plan_calls(module([], [alone | {"is_abstract": True}]), {}) == []


@pytest.mark.parametrize("flag", ["network", "descriptor", "threads"])
def test_a_call_that_touched_the_machine_is_never_written(flag: str) -> None:
    # ``threads``: it left a thread running, which pytest would wait for as it ends
    same = {"kind": "return", "repr": "1", "literal": True}
    first = {**row(same, [[1, 2]]), flag: True}
    [result] = merge_runs([Call("f")], {0: first}, {0: row(same)})
    assert not result.deterministic and getattr(result, flag)
    [plain] = merge_runs([Call("f")], {0: row(same, [[1, 2]])}, {0: row(same)})
    assert plain.deterministic
