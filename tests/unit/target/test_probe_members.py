"""What the probe reports of a class's members (decorated methods still count), and of the
module's own instances."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from tddforge.target.probe import describe_class, describe_module


class Table:
    def __init__(self, rows: dict[str, int]) -> None:
        self.rows = rows

    @functools.lru_cache(maxsize=8)  # noqa: B019 - the decorator under test
    def __getitem__(self, key: str) -> int:
        return self.rows[key]

    @functools.lru_cache(maxsize=8)  # noqa: B019
    def lookup(self, key: str, default: int = 0) -> int:
        return self.rows.get(key, default)

    @functools.cached_property
    def total(self) -> int:
        return sum(self.rows.values())

    @property
    def size(self) -> int:
        return len(self.rows)


def test_a_cached_method_is_a_method_and_a_cached_property_a_property() -> None:
    described = describe_class("Table", Table)
    methods = {m["name"]: m for m in described["methods"]}
    assert set(methods) == {"__getitem__", "lookup"}
    assert methods["lookup"]["kind"] == "method"
    assert [p["name"] for p in methods["lookup"]["parameters"]] == ["key", "default"]
    assert sorted(described["properties"]) == ["size", "total"]


HELD = """
import enum


class Color(enum.Enum):
    RED = 1


class _Lookup:
    def get(self, key):
        return key


class Public:
    pass


class _Renamed:
    pass


class Oops(Exception):
    pass


countries = _Lookup()
regions = _Lookup()
zones = _Lookup()
default = Public()
RED = Color.RED
failure = Oops("x")
renamed = _Renamed()
Alias = _Renamed
del _Renamed
number = 3
"""


def test_the_modules_own_instances_are_reported_with_a_hidden_class_for_private_ones() -> None:
    module = types.ModuleType("held")
    exec(compile(HELD, "held.py", "exec"), vars(module))
    described = describe_module(module)
    assert described["instances"] == [
        {"name": "countries", "class_name": "_Lookup"},
        {"name": "default", "class_name": "Public"},
        {"name": "regions", "class_name": "_Lookup"},  # two per class: zones is left out
    ]
    classes = {c["name"]: c for c in described["classes"]}
    assert classes["_Lookup"]["hidden"] is True
    assert [m["name"] for m in classes["_Lookup"]["methods"]] == ["get"]
    assert "hidden" not in classes["Public"] and "_Renamed" not in classes


RETURNED = """
class _Injection:
    def __init__(self, name):
        self.name = name

    def __call__(self, func):
        return func


def param(name):
    return _Injection(name)


_Alias = dict
"""


def test_a_private_class_the_public_calls_may_return_is_described_hidden() -> None:
    """inject's ``param("db")`` returns a ``_ParameterInjection``: its ``__call__`` is code
    to test, reached through what ``param`` returns (never built by name)."""
    module = types.ModuleType("returned")
    exec(compile(RETURNED, "returned.py", "exec"), vars(module))
    described = describe_module(module)
    assert [f["name"] for f in described["functions"]] == ["param"]
    classes = {c["name"]: c for c in described["classes"]}
    assert list(classes) == ["_Injection"]  # not ``_Alias``: a builtin class, not defined here
    assert classes["_Injection"]["hidden"] is True
    assert [m["name"] for m in classes["_Injection"]["methods"]] == ["__call__"]


def test_a_hint_naming_a_class_of_typing_is_written_as_its_name() -> None:
    import typing

    from tddforge.target.probe import annotation_text

    # ``inspect.formatannotation`` gives ``<class 'BinaryIO'>``, which parses as no hint:
    # a ``stream: BinaryIO`` parameter then never got an in-memory file
    assert annotation_text(typing.BinaryIO) == "BinaryIO"
    assert annotation_text(typing.TextIO) == "TextIO"
    assert annotation_text(typing.IO[bytes]) == "IO[bytes]"
    assert annotation_text(typing.Optional[typing.BinaryIO]) == "Optional[BinaryIO]"  # noqa: UP045
    assert annotation_text(int) == "int"
    assert annotation_text("Money") == "Money"


def test_a_module_getattr_that_raises_leaves_out_only_the_imported_classes() -> None:
    module = types.ModuleType("pkg.limiter")

    def limit(rate: Rate) -> int:  # noqa: F821 - a hint naming nothing the module binds
        return 1

    def refuse(name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        raise RuntimeError(f"no {name}")  # a lazy loader failing on a name it does not know

    limit.__module__ = module.__name__
    module.limit = limit
    module.__getattr__ = refuse
    described = describe_module(module)
    assert [f["name"] for f in described["functions"]] == ["limit"]
    assert described["imported"] == []


class Dispatcher(dict):
    def __new__(cls, func, table=None):
        return dict.__new__(cls)

    def __init__(self, func: Callable[..., int], table=None) -> None:
        self.func = func


class Plain:
    def __new__(cls, size: int):
        return object.__new__(cls)


@runtime_checkable
class Readable(Protocol):
    def read(self, size: int = -1) -> bytes: ...


class File(Readable):
    def read(self, size: int = -1) -> bytes:
        return b""


def test_a_constructor_read_from_new_takes_the_hints_init_writes() -> None:
    # multimethod: __new__(cls, func) bare, __init__(self, func: Callable): the generator
    # passed func a string
    params = describe_class("Dispatcher", Dispatcher)["constructor"]["parameters"]
    assert [(p["name"], p["annotation"]) for p in params] == [
        ("func", "Callable[..., int]"),
        ("table", None),
    ]
    plain = describe_class("Plain", Plain)["constructor"]["parameters"]
    assert [(p["name"], p["annotation"]) for p in plain] == [("size", "int")]


def test_a_protocol_is_abstract_and_a_class_implementing_it_is_not() -> None:
    assert describe_class("Readable", Readable)["is_abstract"] is True
    assert describe_class("File", File)["is_abstract"] is False
