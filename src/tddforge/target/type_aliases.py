"""The names in a hint that the module binds to a type: written as that type.

pluggy hints ``register(self, plugin: _Plugin)`` with ``_Plugin: TypeAlias = object``;
other modules write ``Headers = Dict[str, str]``, ``T = TypeVar("T", bound=Node)`` or
``UserId = NewType("UserId", int)``. The generator reads hints as text, and a name it
does not know gets no value at all. The module's namespace says what each name is.

Runs in the target's interpreter: stdlib only, and Python 3.8 syntax.
"""

from __future__ import annotations

import builtins
import inspect
import re
import sys
import typing
from collections.abc import Callable
from typing import Any

# a quoted part is kept as it is; a name not after a dot is looked up
_TOKEN = re.compile(r"('[^']*'|\"[^\"]*\")|(?<![\w.])([A-Za-z_]\w*)")
_DEPTH = 3
# where the objects a hint is made of are defined (``Dict[str, int]``, ``list[int]``,
# ``collections.abc.Callable[[str], None]``, ``int | None``)
_TYPING_PREFIX = re.compile(r"(?<![\w.])typing\.")
_TYPING_MODULES = ("typing", "types", "typing_extensions", "collections.abc", "_collections_abc")


def namespace_of(func: Any) -> dict[str, Any]:
    """The globals a callable's hints were written in: a function's own, a class's module's."""
    targets = [inspect.unwrap(func)] if callable(func) else [func]
    if inspect.isclass(func):  # a constructor: where its ``__init__`` was written
        targets += [getattr(func, "__init__", None), getattr(func, "__new__", None)]
    for target in targets:
        found = getattr(target, "__globals__", None)
        if isinstance(found, dict):
            return found
    module = sys.modules.get(getattr(func, "__module__", None) or "")
    return vars(module) if module is not None else {}


def resolve(
    text: str | None, namespace: dict[str, Any], writer: Callable[[Any], str | None]
) -> str | None:
    """``text`` with each alias the namespace binds replaced by what it stands for, up to
    three aliases deep; a name that is a class of its own name, or unknown, stays.
    ``writer``: a runtime hint as text (``probe.annotation_text``)."""
    return _resolve(text, namespace, writer, 0)


def _resolve(
    text: str | None,
    namespace: dict[str, Any],
    writer: Callable[[Any], str | None],
    depth: int,
) -> str | None:
    if not text or not namespace or depth >= _DEPTH:
        return text

    def replace(match: re.Match[str]) -> str:
        name = match.group(2)
        if name is None or name not in namespace:
            return match.group(0)
        try:
            found = alias_text(name, namespace[name], namespace, writer)
        except Exception:  # an odd object in the namespace: the name as written
            return name
        if not found or found == name:
            return name
        return _resolve(found, namespace, writer, depth + 1) or name

    return _TOKEN.sub(replace, text)


def alias_text(
    name: str, value: Any, namespace: dict[str, Any], writer: Callable[[Any], str | None]
) -> str | None:
    """What the alias ``name`` (bound to ``value``) stands for as a hint, or None when
    ``name`` is no alias (a class of that name, a function, a constant)."""
    if isinstance(value, typing.TypeVar):
        return _type_variable(value, namespace, writer)
    supertype = getattr(value, "__supertype__", None)
    if supertype is not None:  # typing.NewType: a function before 3.10, a class after
        return _written(supertype, namespace, writer)
    if type(value).__module__ in _TYPING_MODULES:  # before classes: ``list[int]`` is
        text = writer(value)  # an instance of ``type`` on 3.9 and 3.10
        return _TYPING_PREFIX.sub("", text) if text and "<" not in text else None
    if isinstance(value, type):
        return None if value.__name__ == name else _class_name(value, namespace)
    if isinstance(value, str):  # ``Node = "TreeNode"``: a forward reference, named as
        return value if value[:1].isupper() and _is_expression(value) else None  # classes are
    return None


def _class_name(value: type, namespace: dict[str, Any]) -> str | None:
    """A class's name where the hint can say it: a builtin, or bound by that name."""
    name = value.__name__
    if getattr(builtins, name, None) is value or namespace.get(name) is value:
        return name
    return None


def _type_variable(
    value: Any, namespace: dict[str, Any], writer: Callable[[Any], str | None]
) -> str:
    """A type variable's bound, the union of its constraints, else anything."""
    bound = value.__bound__
    if bound is not None:
        return _written(bound, namespace, writer) or "Any"
    constraints = [_written(c, namespace, writer) for c in value.__constraints__]
    if constraints and all(constraints):
        return "Union[" + ", ".join(typing.cast("list[str]", constraints)) + "]"
    return "Any"


def _written(
    value: Any, namespace: dict[str, Any], writer: Callable[[Any], str | None]
) -> str | None:
    if isinstance(value, typing.ForwardRef):
        return value.__forward_arg__
    if isinstance(value, type):
        return _class_name(value, namespace)
    return writer(value)


def _is_expression(text: str) -> bool:
    try:
        compile(text, "<hint>", "eval")
    except (SyntaxError, ValueError):
        return False
    return True
