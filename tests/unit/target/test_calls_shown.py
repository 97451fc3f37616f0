"""What the call runner takes from an object after a call (pure parts)."""

from __future__ import annotations

from typing import Any

import pytest

from tddforge.target.calls import MAX_REPR, hash_ordered, literal, public_state, shown_state


@pytest.mark.parametrize(
    ("value", "ordered"),
    [
        ({"a", "b"}, True),  # strings: the per-process hash seed orders them
        ({"a"}, False),
        ({1, 2, 3}, False),  # numbers hash to themselves
        (frozenset({object(), object()}), True),  # by address
        ({"_items": {"x", "y"}}, True),  # an object's attributes, one level down
        ({"rows": [{"k": {"p", "q"}}]}, True),
        ({"rows": {"k": "v"}, "n": 3}, False),
        ([[[[{"deep", "er"}]]]], False),  # past the depth looked at
    ],
)
def test_hash_ordered(value: Any, ordered: bool) -> None:
    assert hash_ordered(value) is ordered


class Shown:
    def __init__(self, items: Any) -> None:
        self._items = items

    def __repr__(self) -> str:
        return f"Shown({self._items!r})"


class Plain:
    pass


def test_shown_state() -> None:
    assert shown_state(Shown([1, 2])) == "Shown([1, 2])"
    assert shown_state(Shown({"a", "b"})) == ""  # its order is not another run's
    assert shown_state(Plain()) == ""  # object's repr: an address
    assert shown_state({"a": 1}) == "{'a': 1}"  # a builtin container shows itself
    assert shown_state(Shown("x" * 5000)) == ""  # too long to assert


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("logging.LogRecord('app', logging.INFO, 'app.py', 10, 'm', None, None).levelname", "INFO"),
        ("str(uuid.UUID('12345678-1234-5678-1234-567812345678'))[:8]", "12345678"),
        ("datetime.timezone.utc.tzname(None)", "UTC"),
    ],
)
def test_stdlib_values_are_built_whatever_the_module_imports(source: str, expected: str) -> None:
    """The module under test need not import ``logging`` for a ``LogRecord`` argument."""
    assert literal(source, module=None) == expected


class Machine:
    def __init__(self) -> None:
        self.memory = 0x10000 * [0]  # py65's MPU: 65536 zeros, no assertion to spell out
        self.pc = 0
        self.name = "x" * (MAX_REPR - 2)  # its repr just fits
        self._private = 1


def test_public_state_leaves_out_attributes_too_long_to_assert() -> None:
    assert public_state(Machine()) == {"name": repr("x" * (MAX_REPR - 2)), "pc": "0"}
