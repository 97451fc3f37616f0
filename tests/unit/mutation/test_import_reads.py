"""Which module data another file reads while it is imported (rebind cannot switch it on)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddforge.mutation.import_reads import (
    data_names,
    import_time_reads,
    project_reads,
    read_by_others,
    shared_lines,
)


@pytest.mark.parametrize(
    ("source", "read"),
    [
        ("from m import FMT\nCASES = [(FMT, 1)]\n", {"FMT"}),
        ("import m\nCASES = [m.FMT]\n", {"m", "FMT"}),
        ("from m import FMT\n\ndef test_a():\n    assert FMT\n", set()),  # at run time
        ("def f(x=FMT):\n    return LIMIT\n", {"FMT"}),  # a default, not the body
        ("@deco(LIMIT)\ndef f(x: Kind) -> Out:\n    pass\n", {"deco", "LIMIT", "Kind", "Out"}),
        (
            "class C(Base):\n    size = LIMIT\n\n    def m(self):\n        return FMT\n",
            {"Base", "LIMIT"},
        ),
        ("key = lambda x=FMT: x + LIMIT\n", {"FMT"}),
        ("def broken(:\n", set()),
    ],
)
def test_import_time_reads(source: str, read: set[str]) -> None:
    assert import_time_reads(source) == read


MODULE = """\
import re
FMT = 'P%P'
PATTERN = re.compile(FMT)
RULES = []


def _rule(a, b):
    RULES.insert(0, (a, b))


_rule('x', 'y')
RULES.append(('z', 'w'))


def use(fmt=FMT):
    return fmt
"""


def test_data_names_maps_a_statement_and_the_function_it_calls_to_the_data_they_touch() -> None:
    names = data_names(MODULE)
    assert names[2] == {"FMT"}
    assert names[3] == {"PATTERN", "FMT"}  # ``re`` is an import, not data
    assert names[8] == {"RULES"}  # _rule's body, run at import by line 11
    assert names[11] == {"RULES"} and names[12] == {"RULES"}
    assert 16 not in names and 15 not in names  # a function's own body and def


@pytest.mark.parametrize(
    ("read", "shared"),
    [
        (set(), set()),
        ({"FMT"}, {2, 3}),
        ({"RULES"}, {4, 7, 8, 11, 12}),
        ({"re", "use", "compile"}, set()),  # imports and functions keep their identity
    ],
)
def test_shared_lines(read: set[str], shared: set[int]) -> None:
    assert shared_lines(MODULE, read) == shared


def test_what_the_other_files_read(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from .fmt import FMT\n")
    (tmp_path / "pkg" / "fmt.py").write_text("FMT = 'x'\nOTHER = FMT\n")
    (tmp_path / "test_fmt.py").write_text("from pkg import FMT\nCASES = [FMT]\n")
    reads = project_reads(tmp_path)
    module = (tmp_path / "pkg" / "fmt.py").resolve()
    assert read_by_others(reads, module) == {"FMT"}  # not its own OTHER = FMT
    assert reads[module] == {"FMT"}
