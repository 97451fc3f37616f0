"""Whether two values a module made are the same to any code that reads them (pure).

Running a module again makes new objects: a table of lambdas is all new lambdas,
equal to the old ones in everything but identity. ``same`` compares such values by
what code reading them could tell apart: plain values by equality (of the same
type), containers item by item, functions by their code, defaults and names (not
their line numbers: moving a lambda down a line changes no result), signatures by
their parameters. Anything it does not know is different, so a caller relying on
``same`` only ever runs more tests than it must, never fewer.
"""

from __future__ import annotations

import inspect
import re
import types
from typing import Any

_PLAIN = (type(None), bool, int, float, complex, str, bytes, range)
_DEPTH = 40  # deeper than any table's nesting; a cycle ends here, as "different"

# what a code object's behaviour is made of; not its file, first line or line table
_CODE_FIELDS = (
    "co_argcount",
    "co_posonlyargcount",
    "co_kwonlyargcount",
    "co_flags",
    "co_code",
    "co_names",
    "co_varnames",
    "co_freevars",
    "co_cellvars",
    "co_name",
)


def same(a: Any, b: Any, depth: int = 0) -> bool:
    """Whether ``a`` and ``b`` cannot be told apart by code reading them (False when unsure)."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b) or depth > _DEPTH:
        return False
    if kind in _PLAIN:
        return bool(a == b) and (kind is not float or repr(a) == repr(b))  # 0.0 and -0.0
    if kind in (tuple, list):
        return len(a) == len(b) and all(same(x, y, depth + 1) for x, y in zip(a, b))
    if kind is dict:
        return list(a) == list(b) and all(same(a[k], b[k], depth + 1) for k in a)
    if kind in (set, frozenset):
        return _plain_members(a) and bool(a == b)
    if kind is types.FunctionType:
        return _same_function(a, b, depth)
    if kind is types.CodeType:
        return _same_code(a, b, depth)
    if kind is inspect.Signature:
        return same(list(a.parameters.values()), list(b.parameters.values()), depth + 1) and same(
            a.return_annotation, b.return_annotation, depth + 1
        )
    if kind is inspect.Parameter:
        return (
            a.name == b.name
            and a.kind == b.kind
            and same(a.default, b.default, depth + 1)
            and same(a.annotation, b.annotation, depth + 1)
        )
    if kind is re.Pattern:
        return bool(a.pattern == b.pattern and a.flags == b.flags)
    return False


def _plain_members(values: Any) -> bool:
    """Whether a set holds only plain values (equal members are then interchangeable)."""
    return all(type(v) in _PLAIN or type(v) in (tuple, frozenset) for v in values)


def _same_function(a: types.FunctionType, b: types.FunctionType, depth: int) -> bool:
    if a.__closure__ is not None or b.__closure__ is not None:
        return False  # what a cell holds can change after the comparison
    return (
        a.__name__ == b.__name__
        and a.__qualname__ == b.__qualname__
        and a.__globals__ is b.__globals__
        and _same_code(a.__code__, b.__code__, depth + 1)
        and same(a.__defaults__, b.__defaults__, depth + 1)
        and same(a.__kwdefaults__, b.__kwdefaults__, depth + 1)
        and same(a.__dict__, b.__dict__, depth + 1)
        and same(a.__annotations__, b.__annotations__, depth + 1)
    )


def _same_code(a: types.CodeType, b: types.CodeType, depth: int) -> bool:
    if any(getattr(a, f) != getattr(b, f) for f in _CODE_FIELDS):
        return False
    if getattr(a, "co_qualname", None) != getattr(b, "co_qualname", None):
        return False
    if getattr(a, "co_exceptiontable", b"") != getattr(b, "co_exceptiontable", b""):
        return False
    return len(a.co_consts) == len(b.co_consts) and all(
        same(x, y, depth + 1) for x, y in zip(a.co_consts, b.co_consts)
    )
