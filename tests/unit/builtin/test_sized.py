"""Inputs of the lengths a module checks (builtin.sized)."""

from __future__ import annotations

import pytest

from tddforge.builtin.constants import MODULE_SCOPE, Constant
from tddforge.builtin.sized import named_literals, sized_constants, with_sized

SIBLINGS = {
    "constants": "A = 6\nB = 10\nBOTH = A + B\nNAME: str = 'x'\nFLAG = True\nLIST = [1]\n",
}


def _sibling(name: str) -> str | None:
    return SIBLINGS.get(name)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("N = 4\nM = N * 2\n", {"N": 4, "M": 8}),
        (
            "from . import constants\n",
            {"constants.A": 6, "constants.B": 10, "constants.BOTH": 16, "constants.NAME": "x"},
        ),
        ("from . import constants as c\n", {"c.A": 6, "c.B": 10, "c.BOTH": 16, "c.NAME": "x"}),
        ("from .constants import BOTH, MISSING\n", {"BOTH": 16}),
        (
            "from pkg import constants\n",
            {"constants.A": 6, "constants.B": 10, "constants.BOTH": 16, "constants.NAME": "x"},
        ),
        ("from pkg.constants import A as LEN\n", {"LEN": 6}),
        ("from other import constants\n", {}),  # another package
        ("from .absent import X\nfrom . import absent\n", {}),
        ("def broken(:\n", {}),
    ],
)
def test_named_literals(source: str, expected: dict[str, object]) -> None:
    assert named_literals(source, _sibling, "pkg") == expected


MODULE = """\
from . import constants


def encode(binary):
    if len(binary) != constants.BOTH:
        raise ValueError("16 bytes")
    return binary


class Code:
    def check(self, text):
        if 3 == len(text) or len(text) < 2:
            return True
        return len(text) != LIMIT


def split(text):
    parts = text.split(":")
    if len(parts) < 2:  # a value it made, not an input
        return None
    return parts


SHORT = [x for x in ITEMS if len(x) > 3]
"""


def test_each_checked_length_gives_a_text_and_bytes_of_it() -> None:
    named = named_literals(MODULE, _sibling, "pkg") | {"LIMIT": 0}
    found = sized_constants(MODULE, named)
    assert found["encode"] == (
        Constant("0123456789abcdef", "compare"),
        Constant(bytes(range(16)), "compare"),
    )
    lengths = [len(c.value) for c in found["Code.check"] if isinstance(c.value, str)]  # type: ignore[arg-type]
    assert lengths == [3, 2, 1]  # == 3, < 2 (and one each side); 0 and past 256: none
    assert MODULE_SCOPE not in found and "split" not in found


def test_a_long_text_repeats_its_alphabet() -> None:
    found = sized_constants("def f(s):\n    return len(s) == 40\n")
    assert found["f"][0] == Constant(("0123456789abcdefghijklmnopqrstuvwxyz" * 2)[:40], "compare")


def test_the_checked_lengths_come_first() -> None:
    mined = {"f": (Constant("a", "string"), Constant("0123", "compare"))}
    sized = {"f": (Constant("0123", "compare"), Constant(b"\x00\x01\x02\x03", "compare"))}
    assert with_sized(mined, sized)["f"] == (
        Constant("0123", "compare"),
        Constant(b"\x00\x01\x02\x03", "compare"),
        Constant("a", "string"),
    )
