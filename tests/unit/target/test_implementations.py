"""Which classes look like interfaces, and how a test names an implementation."""

from __future__ import annotations

import dataclasses
import sys
import types

import pytest

from tddforge.target.implementations import implementations, is_interface, public_path


class Declares:
    WORDS: dict


class DeclaresAndSets:
    WORDS: dict = {}  # noqa: RUF012 - a table, as languages set theirs


class SetsInInit:
    words: dict

    def __init__(self) -> None:
        self.words = {}


@dataclasses.dataclass
class Record:
    name: str


class SaysNotImplemented:
    def ordinal(self, word: str) -> str:
        return NotImplemented


class RaisesNotImplemented:
    def read(self) -> bytes:
        raise NotImplementedError


class ComparesOnly:
    def __eq__(self, other: object) -> bool:
        return NotImplemented  # a dunder's NotImplemented is how operators decline


class Plain:
    def size(self) -> int:
        return 1


@pytest.mark.parametrize(
    ("cls", "expected"),
    [
        (Declares, True),
        (DeclaresAndSets, False),
        (SetsInInit, False),
        (Record, False),
        (SaysNotImplemented, True),
        (RaisesNotImplemented, True),
        (ComparesOnly, False),
        (Plain, False),
    ],
)
def test_is_interface(cls: type, expected: bool) -> None:
    assert is_interface(cls) is expected


def test_public_path(monkeypatch: pytest.MonkeyPatch) -> None:
    english = type("English", (), {"__module__": "pkg.lang.english"})
    hidden = type("Hidden", (), {"__module__": "pkg.lang.hidden"})
    modules = {
        "pkg": types.ModuleType("pkg"),
        "pkg.lang": types.ModuleType("pkg.lang"),
        "pkg.lang.english": types.ModuleType("pkg.lang.english"),
    }
    modules["pkg.lang"].English = english  # type: ignore[attr-defined]
    modules["pkg.lang.english"].English = english  # type: ignore[attr-defined]
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    target = types.ModuleType("pkg.parsers")
    assert public_path(english, target) == "pkg.lang.English"  # re-exported: the shorter
    target.English = english  # type: ignore[attr-defined]
    assert public_path(english, target) == "English"  # the module binds it
    assert public_path(hidden, target) is None  # no module names it
    # a top-level module: ``pkg.lang.English`` would be written ``from pkg import pkg``
    assert public_path(english, modules["pkg"]) is None
    modules["pkg"].English = english  # type: ignore[attr-defined]
    assert public_path(english, modules["pkg"]) == "English"


def test_an_implementation_no_module_can_name_safely_is_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = type("Base", (), {"__module__": "lazy.base"})
    named = type("Named", (base,), {"__module__": "lazy.named"})
    type("Refused", (base,), {"__module__": "lazy.refused"})
    package = types.ModuleType("lazy")

    def refuse(name: str) -> object:
        raise RuntimeError(f"no {name}")  # a lazy loader failing on a name it does not know

    package.__getattr__ = refuse  # type: ignore[method-assign]
    named_home = types.ModuleType("lazy.named")
    named_home.Named = named  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lazy", package)
    monkeypatch.setitem(sys.modules, "lazy.named", named_home)
    found = implementations(base, types.ModuleType("lazy.parsers"))
    assert found == [("lazy.named.Named", named)]
