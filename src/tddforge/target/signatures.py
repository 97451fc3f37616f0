"""The public signatures of named classes and functions, read under the TARGET's interpreter.

Started as the ``signatures`` entry (``REQUEST.json OUT.json PATH...``). The
request maps module names to the names to look up in each; the answer maps
each module to why it did not import ("" when it did) and, per name, what it
is and its parameters as ``inspect.signature`` gives them: a function's, a
class's constructor's, and each public method of a class (``self`` and
``cls`` left out). A name the module lacks is looked up among the builtins
(``ValueError``), then reported ``missing``. The project's directories join
``sys.path`` only after the entry's own imports. Stdlib only, Python 3.8+.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import json
import sys
from typing import Any, Callable, TypedDict

from .probe import PARAM_KINDS


class ParamInfo(TypedDict):
    """One parameter: its name, kind (``positional_or_keyword``...) and whether it has a default."""

    name: str
    kind: str
    has_default: bool


class ObjectInfo(TypedDict):
    """One name of a module: what it is, its call's parameters, a class's public members."""

    kind: str  # class, exception, function, other, builtin or missing
    parameters: list[ParamInfo] | None  # None: no signature (or not callable)
    methods: dict[str, list[ParamInfo] | None]
    properties: list[str]


class ModuleInfo(TypedDict):
    """One module: why it did not import ("" when it did), and its names."""

    error: str
    objects: dict[str, ObjectInfo]


def parameters(func: Callable[..., Any], drop_first: bool = False) -> list[ParamInfo] | None:
    """The parameters of ``func`` (its first one dropped for an unbound method), or None."""
    try:
        found = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if drop_first and found and found[0].kind in positional:
        found = found[1:]
    return [
        {
            "name": p.name,
            "kind": PARAM_KINDS[p.kind],
            "has_default": p.default is not inspect.Parameter.empty,
        }
        for p in found
    ]


def describe_class(cls: type) -> ObjectInfo:
    """A class: its constructor's parameters and its public methods and properties."""
    methods: dict[str, list[ParamInfo] | None] = {}
    properties: list[str] = []
    for name in sorted(dir(cls)):
        if name.startswith("_") or not _own(cls, name):
            continue
        member = inspect.getattr_static(cls, name)
        if isinstance(member, property):
            properties.append(name)
        elif isinstance(member, staticmethod):
            methods[name] = parameters(member.__func__)
        elif isinstance(member, classmethod):
            methods[name] = parameters(member.__func__, drop_first=True)
        elif inspect.isfunction(member):
            methods[name] = parameters(member, drop_first=True)
    kind = "exception" if issubclass(cls, BaseException) else "class"
    return {
        "kind": kind,
        "parameters": parameters(cls),
        "methods": methods,
        "properties": properties,
    }


def _own(cls: type, name: str) -> bool:
    """Whether ``name`` is defined by ``cls`` or a base of it that is not a builtin."""
    return any(name in vars(base) for base in cls.__mro__ if base.__module__ != "builtins")


def describe(module: Any, name: str) -> ObjectInfo:
    """What ``name`` is in ``module`` (or among the builtins)."""
    if not hasattr(module, name):
        return _info("builtin" if hasattr(builtins, name) else "missing")
    value = getattr(module, name)
    if inspect.isclass(value):
        return describe_class(value)
    if callable(value):
        return _info("function", parameters(value))
    return _info("other")


def _info(kind: str, params: list[ParamInfo] | None = None) -> ObjectInfo:
    return {"kind": kind, "parameters": params, "methods": {}, "properties": []}


def read_module(module_name: str, names: list[str]) -> ModuleInfo:
    """One module's names, or why it did not import."""
    try:
        module = importlib.import_module(module_name)
    except BaseException as exc:  # SystemExit at import is a failure too
        return {"error": f"{type(exc).__name__}: {exc}", "objects": {}}
    return {"error": "", "objects": {name: describe(module, name) for name in names}}


def main(argv: list[str]) -> int:
    """Read the request ``argv[1]`` with ``argv[3:]`` on the path; write the answer to ``argv[2]``."""
    with open(argv[1], encoding="utf-8") as handle:
        request: dict[str, list[str]] = json.load(handle)
    sys.path[0:0] = argv[3:]
    answer = {module: read_module(module, names) for module, names in request.items()}
    with open(argv[2], "w", encoding="utf-8") as handle:
        json.dump(answer, handle)
    return 0
