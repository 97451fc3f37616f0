"""What ``cover`` accepts as its module, before anything is written."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tddforge.errors import InputError
from tddforge.orchestration.cover_loop import CoverOptions, load_target


def _load(tmp_path: Path, data: bytes) -> object:
    (tmp_path / "m.py").write_bytes(data)
    options = CoverOptions(tmp_path, tmp_path / "m.py", Path(sys.executable))
    return load_target(options)


def test_a_module_with_a_byte_order_mark_is_read_without_it(tmp_path: Path) -> None:
    target = _load(tmp_path, b"\xef\xbb\xbfdef f():\n    return 1\n")
    assert target.source == "def f():\n    return 1\n"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"def f(:\n", "m.py: syntax error at line 1"),
        (b"x = '\xff'\n", "m.py: not utf-8 text"),
        (b"# coding: klingon\nx = 1\n", "m.py: unknown encoding: klingon"),
    ],
)
def test_a_module_python_cannot_read_is_one_clear_error(
    tmp_path: Path, data: bytes, message: str
) -> None:
    with pytest.raises(InputError, match=message):
        _load(tmp_path, data)
