"""The implementations of a class a hint names: its concrete subclasses in its package.

A parameter hinted with a base class often wants one of its implementations. text2num's
``WordStreamValueParser(lang: Language)`` reads ``lang.MULTIPLIERS``, which only
``English``, ``French`` and the other languages set: ``Language()`` itself builds, and then
every method of the parser fails on it. The probe offers the implementations its import
loaded, each under the shortest path a test can name it by (``text_to_num.lang.English``),
and says whether the base looks like an interface (attributes it declares and never
sets, methods that only say they are not implemented), so that its implementations are
tried first.

Runs on the target's interpreter: standard library only, Python 3.8 syntax.
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
from collections.abc import Iterator
from typing import Any

#: Implementations offered per class: a plugin registry of fifty needs no more to start.
MAX_IMPLEMENTATIONS = 3
#: Subclasses looked at per class, however many there are.
MAX_VISITED = 200
#: What an interface's methods name when they only say they are not implemented.
NOT_IMPLEMENTED = ("NotImplemented", "NotImplementedError")


def implementations(cls: type, module: Any) -> list[tuple[str, type]]:
    """``(path, subclass)`` for up to ``MAX_IMPLEMENTATIONS`` concrete public subclasses of
    ``cls`` from ``cls``'s package, loaded now; ``path`` is how a test in which ``module``
    is imported names the class (its bare name when ``module`` binds it). Those whose name
    the module's source mentions go first (text2num's ``WordStreamValueParserGerman``
    wants ``German``), then the nearest."""
    package = (getattr(cls, "__module__", None) or "").split(".")[0]
    found = []
    for sub in _subclasses(cls):
        home = getattr(sub, "__module__", None) or ""
        if home.split(".")[0] != package or sub.__name__.startswith("_"):
            continue
        if is_abstract(sub):
            continue
        path = public_path(sub, module)
        if path is not None:
            found.append((path, sub))
    text = _source(module) if len(found) > 1 else ""
    found.sort(key=lambda pair: re.search(r"\b" + re.escape(pair[1].__name__), text) is None)
    return found[:MAX_IMPLEMENTATIONS]


def is_abstract(cls: type) -> bool:
    """Whether ``cls`` cannot be instantiated: abstract methods left, or a
    ``typing.Protocol`` (its own ``_is_protocol``)."""
    return inspect.isabstract(cls) or vars(cls).get("_is_protocol") is True


@functools.lru_cache(maxsize=8)  # once per module, however many classes its hints name
def _source(module: Any) -> str:
    try:
        return inspect.getsource(module)
    except (OSError, TypeError):
        return ""


def _subclasses(cls: type) -> Iterator[type]:
    """Every subclass of ``cls``, breadth first, each once, at most ``MAX_VISITED``."""
    seen = {cls}
    queue = [cls]
    visited = 0
    while queue and visited < MAX_VISITED:
        current = queue.pop(0)
        try:
            direct: list[type] = type.__subclasses__(current)
        except TypeError:
            continue
        for sub in direct:
            if sub in seen:
                continue
            seen.add(sub)
            visited += 1
            queue.append(sub)
            yield sub


def public_path(cls: type, module: Any) -> str | None:
    """The bare name when ``module`` binds ``cls`` by its name, else the shortest dotted
    path from the top of its package that names it (``text_to_num.lang.English``, which
    ``text_to_num.lang`` re-exports, rather than ``text_to_num.lang.english.English``);
    None for a top-level module that does not bind it (its tests import names from it,
    and the package's own name is one of them only if it binds it)."""
    name = cls.__name__
    if _bound(module, name) is cls:
        return name
    if "." not in getattr(module, "__name__", ""):  # ``pkg.sub.Cls`` would import ``pkg``
        return None  # from itself: a test of a top-level module names only what it binds
    parts = (getattr(cls, "__module__", None) or "").split(".")
    for end in range(1, len(parts) + 1):
        prefix = ".".join(parts[:end])
        if _bound(sys.modules.get(prefix), name) is cls:
            return prefix + "." + name
    return None


def _bound(module: Any, name: str) -> Any:
    try:
        return getattr(module, name, None)
    except Exception:  # a lazy module's ``__getattr__`` may raise anything
        return None


def is_interface(cls: type) -> bool:
    """Whether ``cls`` declares what its subclasses provide: attributes annotated and never
    set (it has no constructor of its own that could set them), or a public method that
    only says it is not implemented."""
    own = vars(cls)
    declared = own.get("__annotations__", {})
    constructed = "__init__" in own or "__new__" in own or "__dataclass_fields__" in own
    if not constructed and any(name not in own for name in declared):
        return True
    for attr, raw in own.items():
        if attr.startswith("_") or not inspect.isfunction(raw):
            continue
        names = getattr(raw.__code__, "co_names", ())
        if any(marker in names for marker in NOT_IMPLEMENTED):
            return True
    return False
