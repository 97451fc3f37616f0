"""Input synthesis: hints, fits, mutations and candidates, as tables."""

from __future__ import annotations

import ast

import pytest

from tddforge.builtin.constants import Constant
from tddforge.builtin.discover import Param
from tddforge.builtin.values import (
    CALLABLES,
    Expr,
    Hint,
    Value,
    candidates,
    file_contents,
    fits,
    mutations,
    parse_hint,
    unique_values,
    values_for_hint,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (None, None),
        ("int", Hint("int")),
        ("typing.List[int]", Hint("list", (Hint("int"),))),
        ("Optional[str]", Hint("Union", (Hint("str"), Hint("None")))),
        ("str | None", Hint("Union", (Hint("str"), Hint("None")))),
        ("tuple[int, ...]", Hint("tuple", (Hint("int"),), variadic=True)),
        ("dict[str, float]", Hint("dict", (Hint("str"), Hint("float")))),
        ("Literal['a', 2]", Hint("Literal", members=("a", 2))),
        ("'Box'", Hint("Box")),
        ("Sequence['Box']", Hint("list", (Hint("Box"),))),
        ("def (", None),
        # TypeVars as inspect writes them: any value
        ("~K", Hint("Any")),
        ("+T_co", Hint("Any")),
        ("dict[~K, ~V]", Hint("dict", (Hint("Any"), Hint("Any")))),
    ],
)
def test_parse_hint(text: str | None, expected: Hint | None) -> None:
    assert parse_hint(text) == expected


@pytest.mark.parametrize(
    ("hint", "value", "expected"),
    [
        ("int", 3, True),
        ("int", True, False),  # a bool is not the int a test means
        ("int", 3.0, False),
        ("float", 3, True),
        ("str | None", None, True),
        ("str | None", 1, False),
        ("Literal['a', 2]", "a", True),
        ("Literal['a', 2]", 2.0, False),
        ("list[int]", [], True),
        ("list[int]", (), False),
        ("Box", 3, False),  # unknown types: the module's classes, which no literal stands for
        ("Box | None", None, True),
        ("Callable", Expr("len"), True),
        ("Callable[[int], int]", Expr("lambda x: x"), True),
        ("Callable", "len", False),
        ("int", Expr("len"), False),
        (None, "anything", True),
        ("Hashable", "key", True),
        ("Hashable", [], False),
        ("Hashable", Expr("len"), False),
        ("type", Expr("int"), True),
        ("type", 3, False),
        ("type[Money]", Expr("Money"), True),
        ("type[Money]", Expr("int"), False),
    ],
)
def test_fits(hint: str | None, value: object, expected: bool) -> None:
    assert fits(parse_hint(hint), value) is expected


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        ("bool", [True, False]),
        ("int", [0, 1, -1, 100]),
        ("Optional[int]", [0, None, 1, -1, 100]),
        ("list[str]", [[], [""], ["", "a"]]),
        ("tuple[int, str]", [(0, ""), (1, "a")]),  # first values, then second ones
        ("tuple[None, None]", [(None, None)]),  # the second would repeat the first
        ("list[tuple[Any, Any]]", [[], [(0, 0)], [(0, 0), (1, 1)]]),
        ("tuple[int, ...]", [(), (0,), (0, 1)]),
        ("slice", [Expr("slice(1, 3)"), Expr("slice(None, None, -1)"), Expr("slice(-2, None)")]),
        ("dict[str, int]", [{}, {"": 0}]),
        # the keys a body reads (usage): every one with a str, with an int; one; another
        (
            "dict[Literal['a', 'b'], Any]",
            [{}, {"a": "a", "b": "a"}, {"a": 1, "b": 1}, {"a": "a"}, {"a": 1}],
        ),
        ("dict[Literal['k'], Any]", [{}, {"k": "a"}, {"k": 1}, {"a": 1}]),
        ("set[int]", [set(), {0}]),
        ("set[list[int]]", [set()]),  # unhashable elements: only the empty set
        ("Literal['x', 'y']", ["x", "y"]),
        ("Box", []),
        ("Callable", list(CALLABLES)),
        ("Callable[..., int]", list(CALLABLES)),
        # one argument: builtins and lambdas of one; three: lambdas of three, and one of any
        (
            "Callable[[int], int]",
            [Expr("str"), Expr("lambda x: x"), Expr("len"), Expr("bool"), Expr("lambda x: None")],
        ),
        (
            "Callable[[str, str, int], bool]",
            [
                Expr("lambda a, b, c: c"),
                Expr("lambda a, b, c: (b, c)"),  # a postprocessor's (key, value)
                Expr("lambda a, b, c: None"),
                Expr("lambda a, b, c: True"),
                Expr("lambda a, b, c: a"),
                Expr("lambda *args: args"),
            ],
        ),
        (
            "Callable[[], int]",
            [Expr("lambda: None"), Expr("lambda: 1"), Expr("lambda *args: args")],
        ),
        ("TextIO", [Expr("io.StringIO('')"), Expr("io.StringIO('a\\n')")]),
        ("IO[bytes]", [Expr("io.BytesIO(b'')"), Expr("io.BytesIO(b'a\\n')")]),
        (
            "datetime.timedelta",
            [Expr("datetime.timedelta(days=1, seconds=30)"), Expr("datetime.timedelta(0)")],
        ),
        ("Decimal | None", [Expr("decimal.Decimal('1.5')"), None, Expr("decimal.Decimal('-2')")]),
        (  # what a logging formatter, filter or handler is handed
            "logging.LogRecord",
            [
                Expr("logging.LogRecord('app', logging.INFO, 'app.py', 10, 'message', None, None)"),
                Expr(
                    "logging.LogRecord('app', logging.ERROR, 'app.py', 20, 'hello %s', ('world',), None)"
                ),
            ],
        ),
        ("Optional[tzinfo]", [Expr("datetime.timezone.utc"), None]),
        ("uuid.UUID", [Expr("uuid.UUID('12345678-1234-5678-1234-567812345678')")]),
        # inject's ``Binding = type[Injectable] | t.Hashable``: classes, and hashable values
        ("type", [Expr("int"), Expr("str"), Expr("dict")]),
        ("type[Any]", [Expr("int"), Expr("str"), Expr("dict")]),
        ("Type[Money]", [Expr("Money")]),
        ("type[A | B]", [Expr("A"), Expr("B")]),
        ("t.Hashable", [0, 1, -1, "", "a", None, 1.5, True]),
        ("list", [[], ["a"], ["a", "b"], [1, 2, 3], [{"a": 1}, {"b": 2}]]),
        ("dict", [{}, {"a": 1}, {"a": 1, "b": 2}, {"a": {"b": 1}}]),
        # bytes-like views, made from bytes (hyperframe's ``parse_body(data: memoryview)``)
        ("memoryview", [Expr("memoryview(b'')"), Expr("memoryview(b'abc')")]),
        ("bytearray", [Expr("bytearray(b'')"), Expr("bytearray(b'abc')")]),
    ],
)
def test_values_for_hint(hint: str, expected: list[object]) -> None:
    values = values_for_hint(parse_hint(hint))
    assert values == expected
    assert [type(v) for v in values] == [type(v) for v in expected]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, [False]),
        (10, [11, 9, -10, 0]),
        (2.5, [3.5, 1.5, -2.5, 0.0, 2.5e17, 2.5e-05, 2.5e25]),
        (0.0, [1.0, -1.0, -0.0, 0.0]),
        ("ox", ["", "o", "oxox", "OX", " ox"]),
        ("SAVE-00", ["", "SAVE-0", "SAVE-00SAVE-00", "SAVE-00", " SAVE-00", "SAVE-11", "SAVE-99"]),
        (b"ab", [b"", b"a", b"abab"]),
        # a container of numbers: each one up, then each of the other sign (a zero as -1)
        ([1, 2], [[], [1], [1, 2, 1], [2, 3], [-1, -2]]),
        ((1,), [(), (), (1, 1), (2,), (-1,)]),
        ((0, 0), [(), (0,), (0, 0, 0), (1, 1), (-1, -1)]),
        ([0.0, None], [[], [0.0], [0.0, None, 0.0], [1.0, None], [-1.0, None]]),
        ([True, "a"], [[], [True], [True, "a", True]]),  # no number: a bool is not one
        (None, []),
    ],
)
def test_mutations(value: object, expected: list[object]) -> None:
    assert mutations(value) == expected
    assert [type(v) for v in mutations(value)] == [type(v) for v in expected]
    for got, wanted in zip(mutations(value), expected, strict=True):
        if isinstance(got, list | tuple):
            assert [type(v) for v in got] == [type(v) for v in wanted]  # 1.0 stays a float


def param(
    annotation: str | None = None, default: object = ..., kind: str = "positional_or_keyword"
) -> Param:
    has = default is not ...
    return Param.model_validate(
        {
            "name": "x",
            "kind": kind,
            "annotation": annotation,
            "has_default": has,
            "default": repr(default) if has else None,
            "default_is_literal": has,
        }
    )


def values(found: tuple[Value, ...]) -> list[object]:
    return [v.value for v in found]


def test_candidates_order_default_constants_hint_then_mutations() -> None:
    consts = [Constant(10, "compare"), Constant("x", "string"), Constant(7, "number")]
    found = candidates(param("int", default=3), consts, limit=50)
    assert [(v.value, v.origin) for v in found[:5]] == [
        (3, "default"),
        (10, "constant:compare"),
        (7, "constant:number"),
        (0, "hint"),
        (1, "hint"),
    ]
    assert values(found)[7:] == [4, 2, -3, 11, 9, -10, 8, 6, -7]  # mutations; no repeats
    assert all(type(v) is int for v in values(found))  # "x" does not fit an int


def test_candidates_are_literals_that_round_trip() -> None:
    consts = [Constant("ox", "dict_key"), Constant(-1.5, "doctest"), Constant(None, "default")]
    for found in (candidates(param(), consts, limit=100), candidates(param("list[str]"), consts)):
        for value in found:
            assert ast.literal_eval(value.source) == value.value


def test_candidates_skip_regex_and_format_constants_and_respect_the_limit() -> None:
    consts = [
        Constant("^\\d+$", "regex"),
        Constant("{} items", "format"),
        Constant("ox", "compare"),
    ]
    found = candidates(param("str"), consts, limit=3)
    assert values(found) == ["ox", "", "a"]


def test_candidates_for_literal_hint_are_its_members_only() -> None:
    found = candidates(param("Literal['r', 'w']"), [Constant("q", "compare")])
    assert values(found) == ["r", "w"]


@pytest.mark.parametrize("kind", ["var_positional", "var_keyword"])
def test_no_candidates_for_star_parameters(kind: str) -> None:
    assert candidates(param(kind=kind), [Constant(1, "compare")]) == ()


def test_candidates_for_an_unknown_class_come_only_from_fitting_sources() -> None:
    # no literal can stand for a Box: only exploration can build one
    assert candidates(param("Box"), [Constant(1, "compare"), Constant("a", "string")]) == ()
    assert values(candidates(param("Optional[Box]"), [Constant(1, "compare")])) == [None]


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        # composed texts first, then the module's strings, then an empty file and a line
        (
            "TextIO",
            [
                "io.StringIO('[s]\\nk = v\\n')",
                "io.StringIO('a=1')",
                "io.StringIO('')",
                "io.StringIO('a\\n')",
            ],
        ),
        (
            "StringIO",
            [
                "io.StringIO('[s]\\nk = v\\n')",
                "io.StringIO('a=1')",
                "io.StringIO('')",
                "io.StringIO('a\\n')",
            ],
        ),
        ("BinaryIO", ["io.BytesIO(b'ab')", "io.BytesIO(b'')", "io.BytesIO(b'a\\n')"]),
        # a union: each member in turn, the file holding the texts too
        (
            "str | TextIO",
            ["'a=1'", "io.StringIO('[s]\\nk = v\\n')", "'[s]\\nk = v\\n'", "io.StringIO('a=1')"],
        ),
    ],
)
def test_a_file_is_an_in_memory_file_holding_the_modules_texts(
    annotation: str, expected: list[str]
) -> None:
    constants = [
        Constant("a=1", "compare"),
        Constant("[s]\nk = v\n", "text"),
        Constant(b"ab", "compare"),
    ]
    found = candidates(param(annotation), constants, limit=4)
    assert [v.source for v in found] == expected


HEADERS = [Constant(b"GIF87a\x00", "text"), Constant(b"BM\x00", "text"), Constant("[s]", "text")]


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (None, []),
        ("int", []),
        ("BinaryIO", ["io.BytesIO(b'GIF87a\\x00')", "io.BytesIO(b'BM\\x00')", "io.BytesIO(b'')"]),
        ("TextIO", ["io.StringIO('[s]')", "io.StringIO('')"]),
        (
            "Union[str, bytes, os.PathLike, BinaryIO, Reader]",
            ["io.BytesIO(b'GIF87a\\x00')", "io.BytesIO(b'BM\\x00')", "io.BytesIO(b'')"],
        ),
    ],
)
def test_file_contents_is_a_file_per_text_for_each_file_type_of_a_hint(
    annotation: str | None, expected: list[str]
) -> None:
    found = file_contents(parse_hint(annotation), HEADERS)
    assert [v.source for v in found][: len(expected)] == expected
    assert all(v.source.startswith("io.") for v in found)


def test_unique_values_keeps_the_first_of_each_type_and_repr() -> None:
    values = [Value(1, "a"), Value(True, "b"), Value(1, "c"), Value("1", "d")]
    assert [(v.value, v.origin) for v in unique_values(values)] == [
        (1, "a"),
        (True, "b"),
        ("1", "d"),
    ]


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        # the module's bytes first, each as the view asked for; text never
        ("memoryview", ["memoryview(b'\\x00\\t')", "memoryview(b'')", "memoryview(b'abc')"]),
        ("bytearray", ["bytearray(b'\\x00\\t')", "bytearray(b'')", "bytearray(b'abc')"]),
        ("bytes | memoryview", ["b'\\x00\\t'", "memoryview(b'')", "b''"]),
    ],
)
def test_a_bytes_view_is_given_the_bytes_candidates(annotation: str, expected: list[str]) -> None:
    pool = [Constant(b"\x00\t", "text"), Constant("text", "string")]
    found = candidates(param(annotation), pool, limit=3)
    assert [v.source for v in found] == expected
    assert all(fits(parse_hint(annotation), v.value) for v in found)
