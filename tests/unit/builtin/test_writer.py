"""The test writer: kept calls → pytest source, checked as text."""

from __future__ import annotations

import ast
import re
from dataclasses import replace

import pytest

from tddforge.builtin.explore import Call, CallResult, Outcome, Step
from tddforge.builtin.writer import (
    _as_slice,
    _isort_key,
    case_names,
    public_homes,
    write_module,
    written_keys,
)


def returned(call: Call, text: str, **extra: object) -> CallResult:
    outcome = Outcome(
        "return",
        type=type(ast.literal_eval(text)).__name__,
        type_module="builtins",
        repr=text,
        literal=True,
    )
    return CallResult(call, frozenset(), outcome, True)


def raised(call: Call, exc: str, message: str, module: str = "builtins") -> CallResult:
    return CallResult(call, frozenset(), Outcome("raise", exc, module, message=message), True)


def obj(
    call: Call, type_: str, state: tuple[tuple[str, str], ...] = (), module: str = "shapes"
) -> CallResult:
    outcome = Outcome("return", type_, module, repr=f"<{type_} at 0x1>", state=state)
    return CallResult(call, frozenset(), outcome, True)


def test_literal_returns_one_test_each_named_by_value() -> None:
    source = write_module(
        "shapes",
        [
            returned(Call("classify", ("-1",)), "'negative'"),
            returned(Call("classify", ("0",)), "'zero'"),
            returned(Call("area", ("2", "3")), "6"),
            returned(Call("parse", ("''",)), "[]"),
            returned(Call("count", ("3",), consume=True), "[0, 1, 2]"),
            returned(Call("flag", (), (("on", "True"),)), "True"),
        ],
    )
    assert (
        source
        == '''\
"""Tests written by tddforge's builtin generator from observed behaviour."""

from shapes import area, classify, count, flag, parse


def test_classify_returns_negative() -> None:
    assert classify(-1) == 'negative'


def test_classify_returns_zero() -> None:
    assert classify(0) == 'zero'


def test_area_returns_6() -> None:
    assert area(2, 3) == 6


def test_parse_returns_empty_list() -> None:
    assert parse('') == []


def test_count_returns_0_1_2() -> None:
    assert list(count(3)) == [0, 1, 2]


def test_flag_returns_true() -> None:
    assert flag(on=True) is True
'''
    )


@pytest.mark.parametrize(
    ("result", "name"),
    [
        ("None", "test_f_returns_none"),
        ("True", "test_f_returns_true"),
        ("'None'", "test_f_returns_str_none"),  # the text, not the constant
        ("[['None']]", "test_f_returns_list_none"),
        ("(False,)", "test_f_returns_tuple_false"),
        ("'nonempty'", "test_f_returns_nonempty"),
    ],
)
def test_a_name_says_none_true_or_false_only_for_the_constant(result: str, name: str) -> None:
    source = write_module("m", [returned(Call("f"), result)])
    assert f"def {name}() -> None:" in source


def test_same_scenario_is_told_apart_by_its_input() -> None:
    source = write_module(
        "m",
        [
            returned(Call("sign", ("5",)), "1"),
            returned(Call("sign", ("-7",)), "1"),
            returned(Call("sign", ("-7",), (("strict", "False"),)), "1"),
            returned(Call("sign", ("-7",), (("strict", "False"),)), "1"),
        ],
    )
    names = [line[4:].split("(")[0] for line in source.splitlines() if line.startswith("def ")]
    assert names == [
        "test_sign_returns_1",
        "test_sign_returns_1_with_minus_7",
        "test_sign_returns_1_with_minus_7_false",
        "test_sign_returns_1_2",
    ]


def test_a_call_without_arguments_is_numbered_not_named_with_nothing() -> None:
    """spfpm's ``abs(f_xnum)`` twice gave ``test_f_xnum_abs_returns_f_xnum_with_``."""
    source = write_module(
        "fx",
        [
            returned(Call("Num.__abs__", (), init_args=("1",)), "1"),
            returned(Call("Num.__abs__", (), init_args=("-1",)), "1"),
        ],
    )
    names = [line[4:].split("(")[0] for line in source.splitlines() if line.startswith("def ")]
    assert names == ["test_num_abs_returns_1", "test_num_abs_returns_1_2"]


def test_a_name_told_apart_by_a_long_input_is_numbered_instead() -> None:
    """smartypants' ``..._returns_p_he_said_let_s_write_some_with_p_he_said_quot_let_s_write``
    was too long for its ``def`` line: the input's words go when the name passes 79."""
    long_text = repr("He said: let's write some code, and then some more of it")
    source = write_module(
        "m",
        [
            returned(Call("convert_everything_here", ("'x'",)), repr("Let us write")),
            returned(Call("convert_everything_here", (long_text,)), repr("Let us write")),
            returned(Call("convert_everything_here", ("'y'",)), repr("Let us write")),
        ],
    )
    names = [line[4:].split("(")[0] for line in source.splitlines() if line.startswith("def ")]
    assert names == [
        "test_convert_everything_here_returns_let_us_write",
        "test_convert_everything_here_returns_let_us_write_2",
        "test_convert_everything_here_returns_let_us_write_with_y",
    ]
    assert all(len(name) <= 79 for name in names)


def test_exceptions_with_type_and_literal_message() -> None:
    source = write_module(
        "shapes",
        [
            raised(Call("boom", ("'x'",)), "ValueError", "bad x"),
            raised(Call("parse", ("'('",)), "ParseError", "unbalanced (", module="shapes"),
            raised(Call("load", ()), "JSONDecodeError", "", module="json.decoder"),
        ],
    )
    assert (
        source
        == '''\
"""Tests written by tddforge's builtin generator from observed behaviour."""

import re

import pytest

from shapes import ParseError, boom, load, parse


def test_boom_raises_value_error() -> None:
    with pytest.raises(ValueError, match='bad x'):
        boom('x')


def test_parse_raises_parse_error() -> None:
    with pytest.raises(ParseError, match=re.escape('unbalanced (')):
        parse('(')


def test_load_raises_json_decode_error() -> None:
    with pytest.raises(Exception):
        load()
'''
    )


def test_objects_are_asserted_through_public_fields_or_type() -> None:
    source = write_module(
        "shapes",
        [
            obj(Call("Box", ("2.0",)), "Box", (("size", "2.0"), ("tag", "'b'"))),
            obj(Call("Box.grow", (), (("by", "1.0"),), init_args=("2.0",)), "Box"),
            returned(Call("Box.unit", ()), "1.0"),
            obj(Call("make", ()), "Thing", module="other.place"),
        ],
    )
    assert (
        source
        == '''\
"""Tests written by tddforge's builtin generator from observed behaviour."""

from shapes import Box, make


def test_box_builds() -> None:
    result = Box(2.0)
    assert result.size == 2.0
    assert result.tag == 'b'


def test_box_grow_returns_box() -> None:
    box = Box(2.0)
    result = box.grow(by=1.0)
    assert isinstance(result, Box)


def test_box_unit_returns_1_0() -> None:
    assert Box.unit() == 1.0


def test_make_returns_thing() -> None:
    result = make()
    assert type(result).__name__ == 'Thing'
'''
    )


def test_nothing_unstable_is_written() -> None:
    unstable = CallResult(
        Call("now"), frozenset(), Outcome("return", "float", repr="1.5", literal=True), False
    )
    timeout = CallResult(Call("spin"), frozenset(), Outcome("timeout"), False)
    unconfirmed = replace(returned(Call("pick"), "0.5"), confirmed=False)  # seen in one run only
    source = write_module("m", [unstable, timeout, unconfirmed])
    assert "def test" not in source
    compile(source, "generated.py", "exec")
    assert "def test_pick" in write_module("m", [replace(unconfirmed, confirmed=True)])


def test_unittest_style_one_test_case_per_function_or_class() -> None:
    source = write_module(
        "shapes",
        [
            returned(Call("classify", ("-1",)), "'negative'"),
            raised(Call("classify", ("None",)), "TypeError", "not a number (None)"),
            returned(Call("is_big", ("1",)), "False"),
            obj(Call("Box", ("2.0",)), "Box", (("size", "2.0"),)),
            obj(Call("Box.copy", (), init_args=("2.0",)), "Box"),
            raised(Call("Box.load", ()), "OSError", ""),
        ],
        framework="unittest",
    )
    assert (
        source
        == '''\
"""Tests written by tddforge's builtin generator from observed behaviour."""

import re
import unittest

from shapes import Box, classify, is_big


class TestClassify(unittest.TestCase):
    def test_classify_returns_negative(self) -> None:
        self.assertEqual(classify(-1), 'negative')

    def test_classify_raises_type_error(self) -> None:
        with self.assertRaisesRegex(TypeError, re.escape('not a number (None)')):
            classify(None)


class TestIsBig(unittest.TestCase):
    def test_is_big_returns_false(self) -> None:
        self.assertIs(is_big(1), False)


class TestBox(unittest.TestCase):
    def test_box_builds(self) -> None:
        result = Box(2.0)
        self.assertEqual(result.size, 2.0)

    def test_box_copy_returns_box(self) -> None:
        box = Box(2.0)
        result = box.copy()
        self.assertIsInstance(result, Box)

    def test_box_load_raises_os_error(self) -> None:
        with self.assertRaises(OSError):
            Box.load()
'''
    )


def test_a_method_run_for_its_effect_asserts_the_instance_state() -> None:
    effect = Outcome(
        "return",
        "NoneType",
        "builtins",
        "None",
        literal=True,
        after=(("items", "['a']"), ("total", "3")),
    )
    grown = Outcome("return", "int", "builtins", "2", literal=True, after=(("size", "2"),))
    source = write_module(
        "shop",
        [
            CallResult(Call("Cart.add", ("'a'", "3"), init_args=()), frozenset(), effect, True),
            CallResult(Call("Box.grow", ("1",), init_args=("1",)), frozenset(), grown, True),
        ],
    )
    assert "    cart = Cart()\n    cart.add('a', 3)\n    assert cart.items == ['a']\n" in source
    assert "    assert cart.total == 3\n" in source
    assert "    box = Box(1)\n    assert box.grow(1) == 2\n    assert box.size == 2\n" in source


def test_tests_are_grouped_by_function_in_first_seen_order() -> None:
    source = write_module(
        "m",
        [
            returned(Call("f", ("1",)), "1"),
            returned(Call("g", ("1",)), "2"),
            returned(Call("f", ("2",)), "3"),
        ],
    )
    names = [line[4:].split("(")[0] for line in source.splitlines() if line.startswith("def ")]
    assert names == ["test_f_returns_1", "test_f_returns_3", "test_g_returns_2"]


def test_a_hyphen_inside_a_word_is_not_a_minus_sign() -> None:
    source = write_module(
        "m",
        [
            returned(Call("code", ("0",)), "1"),
            returned(Call("code", ("'E-42'",)), "1"),
            returned(Call("code", ("-42",)), "1"),
        ],
    )
    names = [line[4:].split("(")[0] for line in source.splitlines() if line.startswith("def ")]
    assert names == [
        "test_code_returns_1",
        "test_code_returns_1_with_e_42",
        "test_code_returns_1_with_minus_42",
    ]


def test_special_methods_are_written_as_operators() -> None:
    source = write_module(
        "shop",
        [
            returned(Call("Money.__add__", ("5",), init_args=("1",)), "6"),
            returned(Call("Money.__eq__", ("Money(1)",), init_args=("1",)), "True"),
            returned(Call("Money.__len__", (), init_args=("1",)), "1"),
        ],
    )
    assert "    money = Money(1)\n    assert (money + 5) == 6\n" in source
    assert "    assert (money == Money(1)) is True\n" in source
    assert "    assert len(money) == 1\n" in source
    assert "def test_money_add_returns_6()" in source and "__" not in source.split("import")[-1]


def test_an_operator_expected_to_raise_is_assigned_so_no_linter_calls_it_pointless() -> None:
    """spfpm's ``(f_xnum > None)`` alone under ``pytest.raises`` was ruff's B015 in the
    suite the loop then asked itself to fix; ``-money`` and ``money + 'a'`` too."""
    source = write_module(
        "shop",
        [
            raised(Call("Money.__gt__", ("None",), init_args=("1",)), "TypeError", "no"),
            raised(Call("Money.__neg__", (), init_args=("2",)), "ValueError", "negative"),
            raised(Call("Money.__add__", ("'a'",), init_args=("3",)), "TypeError", "str"),
            raised(Call("Money.total", (), init_args=("4",)), "ValueError", "empty"),
        ],
    )
    assert "        _ = (money > None)\n" in source
    assert "        _ = (-money)\n" in source
    assert "        (money + 'a')\n" in source  # an operation a linter lets stand
    assert "        money.total()\n" in source


def test_an_equality_against_a_singleton_is_written_as_operator_eq() -> None:
    # ``(line == None)`` is what ``__eq__`` was run as, and what linters reject (E711)
    source = write_module(
        "shapes",
        [
            returned(Call("Line.__eq__", ("None",), init_args=("0",)), "False"),
            returned(Call("Line.__ne__", ("True",), init_args=("0",)), "True"),
            returned(Call("Line.__eq__", ("Line(0)",), init_args=("0",)), "True"),
        ],
    )
    assert "import operator\n\nfrom shapes import Line\n" in source
    assert "    assert operator.eq(line, None) is False\n" in source
    assert "    assert operator.ne(line, True) is True\n" in source
    assert "    assert (line == Line(0)) is True\n" in source
    assert "== None" not in source and "!= True" not in source


def test_an_item_read_back_is_asserted_by_its_key() -> None:
    set_item = Call("Slots.__setitem__", ("0", "5"), init_args=())
    cleared = Call("Slots.__setitem__", ("'a'", "None"), init_args=())

    def done(call: Call, after: tuple[tuple[str, str], ...]) -> CallResult:
        outcome = Outcome("return", "NoneType", "builtins", "None", True, after=after)
        return CallResult(call, frozenset(), outcome, True)

    source = write_module(
        "store", [done(set_item, (("[0]", "5"),)), done(cleared, (("['a']", "None"),))]
    )
    assert "    slots[0] = 5\n    assert slots[0] == 5\n" in source
    assert "    slots['a'] = None\n    assert slots['a'] is None\n" in source


def test_a_slice_is_written_as_a_subscript_writes_it() -> None:
    source = write_module(
        "shop",
        [
            returned(Call("Box.__getitem__", ("slice(0, 2)",), init_args=()), "[]"),
            returned(Call("Box.__getitem__", ("slice(None, None, -1)",), init_args=("1",)), "[]"),
            returned(Call("Box.__contains__", ("slice(0, 2)",), init_args=()), "False"),
        ],
    )
    assert "    assert box[0:2] == []\n" in source and "    assert box[::-1] == []\n" in source
    assert "(slice(0, 2) in box) is False" in source  # only a subscript has the short form


def test_imported_names_in_the_order_ruff_sorts_them() -> None:
    names = ["merge", "BList", "MAX_N", "BarrelList", "_private", "X", "Assoc", "a1"]
    assert sorted(names, key=_isort_key) == [
        "MAX_N",
        "Assoc",
        "BarrelList",
        "BList",
        "X",
        "_private",
        "a1",
        "merge",
    ]


@pytest.mark.parametrize(
    ("source", "written"),
    [
        ("slice(0, 2)", "0:2"),
        ("slice(2)", ":2"),
        ("slice(1, None)", "1:"),
        ("slice(None, None, -1)", "::-1"),
        ("slice(*parts)", "slice(*parts)"),
        ("slice(0, step=2)", "slice(0, step=2)"),
        ("0", "0"),
        ("'a:b'", "'a:b'"),
    ],
)
def test_as_slice(source: str, written: str) -> None:
    assert _as_slice(source) == written


def test_stdlib_values_import_their_module() -> None:
    source = write_module(
        "cal",
        [
            returned(Call("weekday", ("datetime.date(2020, 1, 31)",)), "4"),
            returned(Call("weekday", ("decimal.Decimal('1.5')",)), "0"),
        ],
    )
    assert "import datetime\nimport decimal\n\nfrom cal import weekday\n" in source
    assert "assert weekday(datetime.date(2020, 1, 31)) == 4" in source


def test_a_log_record_imports_logging() -> None:
    record = "logging.LogRecord('app', logging.INFO, 'app.py', 10, 'message', None, None)"
    source = write_module("fmt", [returned(Call("render", (record,)), "'message'")])
    assert "import logging\n\nfrom fmt import render\n" in source


def test_an_object_of_the_rest_of_the_package_imports_the_package() -> None:
    """``networkx.DiGraph([...])`` for ``networkx.algorithms.dag``: the module does not bind
    ``networkx`` (it imports it as ``nx``), so the test imports the package itself."""
    source = write_module(
        "graphs.algo",
        [returned(Call("reach", ("graphs.Graph([(1, 2)])", "1")), "{2}")],
    )
    assert "import graphs\nfrom graphs.algo import reach\n" in source, source
    assert "assert reach(graphs.Graph([(1, 2)]), 1) == {2}" in source


def test_a_callable_named_like_its_package_is_imported_from_its_module() -> None:
    """``sparklines.sparklines.sparklines``: ``import sparklines`` would make every call of
    it call the package ("'module' object is not callable")."""
    source = write_module(
        "sparklines.sparklines",
        [
            returned(Call("sparklines", ("[1, 2]",)), "['▁█']"),
            returned(Call("demo", ()), "'usage'"),
        ],
    )
    assert "from sparklines.sparklines import demo, sparklines\n" in source, source
    assert "import sparklines\n" not in source, source
    assert "assert sparklines([1, 2]) == ['▁█']" in source


def test_only_a_written_call_of_the_package_named_callable_keeps_the_package_out() -> None:
    """A call of ``graphs()`` that varied between runs is not written: the test that is
    written names the package, so it imports it."""
    varied = replace(returned(Call("graphs", ("1",)), "2"), deterministic=False)
    source = write_module(
        "graphs.algo",
        [returned(Call("reach", ("graphs.Graph([(1, 2)])", "1")), "{2}"), varied],
    )
    assert "import graphs\nfrom graphs.algo import reach\n" in source, source


def test_bitwise_operators_and_calling_an_instance_are_written_as_a_test_writes_them() -> None:
    source = write_module(
        "query",
        [
            returned(Call("Query.__and__", ("Query(2)",), init_args=("1",)), "False"),
            returned(Call("Query.__invert__", (), init_args=("1",)), "False"),
            returned(Call("Query.__ror__", ("4",), init_args=("1",)), "5"),
            returned(Call("Query.__call__", ("{'a': 1}",), (("strict", "True"),), ("1",)), "True"),
            returned(Call("Query.size", init_args=("1",), before=(Step("__call__", ("3",)),)), "3"),
        ],
    )
    assert "    query = Query(1)\n    assert (query & Query(2)) is False\n" in source
    assert "    assert (~query) is False\n" in source
    assert "    assert (4 | query) == 5\n" in source
    assert "    assert query({'a': 1}, strict=True) is True\n" in source
    assert "    query(3)\n    assert query.size() == 3\n" in source
    assert "__call__" not in source


def test_reflected_operators_put_the_instance_on_the_right() -> None:
    source = write_module(
        "shop",
        [
            returned(Call("Money.__rsub__", ("10",), init_args=("1",)), "9"),
        ],
    )
    assert "    money = Money(1)\n    assert (10 - money) == 9\n" in source
    assert "def test_money_rsub_returns_9()" in source


def test_module_data_is_read_not_called_and_named_after_the_name() -> None:
    source = write_module(
        "inflect",
        [
            returned(Call("PLURALS", attribute=True), "[('x', 'xs')]"),
            returned(Call("__version__", attribute=True), "'0.5.1'"),
        ],
    )
    assert "from inflect import PLURALS, __version__" in source
    assert "def test_plurals_value() -> None:\n    assert PLURALS == [('x', 'xs')]" in source
    assert "def test_version_value() -> None:\n    assert __version__ == '0.5.1'" in source


def test_item_assignment_and_deletion_are_written_as_statements() -> None:
    stored = CallResult(
        Call("Box.__setitem__", ("0", "7"), init_args=()),
        frozenset(),
        Outcome("return", "NoneType", "builtins", "None", literal=True, after=(("x", "7"),)),
        True,
    )
    missing = raised(Call("Box.__delitem__", ("5",), init_args=()), "IndexError", "5")
    source = write_module("shapes", [stored, missing])
    assert "    box = Box()\n    box[0] = 7\n    assert box.x == 7\n" in source
    assert "    with pytest.raises(IndexError, match='5'):\n        del box[5]\n" in source
    ast.parse(source)


def test_each_written_call_is_named_as_the_cover_loop_names_its_test() -> None:
    results = [
        returned(Call("classify", ("-1",)), "'negative'"),
        returned(Call("classify", ("-2",)), "'negative'"),  # the same scenario: told apart
        obj(Call("Box", ("2.0",)), "Box", (("size", "2.0"),)),
        CallResult(Call("spin"), frozenset(), Outcome("timeout"), False),  # never written
    ]
    assert written_keys("shapes", results) == {
        Call("classify", ("-1",)): "test_classify_returns_negative",
        Call("classify", ("-2",)): "test_classify_returns_negative_with_minus_2",
        Call("Box", ("2.0",)): "test_box_builds",
    }
    assert written_keys("shapes", results, framework="unittest") == {
        Call("classify", ("-1",)): "TestClassify::test_classify_returns_negative",
        Call("classify", ("-2",)): "TestClassify::test_classify_returns_negative_with_minus_2",
        Call("Box", ("2.0",)): "TestBox::test_box_builds",
    }
    written = write_module("shapes", results)
    assert all(f"def {key}()" in written for key in written_keys("shapes", results).values())


def test_none_true_and_false_are_compared_with_is_in_fields_too() -> None:
    parsed = obj(Call("parse", ("'x'",)), "Doc", (("long", "None"), ("empty", "False")), "docs")
    init = Call("Box.close", (), init_args=())
    closed = CallResult(
        init,
        frozenset(),
        Outcome("return", "NoneType", "builtins", "None", True, after=(("open", "False"),)),
        True,
    )
    source = write_module("docs", [parsed, closed])
    assert "assert result.long is None" in source and "assert result.empty is False" in source
    assert "assert box.open is False" in source
    assert "== None" not in source and "== False" not in source


@pytest.mark.parametrize(
    ("homes", "expected_import", "expected_raises"),
    [
        ({"ParseError": "docs"}, "from docs import ParseError, parse", "pytest.raises(ParseError"),
        (
            {"ParseError": "pkg"},
            "from pkg import ParseError",
            "pytest.raises(ParseError",
        ),
        ({}, "from docs import parse", "pytest.raises(Exception"),
    ],
)
def test_the_most_specific_public_exception_class_is_expected(
    homes: dict[str, str], expected_import: str, expected_raises: str
) -> None:
    failure = raised(Call("parse", ("'['",)), "ParseError", "bad [input]", module="pkg._errors")
    source = write_module("docs", [failure], homes=homes)
    assert expected_import in source and expected_raises in source
    assert "match=re.escape('bad [input]')" in source


def test_public_homes_are_the_modules_then_its_packages_names() -> None:
    module = "from ._errors import ParseError\nclass Doc: ...\n_private = 1\nVERSION = '1'\n"
    package = "from .docs import Doc\nfrom ._errors import ParseError, Warned\n"
    homes = public_homes("pkg.docs", module, package)
    assert homes == {
        "ParseError": "pkg.docs",
        "Doc": "pkg.docs",
        "VERSION": "pkg.docs",
        "Warned": "pkg",
    }


INSTANCE_NAMES = [
    # class, the call's arguments, the instance's name in the test
    ("Box", (), "box"),
    ("Or", (), "or_"),  # a keyword: ``or = Or()`` is a syntax error
    ("And", (), "and_"),
    ("Re", (), "re_"),  # would hide ``re.escape``
    ("List", (), "list_"),  # would hide the builtin
    ("Result", (), "result_"),  # would be replaced by the call's own result
    ("box", (), "box_"),  # ``box = box()``: an unbound local
    ("Node", ("node",), "node_"),  # an argument names it
]


@pytest.mark.parametrize(("cls", "args", "name"), INSTANCE_NAMES)
def test_an_instance_is_named_legally_and_shadows_nothing(
    cls: str, args: tuple[str, ...], name: str
) -> None:
    source = write_module("shapes", [returned(Call(f"{cls}.size", args, init_args=()), "3")])
    assert f"    {name} = {cls}()\n" in source
    assert f"{name}.size(" in source
    ast.parse(source)


def test_a_test_that_would_not_compile_is_left_out_and_the_rest_is_kept() -> None:
    good = returned(Call("classify", ("1",)), "'positive'")
    odd = returned(Call("classify", ("1 +",)), "'positive'")  # a value that is not an expression
    source = write_module("shapes", [good, odd])
    ast.parse(source)
    assert source.count("def test_") == 1
    assert "classify(1)" in source


def test_a_test_nested_past_the_parser_is_left_out_and_the_rest_is_kept() -> None:
    good = returned(Call("classify", ("1",)), "'positive'")
    deep = returned(Call("classify", ("-" * 10000 + "1",)), "'negative'")  # MemoryError
    source = write_module("shapes", [good, deep])
    ast.parse(source)
    assert source.count("def test_") == 1
    assert "classify(1)" in source


def test_attribute_syntax_is_written_as_a_person_writes_it() -> None:
    """``box.size = 3``, ``del box.size``, ``box.size``; a name no dot can take goes
    through the builtin, and a read that raises is not a bare expression."""
    stored = CallResult(
        Call("Box.__setattr__", ("'size'", "3"), init_args=()),
        frozenset(),
        Outcome("return", "NoneType", "builtins", "None", literal=True, after=(("size", "3"),)),
        True,
    )
    results = [
        stored,
        raised(Call("Box.__delattr__", ("'size'",), init_args=()), "AttributeError", "size"),
        raised(Call("Box.__getattr__", ("'missing'",), init_args=()), "AttributeError", "missing"),
        returned(
            Call(
                "Box.__getattr__",
                ("'size'",),
                init_args=(),
                before=(Step("__setattr__", ("'size'", "3")),),
            ),
            "3",
        ),
        returned(Call("Box.__getattr__", ("'hello world'",), init_args=()), "1"),
        returned(Call("Box.__getattr__", ("'class'",), init_args=()), "2"),
    ]
    source = write_module("shapes", results)
    assert "    box = Box()\n    box.size = 3\n    assert box.size == 3\n" in source
    assert "        del box.size\n" in source
    assert (
        "    with pytest.raises(AttributeError, match='missing'):\n        _ = box.missing\n"
        in source
    )
    assert "    box = Box()\n    box.size = 3\n    assert box.size == 3\n" in source
    assert "    assert getattr(box, 'hello world') == 1\n" in source
    assert "    assert getattr(box, 'class') == 2\n" in source  # a keyword takes no dot
    assert "__" not in source.split("import")[-1]
    ast.parse(source)


def test_copy_and_pickle_round_trips_import_what_they_use_and_say_so_in_the_name() -> None:
    results = [
        obj(Call("Box.__getstate__", (), init_args=("2",)), "Box", (("size", "2"),)),
        obj(Call("Box.__copy__", (), init_args=("2",)), "Box", (("size", "2"),)),
        obj(Call("Box.__deepcopy__", (), init_args=("2",)), "Box", (("size", "2"),)),
    ]
    source = write_module("shapes", results)
    assert source.startswith(
        '"""Tests written by tddforge\'s builtin generator from observed behaviour."""\n\n'
        "import copy\nimport pickle\n\nfrom shapes import Box\n"
    )
    assert "def test_box_pickle_round_trip_returns_box() -> None:" in source
    assert "    result = pickle.loads(pickle.dumps(box))\n    assert result.size == 2\n" in source
    assert "def test_box_copy_returns_box() -> None:" in source
    assert "    result = copy.copy(box)\n" in source
    assert "    result = copy.deepcopy(box)\n" in source


def test_a_method_on_an_instance_another_call_returns() -> None:
    """``entry = parse('a=1')`` then what is asked of it: a property, an operator."""
    results = [
        returned(Call("Entry.key", attribute=True, via="parse('a=1')"), "'a'"),
        returned(Call("Entry.__eq__", ("Entry('a', '1')",), via="parse('a=1')"), "True"),
        raised(Call("Entry.value", attribute=True, via="parse('#')"), "ValueError", "comment"),
    ]
    source = write_module("props", results)
    assert "from props import Entry, parse\n" in source
    assert "    entry = parse('a=1')\n    assert entry.key == 'a'\n" in source
    assert "    assert (entry == Entry('a', '1')) is True\n" in source
    assert "        _ = entry.value\n" in source
    ast.parse(source)


def test_a_type_the_builtins_do_not_bind_is_asserted_by_name() -> None:
    """``isinstance(result, generator)`` would be a NameError: ``generator`` is no builtin."""
    source = write_module(
        "streams",
        [
            obj(Call("lines", ("'a'",)), "generator", module="builtins"),
            obj(Call("table", ("'a'",)), "dict", module="builtins"),
        ],
    )
    assert "    assert type(result).__name__ == 'generator'\n" in source
    assert "    assert isinstance(result, dict)\n" in source
    assert "generator)" not in source


def test_a_function_named_with_a_capital_is_not_named_like_a_class() -> None:
    source = write_module(
        "shapes",
        [
            returned(Call("Area", ("2",)), "4"),
            obj(Call("Box", ("2",)), "Box"),
        ],
    )
    assert "def test_area_returns_4()" in source
    assert "def test_box_builds()" in source


def test_an_instance_is_not_named_like_a_function_the_tests_import() -> None:
    source = write_module(
        "filters",
        [
            obj(Call("field", ("'a'",)), "Field", module="filters"),
            returned(Call("Field.size", ("1",), init_args=("''",)), "2"),
        ],
    )
    assert "    field_ = Field('')\n    assert field_.size(1) == 2\n" in source
    assert "    field = " not in source


def test_a_generator_is_consumed_where_it_raises_and_an_endless_one_only_as_far_as_taken() -> None:
    endless = Outcome("return", "list", "builtins", repr="[5, 6]", literal=True, taken=2)
    source = write_module(
        "gens",
        [
            raised(Call("pairs", ("[1, 2, 3]",), consume=True), "ValueError", "odd"),
            CallResult(Call("naturals", ("5",), consume=True), frozenset(), endless, True),
        ],
    )
    assert "    with pytest.raises(ValueError, match='odd'):\n        list(pairs([1, 2, 3]))\n" in (
        source
    )
    assert "import itertools\n" in source
    assert "    assert list(itertools.islice(naturals(5), 2)) == [5, 6]\n" in source


def test_an_iterating_generator_method_is_listed_once() -> None:
    """``__iter__`` is written ``list(box)`` already: a generator there is not listed twice."""
    source = write_module(
        "boxes",
        [
            returned(Call("Box.__iter__", init_args=(), consume=True), "[1, 2]"),
            raised(Call("Box.__iter__", init_args=("1",), consume=True), "ValueError", "odd"),
        ],
    )
    assert "    assert list(box) == [1, 2]\n" in source
    assert "        list(box)\n" in source
    assert "list(list(" not in source


def test_a_class_and_a_function_of_one_name_get_test_cases_of_their_own() -> None:
    """``Dotty`` and ``dotty`` are both ``TestDotty``: the second class would hide the first,
    whose tests would never run."""
    results = [
        returned(Call("Dotty", ("1",)), "1"),
        returned(Call("dotty", ("2",)), "2"),
    ]
    source = write_module("dotty_dict", results, framework="unittest")
    assert "class TestDotty(unittest.TestCase):" in source
    assert "class TestDottyFunction(unittest.TestCase):" in source
    keys = written_keys("dotty_dict", results, framework="unittest")
    assert sorted(k.split("::")[0] for k in keys.values()) == ["TestDotty", "TestDottyFunction"]


@pytest.mark.parametrize(
    ("roots", "expected"),
    [
        (["parse", "Game"], ["TestParse", "TestGame"]),
        (["Dotty", "dotty"], ["TestDotty", "TestDottyFunction"]),
        (["dotty", "Dotty"], ["TestDotty", "TestDottyClass"]),
        (["a_b", "aB", "AB"], ["TestAB", "TestABFunction", "TestABClass"]),
        (["x", "x_", "X"], ["TestX", "TestXFunction", "TestXClass"]),
        (["ab", "a_b", "a__b"], ["TestAb", "TestAB", "TestABFunction"]),
    ],
)
def test_case_names(roots: list[str], expected: list[str]) -> None:
    assert list(case_names(roots).values()) == expected


def test_what_a_call_changed_in_its_instance_is_asserted_through_its_repr() -> None:
    stored = CallResult(
        Call("Table.__setitem__", ("'a'", "1"), init_args=("{}",)),
        frozenset(),
        Outcome("return", "NoneType", "builtins", "None", True, after_repr="Table({'a': 1})"),
        True,
    )
    source = write_module("tables", [stored])
    assert "    table = Table({})\n    table['a'] = 1\n" in source
    assert "    assert repr(table) == \"Table({'a': 1})\"\n" in source


def test_a_private_classs_instance_is_a_plain_local() -> None:
    """``injection = param("db")``, not ``_injection = ...``."""
    via = Call("_Injection.__call__", ("len",), via="param('db')")
    source = write_module("inj", [returned(via, "'x'")])
    assert "    injection = param('db')\n    assert injection(len) == 'x'\n" in source


def test_a_call_that_writes_where_it_runs_is_tested_in_a_directory_of_its_own() -> None:
    """filelock's ``UnixFileLock("a.lock").release()`` leaves ``a.lock`` behind: its
    test runs in an empty directory, as the runner ran it, and leaves nothing in the
    project (pytest: ``tmp_path``; unittest: a temporary directory, cleaned up after)."""
    results = [
        returned(Call("Lock.release", init_args=("'a.lock'",), workdir=True), "None"),
        returned(Call("Lock.is_locked", init_args=("'b'",), attribute=True), "False"),
    ]
    source = write_module("locks", results)
    assert (
        """\
import pathlib

import pytest

from locks import Lock


def test_lock_release_returns_none(monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path) -> None:
    monkeypatch.chdir(tmp_path)
    lock_ = Lock('a.lock')
    assert lock_.release() is None


def test_lock_is_locked_returns_false() -> None:
"""
        in source
    )
    compile(source, "test_locks.py", "exec")
    cases = write_module("locks", results, framework="unittest")
    assert (
        """\
import os
import tempfile
import unittest

from locks import Lock


class TestLock(unittest.TestCase):
    def test_lock_release_returns_none(self) -> None:
        directory = tempfile.TemporaryDirectory()
        self.addCleanup(directory.cleanup)
        self.addCleanup(os.chdir, os.getcwd())
        os.chdir(directory.name)
        lock_ = Lock('a.lock')
        self.assertIs(lock_.release(), None)
"""
        in cases
    )


def test_a_value_asserted_through_its_type_has_no_repr_asserted_and_none_is_none() -> None:
    """filelock's ``release()`` after ``acquire()`` reads the clock, so its value is kept
    as its type: ``None`` is still ``is None``, and no ``repr(result) == ''``."""
    typed = Outcome("return", "float", "builtins", varies=True)
    nothing = Outcome("return", "NoneType", "builtins", varies=True)
    results = [
        CallResult(Call("elapsed"), frozenset(), typed, True, stable_repr=True),
        CallResult(Call("release"), frozenset(), nothing, True, stable_repr=True),
    ]
    source = write_module("locks", results)
    assert "repr(" not in source
    assert "    assert release() is None\n" in source
    assert "    result = elapsed()\n    assert isinstance(result, float)\n" in source


def test_an_entered_call_is_written_as_a_with_statement() -> None:
    gives = Outcome("return", "str", "builtins", repr="'a.tmp'", literal=True)
    opened = Outcome("return", "Handle", "files", repr="<Handle>", state=(("name", "'a'"),))
    source = write_module(
        "files",
        [
            CallResult(Call("scratch", ("'a'",), enter=True), frozenset(), gives, True),
            CallResult(Call("Store.open", init_args=(), enter=True), frozenset(), opened, True),
            CallResult(
                Call("scratch", ("''",), enter=True),
                frozenset(),
                Outcome("raise", "ValueError", "builtins", message="no name"),
                True,
            ),
        ],
    )
    assert (
        "def test_scratch_entered_gives_a_tmp() -> None:\n"
        "    with scratch('a') as result:\n"
        "        pass\n"
        "    assert result == 'a.tmp'\n"
    ) in source
    assert (
        "    store = Store()\n"
        "    with store.open() as result:\n"
        "        pass\n"
        "    assert result.name == 'a'\n"
    ) in source
    assert (
        "def test_scratch_entered_raises_value_error() -> None:\n"
        "    with pytest.raises(ValueError, match='no name'):\n"
        "        with scratch(''):\n"
        "            pass\n"
    ) in source
    assert "result = result" not in source


def test_an_entered_call_run_for_its_effect_is_still_entered() -> None:
    """Entering gave None and changed the instance: the effect is asserted after a
    ``with`` that enters it, not after a bare call that never does."""
    none = Outcome("return", "NoneType", "builtins", repr="None", literal=True)
    effect = replace(none, after=(("open", "True"),))
    source = write_module(
        "files",
        [CallResult(Call("Store.lock", init_args=(), enter=True), frozenset(), effect, True)],
    )
    assert "    store = Store()\n    with store.lock():\n        pass\n" in source
    assert "    assert store.open is True\n" in source


def member(call: Call, type_: str, text: str, module: str = "colours") -> CallResult:
    outcome = Outcome("return", type_, module, repr=text)
    return CallResult(call, frozenset(), outcome, True, stable_repr=True)


def test_a_member_of_an_enumeration_of_the_module_is_asserted_by_identity() -> None:
    source = write_module(
        "colours",
        [
            member(Call("mix", ("1",)), "Colour", "<Colour.DARK_RED: 'dark red'>"),
            member(Call("mix", ("2",)), "Shade", "<Shade.LOW: 1>", module="paints.shades"),
            member(Call("mix", ("3",)), "Perm", "<Perm.R|W: 6>"),  # a flag's combination
        ],
    )
    assert "from colours import Colour, Perm, mix\n" in source, source
    assert (
        "def test_mix_returns_dark_red() -> None:\n"
        "    assert mix(1) is Colour.DARK_RED\n\n\n" in source
    ), source
    # another module's enumeration, a flag's combination: their type, and repr, as before
    assert "def test_mix_returns_low() -> None:\n    result = mix(2)\n" in source, source
    assert "    assert repr(result) == '<Shade.LOW: 1>'\n" in source, source
    assert "def test_mix_returns_perm() -> None:\n    result = mix(3)\n" in source, source


@pytest.mark.parametrize(
    "message",
    [
        "Invalid request. Extra fields: set(), Missed fields: {'jsonrpc', 'method'}",
        "{'a', 'b'} are missing",
        'between {\'a\', \'b\'} and {"c", "d", "e"}.',
        "x'' {'a', 'b'}",
    ],
)
def test_a_set_of_strings_in_a_message_matches_in_any_order(message: str) -> None:
    # a set's repr follows string hashing, which differs between interpreters
    failure = raised(Call("parse", ("'['",)), "ValueError", message)
    source = write_module("docs", [failure])
    (line,) = [line for line in source.splitlines() if "match=" in line]
    pattern = eval(line.split("match=", 1)[1].rsplit(")", 1)[0], {"re": re})
    reordered = message.replace("'jsonrpc', 'method'", "'method', 'jsonrpc'")
    reordered = reordered.replace("'a', 'b'", "'b', 'a'").replace('"c", "d"', '"d", "c"')
    assert re.search(pattern, message) and re.search(pattern, reordered)
    compile(source, "test_docs.py", "exec")


@pytest.mark.parametrize("framework", ["pytest", "unittest"])
def test_a_text_showing_a_set_of_strings_matches_it_in_any_order(framework: str) -> None:
    """A returned text (or an attribute's) that shows a set of strings is in the order
    string hashing gives, which differs between interpreters: it is matched, with the
    set in any order, not compared; a set itself, and other texts, are compared."""
    results = [
        returned(Call("describe", ("1",)), repr("missing: {'jsonrpc', 'method'}")),
        returned(Call("describe", ("2",)), "{'jsonrpc', 'method'}"),  # a set: == holds
        returned(Call("describe", ("3",)), repr("{not a set} (x.y)")),
        obj(Call("Box", ("4",)), "Box", state=(("keys", repr("{'a', 'b'} kept")),)),
    ]
    source = write_module("shapes", results, framework=framework)
    compile(source, "test_shapes.py", "exec")
    assert "import re\n" in source, source
    matched = [line for line in source.splitlines() if "re.fullmatch(" in line]
    assert len(matched) == 2, source
    for line, text, reordered in zip(
        matched,
        ("missing: {'jsonrpc', 'method'}", "{'a', 'b'} kept"),
        ("missing: {'method', 'jsonrpc'}", "{'b', 'a'} kept"),
        strict=True,
    ):
        pattern = eval(line.split("re.fullmatch(", 1)[1].rsplit(",", 1)[0], {"re": re})
        assert re.fullmatch(pattern, text) and re.fullmatch(pattern, reordered)
        assert not re.fullmatch(pattern, text + "!")
    assert "{'jsonrpc', 'method'}" in source.replace("re.fullmatch", "")
    assert "'{not a set} (x.y)'" in source, source
