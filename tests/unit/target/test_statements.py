"""A module's top-level statements compiled one by one, and run with one of them mutated."""

from __future__ import annotations

from typing import Any

import pytest

from tddforge.target.statements import Statements

SOURCE = '''\
"""The module's docstring."""
from __future__ import annotations

TABLE = {
    "a": [
        1,
        2,
    ],
    "b": 3,
}
X = 1; Y = X + 1
"a bare string, not a docstring"


def total(n: int = 2) -> int:
    return n + sum(TABLE["a"])


@staticmethod
def marked():
    return TABLE["b"]


LAST = total()
'''


def _run(statements: Statements, mutated: str, first: int, last: int) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "sample"}
    statements.run(mutated, first, last, namespace)
    return namespace


def _whole(source: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "sample"}
    exec(compile(source, "sample.py", "exec", dont_inherit=True), namespace)
    return namespace


def test_grouped_by_lines_shared_with_a_semicolon_or_decorator() -> None:
    statements = Statements.of(SOURCE, "sample.py")
    spans = [(first, last) for first, last, _ in statements.groups]
    assert spans == [(1, 1), (2, 2), (4, 10), (11, 11), (12, 12), (15, 16), (19, 21), (24, 24)]


@pytest.mark.parametrize(
    ("old", "new", "first", "last"),
    [
        ('"b": 3', '"b": 4', 9, 9),
        ("[\n        1,\n        2,\n    ]", "None", 5, 8),  # three lines fewer
        ("X = 1;", "X = 2;", 11, 11),
        ("n: int = 2", "n: int = 3", 15, 15),
        ('"The module\'s docstring."', '"XX"', 1, 1),
    ],
)
def test_running_the_groups_gives_what_the_whole_mutated_source_gives(
    old: str, new: str, first: int, last: int
) -> None:
    statements = Statements.of(SOURCE, "sample.py")
    mutated = SOURCE.replace(old, new, 1)
    if new == "None":
        with pytest.raises(TypeError):  # sum(None): the mutant breaks the import, as whole
            _run(statements, mutated, first, last)
        with pytest.raises(TypeError):
            _whole(mutated)
        return
    ran, whole = _run(statements, mutated, first, last), _whole(mutated)
    for name in ("TABLE", "X", "Y", "LAST", "__doc__", "__annotations__"):
        assert ran.get(name) == whole.get(name), name
    assert ran["total"].__defaults__ == whole["total"].__defaults__
    assert ran["total"].__annotations__ == {"n": "int", "return": "int"}  # the future flag


def test_a_bare_string_later_is_not_the_docstring() -> None:
    source = 'X = 1\n"not a docstring"\n'
    ran = _run(Statements.of(source, "m.py"), source.replace("1", "2"), 1, 1)
    assert ran["X"] == 2 and ran.get("__doc__") is None


def test_a_later_statement_keeps_the_line_of_the_file() -> None:
    """A mutant with fewer lines than the code it replaces leaves the later statements
    where the file on disk has them (what ``inspect.getsource`` reads)."""
    statements = Statements.of(SOURCE, "sample.py")
    mutated = SOURCE.replace('"a": [\n        1,\n        2,\n    ],', '"a": [1, 2],')
    ran = _run(statements, mutated, 5, 8)
    assert ran["total"].__code__.co_firstlineno == 15
    assert _whole(mutated)["total"].__code__.co_firstlineno == 12


def test_lines_no_one_group_holds_are_refused() -> None:
    statements = Statements.of(SOURCE, "sample.py")
    with pytest.raises(LookupError):
        statements.run(SOURCE, 10, 11, {})


def test_a_form_feed_is_not_a_line_break() -> None:
    """Python counts lines by newlines; a page break (``\\x0c``, old modules have them
    between sections) is within a line."""
    source = "A = 1\n\x0c\nB = [\n    2,\n]\nC = 3\n"
    mutated = source.replace("2,", "5,")
    ran = _run(Statements.of(source, "m.py"), mutated, 4, 4)
    assert (ran["A"], ran["B"], ran["C"]) == (1, [5], 3)


IMPORTING = """\
import string
try:
    import textwrap as wrapping
except ImportError:  # never
    wrapping = None


class Words(dict):
    def caps(self, text):
        return string.capwords(text) + wrapping.dedent(text)


TABLE = Words(a=1)
"""


def test_a_group_compiles_as_the_whole_module_where_it_calls_an_imported_module() -> None:
    """From Python 3.11, ``string.capwords(...)`` compiles to other opcodes when the
    compiler knows ``string`` as an import; a class compiled in its group alone must be the
    class the import made, or ``rebind`` takes it for changed."""
    statements = Statements.of(IMPORTING, "sample.py")
    ran = _run(statements, IMPORTING.replace("a=1", "a=2"), 13, 13)
    whole = _whole(IMPORTING)
    assert ran["Words"].caps.__code__ == whole["Words"].caps.__code__
    assert ran["TABLE"] == {"a": 2}
    assert "string" not in vars(ran["Words"]) and ran["wrapping"] is whole["wrapping"]
