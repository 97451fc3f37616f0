"""``probe.hinted_enums``: the enumerations a hint names, their members, and their names."""

from __future__ import annotations

import enum
import types

import pytest

from tddforge.target.probe import ENUM_MEMBERS, hinted_enums


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
