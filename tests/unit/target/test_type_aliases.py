"""Type aliases in a hint resolve to what the module binds them to; anything else stays."""

from __future__ import annotations

import collections.abc
import types
import typing
from typing import Any

import pytest

from tddforge.target.probe import annotation_text, describe_module
from tddforge.target.type_aliases import resolve


class Node:
    pass


NAMESPACE: dict[str, Any] = {
    "Node": Node,
    "Other": Node,  # another name for the module's class
    "_Plugin": object,  # pluggy: ``_Plugin: TypeAlias = object``
    "Headers": typing.Dict[str, typing.List[str]],  # noqa: UP006 - as old modules write
    "Pairs": list[tuple[str, int]],
    "Maybe": typing.Optional[int],  # noqa: UP045
    "Hook": collections.abc.Callable[[str, int], None],
    "NodeT": typing.TypeVar("NodeT", bound=Node),
    "Forward": typing.TypeVar("Forward", bound="Node"),
    "Number": typing.TypeVar("Number", int, float),
    "T": typing.TypeVar("T"),
    "UserId": typing.NewType("UserId", int),
    "Tree": "Node",  # a forward reference bound to a name
    "Deep": "Shallow",
    "Shallow": "Headers",
    "ENCODING": "utf-8",  # a constant, not a hint
    "MODE": "r",
    "helper": len,
    "List": typing.List,  # noqa: UP006
    "Optional": typing.Optional,
    "Loop": "Loop2",
    "Loop2": "Loop",
    "Module": types.ModuleType,
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("_Plugin", "object"),
        ("_Plugin | None", "object | None"),
        ("Optional[_Plugin]", "Optional[object]"),
        ("list[_Plugin]", "list[object]"),
        ("Headers", "Dict[str, List[str]]"),
        ("Pairs", "list[tuple[str, int]]"),
        ("Maybe", "Optional[int]"),
        ("Hook", "collections.abc.Callable[[str, int], None]"),
        ("NodeT", "Node"),
        ("Forward", "Node"),
        ("Number", "Union[int, float]"),
        ("T", "Any"),
        ("UserId", "int"),
        ("Tree", "Node"),
        ("Deep", "Dict[str, List[str]]"),  # three aliases deep
        ("Loop", "Loop2"),  # a cycle ends, three aliases deep
        ("Other", "Node"),
        # names that are no aliases stay as written
        ("Node", "Node"),
        ("List[Node]", "List[Node]"),
        ("str", "str"),
        ("Unknown", "Unknown"),
        ("helper", "helper"),
        ("ENCODING", "ENCODING"),
        ("Literal['_Plugin', 'T']", "Literal['_Plugin', 'T']"),  # quoted: kept
        ("mod._Plugin", "mod._Plugin"),  # an attribute of something else
        ("Module", "Module"),  # a class whose own name the module does not bind
        (None, None),
        ("", ""),
    ],
)
def test_resolve(text: str | None, expected: str | None) -> None:
    assert resolve(text, NAMESPACE, annotation_text) == expected


def test_an_empty_namespace_changes_nothing() -> None:
    assert resolve("_Plugin", {}, annotation_text) == "_Plugin"


def test_the_probe_writes_a_parameter_hinted_with_an_alias_as_its_type() -> None:
    module = types.ModuleType("registry")
    exec(
        "from __future__ import annotations\n"
        "from typing import Dict, TypeVar\n"
        "_Plugin = object\n"
        "Table = Dict[str, int]\n"
        "K = TypeVar('K')\n"
        "class Manager:\n"
        "    def __init__(self, table: Table) -> None:\n"
        "        self.table = table\n"
        "    def register(self, plugin: _Plugin, key: K) -> _Plugin:\n"
        "        return plugin\n"
        "def lookup(table: Table, key: K) -> int:\n"
        "    return table[key]\n",
        vars(module),
    )
    for name in ("Manager", "lookup"):
        vars(module)[name].__module__ = "registry"
    described = describe_module(module)
    functions = {f["name"]: f for f in described["functions"]}
    assert [p["annotation"] for p in functions["lookup"]["parameters"]] == [
        "Dict[str, int]",
        "Any",
    ]
    (manager,) = described["classes"]
    assert [p["annotation"] for p in manager["constructor"]["parameters"]] == ["Dict[str, int]"]
    register = next(m for m in manager["methods"] if m["name"] == "register")
    assert [p["annotation"] for p in register["parameters"]] == ["object", "Any"]
    assert register["returns"] == "object"
