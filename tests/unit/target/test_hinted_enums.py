"""``probe.hinted_enums``: the enumerations a hint names, their members, and their names."""

from __future__ import annotations

import enum
import types

import pytest

from tddforge.target.probe import ENUM_MEMBERS, constant_names, hinted_enums


def _enum(name: str, home: str, members: list[str]) -> type[enum.Enum]:
    made = enum.Enum(name, [(m, i) for i, m in enumerate(members)])  # type: ignore[misc]
    made.__module__ = home
    return made


def _module(name: str, **bound: object) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(bound)
    return module


KIND = _enum("Kind", "paints.kinds", ["RED", "GREEN"])


@pytest.mark.parametrize(
    ("bound", "hinted", "expected"),
    [
        # bound under an alias: the alias, which the test imports from the module
        ({"K": KIND}, {"Kind"}, [("Kind", "K", ["RED", "GREEN"])]),
        # bound by its own name too: that name
        ({"K": KIND, "Kind": KIND}, {"Kind"}, [("Kind", "Kind", ["RED", "GREEN"])]),
        # not named by a hint, or bound only privately: nothing
        ({"K": KIND}, {"Colour"}, []),
        ({"_K": KIND}, {"Kind"}, []),
        # another package's enumeration (the stdlib's, a dependency's): nothing
        ({"Kind": _enum("Kind", "otherpkg.kinds", ["A"])}, {"Kind"}, []),
        # not an enumeration
        ({"Kind": type("Kind", (), {})}, {"Kind"}, []),
    ],
)
def test_hinted_enums(
    bound: dict[str, object], hinted: set[str], expected: list[tuple[str, str, list[str]]]
) -> None:
    found = hinted_enums(_module("paints.mix", **bound), hinted)
    assert [(e["name"], e["path"], e["members"]) for e in found] == expected


def test_aliases_of_members_are_left_out_and_a_long_one_cut() -> None:
    class Level(enum.Enum):
        LOW = 1
        BOTTOM = 1  # an alias of LOW
        HIGH = 2

    Level.__module__ = "paints.levels"
    many = _enum("Many", "paints.many", [f"M{i}" for i in range(ENUM_MEMBERS + 4)])
    found = hinted_enums(_module("paints.mix", Level=Level, Many=many), {"Level", "Many"})
    members = {e["name"]: e["members"] for e in found}
    assert members["Level"] == ["LOW", "HIGH"]
    assert members["Many"] == [f"M{i}" for i in range(ENUM_MEMBERS)]


def _plain(name: str, home: str, **attributes: object) -> type:
    made = type(name, (), dict(attributes))
    made.__module__ = home
    return made


MOVES = _plain("Moves", "paints.moves", always=1, never=2, sometimes=3)


@pytest.mark.parametrize(
    ("case", "cls", "expected"),
    [
        ("ints", MOVES, ["always", "never", "sometimes"]),
        ("strs, the private ones left out", _plain("C", "p", A="a", B="b", _x=1), ["A", "B"]),
        ("one constant is not an enumeration", _plain("C", "p", A=1), []),
        ("a bool is not one of its values", _plain("C", "p", A=1, B=True), []),
        ("a list neither", _plain("C", "p", A=1, B=[2]), []),
        ("a method makes it a class", _plain("C", "p", A=1, B=2, f=lambda self: 1), []),
        ("a property too", _plain("C", "p", A=1, B=2, f=property(lambda self: 1)), []),
        ("a subclass of something else", type("C", (ValueError,), {"A": 1, "B": 2}), []),
    ],
)
def test_constant_names(case: str, cls: type, expected: list[str]) -> None:
    assert constant_names(cls) == expected


def test_a_plain_class_of_constants_a_hint_names_is_taken_for_an_enumeration() -> None:
    """pathfinding's ``diagonal_movement: DiagonalMovement = DiagonalMovement.never``,
    where ``class DiagonalMovement: always = 1; never = 2; ...``: its names are the values."""
    found = hinted_enums(_module("paints.mix", Moves=MOVES), {"Moves"})
    assert [(e["name"], e["path"], e["members"]) for e in found] == [
        ("Moves", "Moves", ["always", "never", "sometimes"])
    ]
