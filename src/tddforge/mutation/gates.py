"""Interpreter gates: expressions whose value only the interpreter decides (pure).

``sys.version_info >= (3, 14)``, ``sys.platform == "win32"``,
``hasattr(sys, "pypy_version_info")``: their value is fixed for the interpreter
that runs the tests. A mutant inside such an expression that leaves its value as
it was (``(3, 14)`` → ``(3, 15)`` on Python 3.11) cannot change what any test
sees there; and the branch a gate never takes (``if sys.version_info >= (3, 14):``
on 3.11) never runs under the tests. ``generate`` makes neither kind of mutant.

``Interpreter`` holds the facts, read once from the project's interpreter
(``read_interpreter``); ``Gates`` evaluates a module's expressions against them. An
expression counts only when every part of it is a constant, a tuple, a comparison,
``and``/``or``/``not``, an index or slice with constant bounds, or one of the facts
below reached through a name the module binds only by importing it. Anything else
is unknown, and unknown never drops a mutant.
"""

from __future__ import annotations

import ast
import json
import operator
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

# The facts an expression can read, by dotted path ("()" marks a call without arguments).
_FACTS_SCRIPT = """
import json, os, platform, sys
v = sys.version_info
print(json.dumps({
    "sys.version_info": list(v),
    "sys.version_info.major": v.major, "sys.version_info.minor": v.minor,
    "sys.version_info.micro": v.micro, "sys.version_info.releaselevel": v.releaselevel,
    "sys.version_info.serial": v.serial, "sys.hexversion": sys.hexversion,
    "sys.platform": sys.platform, "sys.implementation.name": sys.implementation.name,
    "sys.maxsize": sys.maxsize, "sys.byteorder": sys.byteorder, "os.name": os.name,
    "platform.python_implementation()": platform.python_implementation(),
    "platform.system()": platform.system(),
    "sys.__names__": sorted(dir(sys)),
}))
"""
_MODULES = ("sys", "os", "platform")


class Unknown(Exception):
    """The expression reads something that is not an interpreter fact."""


# what evaluating an expression over the facts can raise: it is then not a gate
NOT_EVALUATED = (Unknown, TypeError, ValueError, IndexError, KeyError, AttributeError)


@dataclass(frozen=True)
class Interpreter:
    """What the interpreter that runs the tests says about itself."""

    facts: tuple[tuple[str, Any], ...]
    sys_names: frozenset[str]

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Interpreter:
        """From the JSON ``read_interpreter``'s script prints."""
        names = frozenset(data.pop("sys.__names__", ()))
        data["sys.version_info"] = tuple(data["sys.version_info"])
        return cls(tuple(sorted(data.items())), names)

    def fact(self, path: str) -> Any:
        """The value at ``path``; raises Unknown when there is none."""
        for key, value in self.facts:
            if key == path:
                return value
        raise Unknown(path)

    @property
    def version(self) -> str:
        """``3.11.7``."""
        return ".".join(str(p) for p in self.fact("sys.version_info")[:3])


@lru_cache(maxsize=8)
def read_interpreter(python: str) -> Interpreter | None:
    """The facts of ``python`` (None when it cannot tell: then no mutant is dropped)."""
    try:
        done = subprocess.run(
            [python, "-I", "-c", _FACTS_SCRIPT], capture_output=True, text=True, timeout=60
        )
        return Interpreter.from_data(json.loads(done.stdout))
    except (OSError, ValueError, KeyError, TypeError, subprocess.SubprocessError):
        return None


def imported_names(tree: ast.Module) -> dict[str, str]:
    """Local name → dotted path, for names bound only by importing ``sys``, ``os`` or
    ``platform`` (or a fact of theirs); a name also bound another way is left out."""
    found: dict[str, str] = {}
    rebound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in _MODULES:
                    found[alias.asname or alias.name] = alias.name
                else:
                    rebound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                local = alias.asname or alias.name
                if node.level == 0 and node.module in _MODULES:
                    found[local] = f"{node.module}.{alias.name}"
                else:
                    rebound.add(local)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            rebound.add(node.id)
        elif isinstance(node, ast.arg):
            rebound.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            rebound.add(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            rebound.update(node.names)
    return {name: path for name, path in found.items() if name not in rebound}


def _in(a: Any, b: Any) -> bool:
    return a in b


def _not_in(a: Any, b: Any) -> bool:
    return a not in b


_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: _in,
    ast.NotIn: _not_in,
}
_CONSTANTS = (int, float, str, bytes, bool, type(None))


class _Path(str):
    """A module or fact path not read yet (``sys``, ``sys.implementation``)."""


class Gates:
    """One module's interpreter gates, evaluated against ``interpreter``."""

    def __init__(self, tree: ast.Module, interpreter: Interpreter):
        self.names = imported_names(tree)
        self.interpreter = interpreter

    def value(self, node: ast.expr) -> Any:
        """The expression's value on the interpreter; raises Unknown."""
        found = self._eval(node)
        if isinstance(found, _Path):
            return self.interpreter.fact(found)
        return found

    def known(self, node: ast.expr) -> bool:
        """Does the expression read only interpreter facts and constants (at least one fact)?"""
        if not any(isinstance(n, ast.Name) and n.id in self.names for n in ast.walk(node)):
            return False
        try:
            self.value(node)
        except NOT_EVALUATED:
            return False
        return True

    def _eval(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, _CONSTANTS):
            return node.value
        if isinstance(node, ast.Tuple):
            return tuple(self.value(e) for e in node.elts)
        if isinstance(node, ast.Name | ast.Attribute):
            return self._path(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Subscript):
            return self.value(node.value)[self._index(node.slice)]
        if isinstance(node, ast.Compare):
            return self._compare(node)
        if isinstance(node, ast.BoolOp):
            return self._bool(node)
        if isinstance(node, ast.UnaryOp):
            return self._unary(node)
        raise Unknown(type(node).__name__)

    def _path(self, node: ast.Name | ast.Attribute) -> _Path:
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return _Path(self.names[node.id])
            raise Unknown(node.id)
        base = self._eval(node.value)
        if not isinstance(base, _Path):
            raise Unknown(node.attr)
        return _Path(f"{base}.{node.attr}")

    def _unary(self, node: ast.UnaryOp) -> Any:
        operand = self.value(node.operand)
        if isinstance(node.op, ast.Not):
            return not operand
        if isinstance(node.op, ast.USub) and type(operand) is int:
            return -operand
        raise Unknown(type(node.op).__name__)

    def _call(self, node: ast.Call) -> Any:
        if node.keywords:
            raise Unknown("keywords")
        if isinstance(node.func, ast.Name) and node.func.id == "hasattr" and len(node.args) == 2:
            module, name = self._eval(node.args[0]), self.value(node.args[1])
            if isinstance(module, _Path) and module == "sys" and isinstance(name, str):
                return name in self.interpreter.sys_names
            raise Unknown("hasattr")
        func = self._eval(node.func)
        if isinstance(func, _Path) and not node.args:
            return self.interpreter.fact(f"{func}()")
        raise Unknown("call")

    def _index(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Slice):
            parts = [
                None if p is None else self.value(p) for p in (node.lower, node.upper, node.step)
            ]
            if not all(p is None or type(p) is int for p in parts):
                raise Unknown("slice")
            return slice(*parts)
        index = self.value(node)
        if type(index) is not int:
            raise Unknown("index")
        return index

    def _compare(self, node: ast.Compare) -> bool:
        left = self.value(node.left)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self.value(right_node)
            if type(op) not in _COMPARE:
                raise Unknown(type(op).__name__)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True

    def _bool(self, node: ast.BoolOp) -> Any:
        result: Any = None
        for operand in node.values:
            result = self.value(operand)
            if isinstance(node.op, ast.And) and not result:
                return result
            if isinstance(node.op, ast.Or) and result:
                return result
        return result


def same_value(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (``True`` is not ``1``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
