"""A Python file's text as Python itself reads it (``tokenize.open``).

A source file may start with a UTF-8 byte order mark, or declare its encoding
in a coding cookie (``# -*- coding: latin-1 -*-``); the interpreter imports both.
Read as plain UTF-8, the first gives a text ``ast.parse`` and ``compile`` reject
(``invalid non-printable character U+FEFF``), and the second may not decode at
all. The text returned has neither mark: offsets into it are those of the
module's code, and line numbers are unchanged.
"""

from __future__ import annotations

import io
import tokenize
from pathlib import Path


def read_python(path: Path | str) -> str:
    """The source of the Python file ``path``, decoded as the interpreter decodes it.

    Raises ``OSError``; ``UnicodeDecodeError`` for bytes its encoding cannot
    decode; ``SyntaxError`` for an unknown declared encoding, or one a byte order
    mark contradicts.
    """
    data = Path(path).read_bytes()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        data.decode("utf-8")  # the first lines are not UTF-8: say where, as decoding does
        raise
    return data.decode(encoding)


def syntax_error(exc: SyntaxError) -> str:
    """``exc`` in a few words: ``syntax error at line 3: invalid syntax``, or the reason a
    file could not be decoded (``unknown encoding: klingon``), which has no line."""
    if exc.lineno is None:
        return str(exc.msg)
    return f"syntax error at line {exc.lineno}: {exc.msg}"
