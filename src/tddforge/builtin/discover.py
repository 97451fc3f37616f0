"""Discovery: what a target module offers, found by importing it under its own interpreter.

The probe (:mod:`tddforge.target.probe`, stdlib only) is shipped with the
target package into a scratch directory and run confined by the sandbox with
the project's interpreter and the project (and its ``src``) on its path. It
writes JSON, read back here into frozen pydantic models (an I/O boundary).

A module that cannot be imported safely (a syntax error, a missing native
dependency, network access or writes outside the work dir at import time,
which the sandbox turns into errors) becomes one :class:`InputError` line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from tddforge.analysis.project import import_name
from tddforge.errors import InputError
from tddforge.runner.pytest_run import project_paths
from tddforge.runner.ship import entry_argv, ship
from tddforge.sandbox import Sandbox

_HINTS = {
    "ModuleNotFoundError": "a dependency is missing from the project's interpreter",
    "ImportError": "a dependency is missing or broken in the project's interpreter",
    "OSError": "it touches the network or writes outside the project at import time",
    "PermissionError": "it writes outside the project at import time",
    "SystemExit": "it exits at import time",
}

ParamKind = Literal[
    "positional_only", "positional_or_keyword", "var_positional", "keyword_only", "var_keyword"
]
CallableKind = Literal["function", "method", "staticmethod", "classmethod", "constructor"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Param(_Frozen):
    """One parameter: its kind, type hint as written, and its default as a literal repr."""

    name: str
    kind: ParamKind
    annotation: str | None
    has_default: bool
    default: str | None  # repr of the default, only when it is a literal
    default_is_literal: bool


class Doctest(_Frozen):
    """One ``>>>`` example of a docstring."""

    source: str
    want: str
    exc_msg: str | None
    lineno: int


class CallableInfo(_Frozen):
    """A public function, method or constructor (whose parameters omit ``self``/``cls``)."""

    name: str
    qualname: str
    kind: CallableKind
    parameters: tuple[Param, ...]
    returns: str | None
    docstring: str | None
    doctests: tuple[Doctest, ...]
    is_async: bool
    is_generator: bool
    lines: tuple[int, int] | None
    #: Pairs of optional parameters that act together (``options.py``; not the probe's).
    together: tuple[tuple[str, str], ...] = ()


class Implementation(_Frozen):
    """A concrete subclass, from the class's package, of a class a hint names: how a test
    names it (``text_to_num.lang.English``, or its bare name when the module binds it) and
    its constructor, whose ``qualname`` is that path."""

    path: str
    constructor: CallableInfo | None


class ClassInfo(_Frozen):
    """A public class: its constructor, own public methods and properties."""

    name: str
    docstring: str | None
    doctests: tuple[Doctest, ...]
    constructor: CallableInfo | None
    methods: tuple[CallableInfo, ...]
    properties: tuple[str, ...]
    is_abstract: bool
    is_exception: bool
    lines: tuple[int, int] | None
    #: a private class the module offers only through its instances (``InstanceInfo``) or
    #: what its calls return: its methods are called on those, and it is never built by name
    hidden: bool = False
    #: when a hint names it: its implementations loaded with the module, and whether it
    #: looks like an interface (``target.implementations``), whose implementations go first
    implementations: tuple[Implementation, ...] = ()
    interface: bool = False


class InstanceInfo(_Frozen):
    """A module-level name bound to an instance of one of the module's classes (iso3166's
    ``countries = _CountryLookup()``): how a module that offers objects is used."""

    name: str
    class_name: str


class EnumInfo(_Frozen):
    """An enumeration of the package that the module binds and a hint names: the name the
    module binds it by, and its members' names (``target.probe.hinted_enums``)."""

    name: str
    path: str
    members: tuple[str, ...]


class ModuleInfo(_Frozen):
    """Everything public the target module defines."""

    name: str
    file: str | None
    docstring: str | None
    doctests: tuple[Doctest, ...]
    functions: tuple[CallableInfo, ...]
    classes: tuple[ClassInfo, ...]
    instances: tuple[InstanceInfo, ...] = ()
    #: classes of the package the module imports and names in a hint, with their
    #: constructors only: what builds those arguments (never tested here themselves)
    imported: tuple[ClassInfo, ...] = ()
    #: enumerations a hint names: their members are what those parameters take
    enums: tuple[EnumInfo, ...] = ()

    def held(self, class_name: str) -> list[str]:
        """The module-level names bound to instances of ``class_name``."""
        return [i.name for i in self.instances if i.class_name == class_name]

    def callables(self) -> list[CallableInfo]:
        """Functions, then each class's constructor and methods, in module order."""
        found = list(self.functions)
        for cls in self.classes:
            found += [*([cls.constructor] if cls.constructor else []), *cls.methods]
        return found

    def with_each(self, fill: Callable[[CallableInfo, str], CallableInfo]) -> ModuleInfo:
        """A copy with ``fill(callable, key)`` applied to every function, constructor and
        method; ``key`` is the qualname, ``Class.__init__`` for a constructor."""
        classes = tuple(
            c.model_copy(
                update={
                    "constructor": c.constructor and fill(c.constructor, f"{c.name}.__init__"),
                    "methods": tuple(fill(m, m.qualname) for m in c.methods),
                }
            )
            for c in self.classes
        )
        functions = tuple(fill(f, f.qualname) for f in self.functions)
        return self.model_copy(update={"functions": functions, "classes": classes})


def discover(
    project: Path, module: Path, *, python: Path, sandbox: Sandbox, timeout: float = 30.0
) -> ModuleInfo:
    """Import ``module`` of ``project`` with ``python`` inside ``sandbox`` and describe it."""
    project, module = project.resolve(), module.resolve()
    if not module.is_file():
        raise InputError(f"no such module: {module}")
    name = import_name(project, module)
    with sandbox.scratch() as private:
        ship(private)
        out = private / "discovery.json"
        argv = entry_argv(python, private, "probe", name, str(out), *project_paths(project))
        run = sandbox.run(argv, cwd=project, timeout=timeout)
        if run.timed_out:
            raise InputError(f"cannot import {name}: importing it took longer than {timeout:g} s")
        if not out.is_file():
            tail = (run.stderr.strip().splitlines() or ["no output"])[-1]
            raise InputError(f"cannot import {name}: the interpreter exited ({tail})")
        raw = out.read_text(encoding="utf-8")
    info = parse_result(raw, name)
    _check_origin(info, module)
    return info


def parse_result(raw: str, name: str) -> ModuleInfo:
    """The probe's JSON as a ``ModuleInfo``, or the import failure as an ``InputError``."""
    try:
        data = json.loads(raw)
        if not data["ok"]:
            raise InputError(failure_message(data["error"]))
        return ModuleInfo.model_validate(data["module"])
    except (ValueError, KeyError, TypeError, ValidationError) as exc:
        raise InputError(f"cannot read what discovery found in {name}: {exc}") from exc


def failure_message(error: dict[str, object]) -> str:
    """One line: which module, where it failed, the exception, and the likely cause."""
    kind, message = str(error["type"]), str(error["message"])
    where = ""
    location = error.get("location")
    if isinstance(location, dict) and location.get("file"):
        where = f" ({Path(str(location['file'])).name}, line {location.get('line')})"
    hint = _HINTS.get(kind)
    cause = f"; {hint}" if hint else ""
    detail = f"{kind}: {message}" if message else kind
    return f"cannot import {error['module']} safely{where}: {detail}{cause}"


def _check_origin(info: ModuleInfo, module: Path) -> None:
    """Refuse a module of the same name imported from somewhere else (say, site-packages)."""
    if info.file is None or Path(info.file).resolve() != module:
        raise InputError(f"importing {info.name} loaded {info.file}, not {module}")
