"""Source → expected mutants, for every operator (what changes, and how it is switched on)."""

from __future__ import annotations

import ast

import pytest

from tddforge.mutation.generate import find_mutants
from tddforge.mutation.mutant import apply_mutant
from tddforge.mutation.operators import OPERATOR_NAMES


def _inside_function(body: str) -> str:
    return "def f(a, b, c):\n" + "".join(f"    {line}\n" for line in body.splitlines())


def _changes(source: str) -> set[tuple[str, str, str]]:
    return {(m.operator, m.original, m.replacement) for m in find_mutants(source)}


CASES = [
    ("return a + b", {("arithmetic", "+", "-"), ("return_none", "a + b", "None")}),
    ("return a - b", {("arithmetic", "-", "+"), ("return_none", "a - b", "None")}),
    ("return a // b", {("arithmetic", "//", "/"), ("return_none", "a // b", "None")}),
    ("return a ** b", {("arithmetic", "**", "*"), ("return_none", "a ** b", "None")}),
    ("return (a) & (b)", {("arithmetic", "&", "|"), ("return_none", "(a) & (b)", "None")}),
    ("a *= b", {("augmented_assignment", "*=", "/=")}),
    ("a <<= b", {("augmented_assignment", "<<=", ">>=")}),
    (
        "a = b < c",
        {("comparison", "<", ">="), ("boundary", "<", "<="), ("assignment_none", "b < c", "None")},
    ),
    (
        "a = b >= c",
        {("comparison", ">=", "<"), ("boundary", ">=", ">"), ("assignment_none", "b >= c", "None")},
    ),
    ("a = b == c", {("comparison", "==", "!="), ("assignment_none", "b == c", "None")}),
    ("a = b is not c", {("identity", "is not", "is"), ("assignment_none", "b is not c", "None")}),
    ("a = b is c", {("identity", "is", "is not"), ("assignment_none", "b is c", "None")}),
    ("a = b not in c", {("membership", "not in", "in"), ("assignment_none", "b not in c", "None")}),
    ("a = b in c", {("membership", "in", "not in"), ("assignment_none", "b in c", "None")}),
    ("a = b and c", {("boolean", "and", "or"), ("assignment_none", "b and c", "None")}),
    ("a = b or c", {("boolean", "or", "and"), ("assignment_none", "b or c", "None")}),
    ("a = not b", {("not_removal", "not b", "b"), ("assignment_none", "not b", "None")}),
    (
        "a = not (b or c)",
        {
            ("not_removal", "not (b or c)", "(b or c)"),
            ("boolean", "or", "and"),
            ("assignment_none", "not (b or c)", "None"),
        },
    ),
    ("if a:\n    b()", {("not_insertion", "a", "not (a)"), ("call_removal", "b()", "None")}),
    (
        "while a:\n    break",
        {("not_insertion", "a", "not (a)"), ("loop_control", "break", "continue")},
    ),
    ("for x in a:\n    continue", {("loop_control", "continue", "break")}),
    (
        "return a if b else c",
        {("not_insertion", "b", "not (b)"), ("return_none", "a if b else c", "None")},
    ),
    (
        "a = 5",
        {
            ("number", "5", "6"),
            ("number", "5", "4"),
            ("number", "5", "0"),
            ("assignment_none", "5", "None"),
        },
    ),
    ("a = 0", {("number", "0", "1"), ("number", "0", "-1"), ("assignment_none", "0", "None")}),
    (
        "a = 1.5",
        {
            ("number", "1.5", "2.5"),
            ("number", "1.5", "0.5"),
            ("number", "1.5", "0"),
            ("assignment_none", "1.5", "None"),
        },
    ),
    ("a = 'x'", {("string", "'x'", "''"), ("assignment_none", "'x'", "None")}),
    ("a = ''", {("string", "''", "'XX'"), ("assignment_none", "''", "None")}),
    ("a = b'x'", {("string", "b'x'", "b''"), ("assignment_none", "b'x'", "None")}),
    ("a = True", {("boolean_literal", "True", "False"), ("assignment_none", "True", "None")}),
    ("a = False", {("boolean_literal", "False", "True"), ("assignment_none", "False", "None")}),
    ("return None", set()),
    ("f(b, key=c)", {("call_removal", "f(b, key=c)", "None"), ("keyword_none", "c", "None")}),
    ("f(key=None, **c)", {("call_removal", "f(key=None, **c)", "None")}),
    ("x: int = b", {("assignment_none", "b", "None")}),
    ("return", set()),
    ("a = None", set()),
]


@pytest.mark.parametrize(("body", "expected"), CASES)
def test_operator_table(body: str, expected: set[tuple[str, str, str]]) -> None:
    assert _changes(_inside_function(body)) == expected


def test_every_operator_has_a_case() -> None:
    covered = {op for _, expected in CASES for op, _, _ in expected} | {"default_argument"}
    assert covered == set(OPERATOR_NAMES)


def test_default_arguments_are_mutated_at_import_time() -> None:
    (mutant,) = [m for m in find_mutants("def f(a, b='x'):\n    pass\n")]
    assert (mutant.operator, mutant.replacement, mutant.strategy) == (
        "default_argument",
        "''",
        "fresh",
    )


@pytest.mark.parametrize(
    ("source", "change", "where"),
    [
        # a positional default: its index in __defaults__, of how many; the body's lines
        ("def f(a, b=1, c=2):\n    return a\n", ("2", "3"), ("f", 1, 1, 2, "3", (2, 2), "2")),
        ("def f(a, b=1, c=2):\n    return a\n", ("1", "0"), ("f", 1, 0, 2, "0", (2, 2), "1")),
        # keyword-only: its name
        (
            "def f(*, key='k'):\n    x = 1\n    return key\n",
            ("'k'", "''"),
            ("f", 1, "key", 0, "''", (2, 3), "'k'"),
        ),
        # decorated: the code's first line is the decorator's
        (
            "@dec\ndef f(a=True):\n    return a\n",
            ("True", "False"),
            ("f", 1, 0, 1, "False", (3, 3), "True"),
        ),
        # a method (a class body runs at import); a default's part mutated
        (
            "class K:\n    def m(self, n=(1, 2)):\n        return n\n",
            ("1", "0"),
            ("m", 2, 0, 1, "(0, 2)", (3, 3), "(1, 2)"),
        ),
        # not a literal once mutated: a name is looked up, at another time
        ("def f(a=X + 1):\n    return a\n", ("+", "-"), None),
        # a lambda's defaults, and a nested def's (run each time its function runs)
        ("g = lambda a=1: a\n", ("1", "2"), None),
        ("def outer():\n    def f(a=1):\n        return a\n    return f\n", ("1", "2"), None),
    ],
)
def test_a_literal_default_of_a_def_run_at_import_says_where_it_lives(
    source: str, change: tuple[str, str], where: tuple | None
) -> None:
    (mutant,) = [m for m in find_mutants(source) if (m.original, m.replacement) == change]
    slot = mutant.default
    found = None
    if slot is not None:
        found = (slot.name, slot.first, slot.slot, slot.count, slot.value, slot.body, slot.original)
        assert mutant.to_data()["default"]["value"] == slot.value
    assert found == where


@pytest.mark.parametrize(
    "source",
    [
        '"""Module docstring."""\n',
        'def f():\n    """Function docstring."""\n',
        'class C:\n    """Class docstring."""\n',
        "def f(a: int = None) -> str:\n    pass\n",
        "x: 'Annotation' = None\n",
        "def f():\n    yield f'{1} and {2 + 3}'\n",
        "if __name__ == '__main__':\n    main(1)\n",
        "if TYPE_CHECKING:\n    X = 1\n",
        "def f():\n    return 1 + 2  # pragma: no mutate\n",
        # bare strings anywhere: a string left in an enum's body, or after a statement
        "class Color(Enum):\n    RED: int\n    'The red one.'\n",
        "def f():\n    pass\n    'not a docstring, never evaluated for a result'\n",
        # a name used only in annotations (or under TYPE_CHECKING): its value is never read
        "LocalType = Tuple[Union[int, str], 1]\n\ndef f(x: LocalType) -> LocalType:\n    pass\n",
        "T = TypeVar('T')\n\ndef f(x: 'T', y: List[T]) -> None:\n    pass\n",
        "Alias: TypeAlias = Dict[str, 'X']\nif TYPE_CHECKING:\n    Y = Alias\n",
        "try:\n    from typing import Mine\nexcept ImportError:\n    Mine = make(1)\n"
        "def f() -> Mine:\n    pass\n",
        # a docstring set after the fact
        "def f():\n    pass\n\n\nf.__doc__ = 'Add ' + 'one.'\n",
        "__doc__ = 'The module, ' + 'described.'\n",
        # what coverage.py is told to leave out: the statement, its body included
        "if PYPY:  # pragma: no cover\n    X = 1 + 2\n",
        "def f():  # pragma: no cover\n    return 1 + 2\n",
        "@dec(1)  # pragma: no cover\ndef f():\n    return 1 + 2\n",
        "try:\n    pass\nexcept ImportError:  # pragma: no cover\n    X = 1 + 2\n",
    ],
)
def test_skipped(source: str) -> None:
    assert find_mutants(source) == []


def test_an_else_left_out_of_coverage_keeps_its_if() -> None:
    source = "if a > 1:\n    X = 2\nelse:  # pragma: no cover\n    X = 3\n"
    lines = {m.line for m in find_mutants(source)}
    assert lines == {1, 2}


def test_all_is_mutated_only_when_star_imported() -> None:
    source = "__all__ = ['f']\n__all__ += ['g']\n__all__.append('h')\n\ndef f():\n    return 1\n"
    starred = {m.line for m in find_mutants(source)}
    plain = {m.line for m in find_mutants(source, star_imported=False)}
    assert starred == {1, 2, 3, 6} and plain == {6}


@pytest.mark.parametrize(
    ("source", "value"),
    [
        # used at run time too: isinstance, a base class
        ("Kind = make(1)\ndef f(x: Kind):\n    return isinstance(x, Kind)\n", "make(1)"),
        ("T = TypeVar('T')\nclass Box(Generic[T]):\n    pass\n", "TypeVar('T')"),
        # exported: other modules may read it at run time
        ("__all__ = ['Kind']\nKind = make(1)\ndef f(x: Kind):\n    pass\n", "make(1)"),
        ("Kind = make(1)\n", "make(1)"),  # read nowhere here: importers may read it
    ],
)
def test_names_read_at_run_time_are_mutated(source: str, value: str) -> None:
    assert ("assignment_none", value, "None") in _changes(source)


def test_module_and_class_level_code_is_mutated_fresh() -> None:
    source = "LIMIT = 3\n\nclass C:\n    k = 'a'\n\n    def m(self):\n        return self.k + 'b'\n"
    by_original = {(m.original, m.operator): m for m in find_mutants(source)}
    assert by_original[("3", "number")].strategy == "fresh"
    assert by_original[("'a'", "string")].strategy == "fresh"
    method = by_original[("'b'", "string")]
    assert (method.strategy, method.graft_name, method.graft_firstlineno) == ("graft", "m", 6)


def test_graft_target_is_the_outermost_function_and_counts_decorators() -> None:
    source = (
        "@decorate\n@twice\ndef outer():\n    def inner():\n        return 1\n    return inner\n"
    )
    numbers = [m for m in find_mutants(source) if m.operator == "number"]
    assert {(m.graft_name, m.graft_firstlineno) for m in numbers} == {("outer", 1)}


def test_applied_mutants_compile_and_change_exactly_their_span() -> None:
    source = "def f(x, é='ü'):\n    s = 'héllo'\n    return x < 2 and not s or s != 'ö' + s\n"
    mutants = find_mutants(source)
    assert len({m.id for m in mutants}) == len(mutants)
    for mutant in mutants:
        mutated = apply_mutant(source, mutant)
        ast.parse(mutated)
        assert mutated != source
        assert (
            mutated.replace(mutant.replacement, mutant.original, 1) == source
            or mutant.replacement in source
        )


def test_multi_line_call_removal() -> None:
    source = "def f():\n    log(\n        'a',\n    )\n    return 1\n"
    (removal,) = [m for m in find_mutants(source) if m.operator == "call_removal"]
    assert (removal.line, removal.end_line) == (2, 4)
    assert apply_mutant(source, removal) == "def f():\n    None\n    return 1\n"


@pytest.mark.parametrize(
    ("source", "operator", "reach"),
    [
        ("def f(a, b):\n    return (a\n            and b)\n", "boolean", (2, 3)),
        ("def f(a, b):\n    return (a <\n            b)\n", "boundary", (2, 3)),
        ("def f(a):\n    return a + 1\n", "arithmetic", (2, 2)),
        ("def f(a):\n    return a\n", "return_none", None),  # its own span says it
    ],
)
def test_an_operator_token_reaches_its_whole_expression(
    source: str, operator: str, reach: tuple[int, int] | None
) -> None:
    mutant = next(m for m in find_mutants(source) if m.operator == operator)
    assert mutant.reach == reach
    first, last = reach or (2, 2)
    assert list(mutant.reached) == list(range(first, last + 1))
