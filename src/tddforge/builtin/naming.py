"""Names a generated test gives what it builds: pure string work, shared by the writer and
the planner (a callback's parameter is named as the test would name its instance)."""

from __future__ import annotations

import builtins
import keyword
import re

_WORD_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def snake(name: str) -> str:
    """``QueryInstance`` → ``query_instance``; ``HTTPError`` → ``http_error``."""
    return _WORD_BREAK.sub("_", name).lower()


def camel(name: str) -> str:
    """``query_instance`` → ``QueryInstance``."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def instance_name(cls: str, used: set[str] | frozenset[str] = frozenset()) -> str:
    """A local name for an instance of ``cls``: legal (``Or`` gives ``or_``, not ``or``),
    shadowing no builtin and nothing in ``used``; a private class's instance is a plain
    local (``_Injection`` gives ``injection``)."""
    name = snake(cls.lstrip("_")) or "instance"
    if keyword.iskeyword(name) or hasattr(builtins, name) or name in used:
        return f"{name}_"
    return name
