"""Type aliases read from the module's source, and hints that name them written out."""

from __future__ import annotations

import pytest

from tddforge.builtin.aliases import type_aliases, written_out
from tddforge.builtin.discover import Param
from tddforge.builtin.values import candidates

TYPE_CHECKING_ALIAS = """
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from typing import TypeAlias
    NumberOrString: TypeAlias = float | str

def ordinal(value: NumberOrString) -> str:
    return str(value)
"""

ALIASES = [
    ("annotated, under TYPE_CHECKING", TYPE_CHECKING_ALIAS, {"NumberOrString": "float | str"}),
    ("typing.TypeAlias", "import typing\nN: typing.TypeAlias = int\n", {"N": "int"}),
    ("a union by |", "Key = str | bytes | None\n", {"Key": "str | bytes | None"}),
    (
        "a generic",
        "from typing import Optional\nMaybe = Optional[int]\n",
        {"Maybe": "Optional[int]"},
    ),
    (
        "under try",
        "try:\n    Pair = tuple[int, int]\nexcept ImportError:\n    pass\n",
        {"Pair": "tuple[int, int]"},
    ),
    (
        "a plain value is not a type",
        "LIMIT = 5\nNAMES = ['a']\nFLAGS = A | B\n",
        {"FLAGS": "A | B"},
    ),
    ("a number's | is not a type", "MASK = 1 | 2\n", {}),
    ("a class of the same name wins", "Node = int | str\nclass Node:\n    pass\n", {}),
    ("inside a function: not the module's", "def f():\n    Local = int | str\n", {}),
    ("source that does not parse", "X = (int | \n", {}),
    # a TypeVar, where the module postpones its annotations, reaches discovery as ``T``
    ("a TypeVar: anything", "import typing as t\nT = t.TypeVar('T')\n", {"T": "Any"}),
    (
        "a bound TypeVar: its bound",
        "from typing import TypeVar\nT = TypeVar('T', bound=Injectable)\n",
        {"T": "Injectable"},
    ),
    (
        "a constrained TypeVar: its constraints",
        "from typing import TypeVar\nS = TypeVar('S', str, bytes)\n",
        {"S": "str | bytes"},
    ),
    ("any other call is not a type", "X = make('X', bound=int)\n", {}),
    (
        "another name for an alias",
        "Constructor = Callable[[], int]\nProvider = Constructor\nOther = LIMIT\n",
        {"Constructor": "Callable[[], int]", "Provider": "Constructor"},
    ),
]


@pytest.mark.parametrize(("case", "source", "expected"), ALIASES, ids=[a[0] for a in ALIASES])
def test_type_aliases(case: str, source: str, expected: dict[str, str]) -> None:
    assert type_aliases(source) == expected


WRITTEN = [
    ("NumberOrString", "float | str"),
    ("list[NumberOrString]", "list[float | str]"),
    ("NumberOrString | None", "float | str | None"),
    ("Outer", "float | str | bytes"),  # an alias of an alias
    ("NumberOrStringy", "NumberOrStringy"),  # a longer name is another name
    ("mod.NumberOrString", "mod.NumberOrString"),  # another module's name
    ("int", "int"),
]


@pytest.mark.parametrize(("annotation", "expected"), WRITTEN)
def test_written_out(annotation: str, expected: str) -> None:
    aliases = {"NumberOrString": "float | str", "Outer": "NumberOrString | bytes"}
    assert written_out(annotation, aliases) == expected


def test_an_alias_hint_gets_numbers_and_strings_not_nothing() -> None:
    def param(annotation: str) -> Param:
        return Param(
            name="value",
            kind="positional_or_keyword",
            annotation=annotation,
            has_default=False,
            default=None,
            default_is_literal=False,
        )

    aliases = type_aliases(TYPE_CHECKING_ALIAS)
    as_named = candidates(param("NumberOrString"), [])
    written = candidates(param(written_out("NumberOrString", aliases)), [])
    assert not [v for v in as_named if isinstance(v.value, (float, str))]
    assert {type(v.value) for v in written} >= {float, str}
