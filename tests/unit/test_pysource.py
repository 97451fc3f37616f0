"""Python files read as the interpreter reads them: a byte order mark, a coding cookie."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tddforge.pysource import read_python, syntax_error

CODE = "def f():\n    return 'é'\n"


@pytest.mark.parametrize(
    "data",
    [
        CODE.encode("utf-8"),
        b"\xef\xbb\xbf" + CODE.encode("utf-8"),  # a byte order mark, as some editors write
        b"# -*- coding: latin-1 -*-\n" + CODE.encode("latin-1"),
    ],
    ids=["utf-8", "bom", "latin-1-cookie"],
)
def test_a_module_reads_as_python_reads_it(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(data)
    text = read_python(path)
    assert text.endswith(CODE) and not text.startswith("\ufeff")
    ast.parse(text)  # the text compiles, as the file imports


def test_bytes_its_encoding_cannot_decode_raise(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"x = '\xff'\n")
    with pytest.raises(UnicodeDecodeError):
        read_python(path)


def test_an_unknown_encoding_is_said_without_a_line(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(b"# coding: klingon\nx = 1\n")
    with pytest.raises(SyntaxError) as caught:
        read_python(path)
    assert syntax_error(caught.value) == "unknown encoding: klingon"
    assert syntax_error(SyntaxError("invalid syntax", ("m.py", 3, 1, "x ="))) == (
        "syntax error at line 3: invalid syntax"
    )
