"""Which objects a captured call's argument is written as: a literal, or a plain
constructor call that makes the object again."""

from __future__ import annotations

import sys
import types
from collections import OrderedDict

import pytest

from tddforge.target.capture import Rebuilt


class Plain:
    WORDS = {"eins": 1}  # noqa: RUF012 - a table, as languages set theirs


class Stateful:
    def __init__(self) -> None:
        self.strict = False


class Slotted:
    __slots__ = ("size",)

    def __init__(self) -> None:
        self.size = 1


class OneSlot:
    __slots__ = "size"  # one name, as a string

    def __init__(self) -> None:
        self.size = 1


class NeedsArgument:
    def __init__(self, base: int) -> None:
        self.base = base


class Refuses:
    def __init__(self) -> None:
        raise RuntimeError("not here")


@pytest.fixture
def rebuilt(monkeypatch: pytest.MonkeyPatch) -> Rebuilt:
    package = types.ModuleType("pkg")
    lang = types.ModuleType("pkg.lang")
    for cls in (Plain, Stateful, Slotted, OneSlot, NeedsArgument, Refuses):
        monkeypatch.setattr(cls, "__module__", "pkg.lang")
        setattr(lang, cls.__name__, cls)
    package.lang = lang  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pkg", package)
    monkeypatch.setitem(sys.modules, "pkg.lang", lang)
    target = types.ModuleType("pkg.words")
    target.Plain = Plain  # type: ignore[attr-defined]
    return Rebuilt(target)


def changed(obj: object, **values: object) -> object:
    for name, value in values.items():
        setattr(obj, name, value)
    return obj


@pytest.mark.parametrize(
    ("make", "source"),
    [
        (lambda: 3, "3"),  # a literal, as before
        (lambda: Plain(), "Plain()"),  # the module binds it: its bare name
        (lambda: Stateful(), "pkg.lang.Stateful()"),
        (lambda: changed(Stateful(), strict=True), None),  # not what the constructor makes
        (lambda: Slotted(), "pkg.lang.Slotted()"),
        (lambda: changed(Slotted(), size=2), None),
        (lambda: OneSlot(), "pkg.lang.OneSlot()"),
        (lambda: changed(OneSlot(), size=2), None),
        (lambda: NeedsArgument(1), None),  # no call without arguments makes it
        (lambda: Refuses.__new__(Refuses), None),
        (lambda: OrderedDict(a=1), None),  # not the package's
    ],
)
def test_rebuilt(rebuilt: Rebuilt, make: object, source: str | None) -> None:
    assert rebuilt(make()) == source  # type: ignore[operator]
