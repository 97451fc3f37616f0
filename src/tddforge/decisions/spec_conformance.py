"""Does what the tests use, and what the code defines, match the spec's interface?

``check_tests`` (RED): a keyword argument, method or attribute the tests
use on a spec'd component that the spec does not declare. The uses come from
``analysis.usage`` (only what is clearly the component), and a component is
checked only where the spec says something: a constructor's keywords when it
gives the constructor's signature, members when it lists methods or
attributes. A ``**kwargs`` in a signature accepts every keyword.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tddforge.analysis.usage import Target, Use, find_uses
from tddforge.spec import Component, Method, Spec, module_names

KEYWORD = "keyword"
METHOD = "method"
ATTRIBUTE = "attribute"

_NOT_BY_KEYWORD = ("positional_only", "var_positional", "var_keyword")


@dataclass(frozen=True)
class SpecMismatch:
    """One use in the tests of something the spec does not declare."""

    path: str
    line: int
    component: str
    kind: str  # KEYWORD, METHOD or ATTRIBUTE
    name: str  # the keyword or the member
    message: str


@dataclass(frozen=True)
class _Callable:
    """A name the tests may use: a component's class, or a function a component declares."""

    component: Component
    function: Method | None = None  # None: the component's class


def check_tests(spec: Spec, sources: Mapping[str, str]) -> list[SpecMismatch]:
    """What ``sources`` (test path → text) use of the spec's components that it does not declare."""
    callables = _callables(spec)
    targets = [Target(name, _modules(c.component)) for name, c in callables.items()]
    found: dict[tuple[str, str, str, str, str], SpecMismatch] = {}
    for use in find_uses(sources, targets):
        for mismatch in _judge(use, callables[use.target]):
            key = (use.path, mismatch.component, mismatch.kind, use.member, mismatch.name)
            found.setdefault(key, mismatch)  # the first place each is used is enough
    return list(found.values())


def _callables(spec: Spec) -> dict[str, _Callable]:
    """Name → what it is: each class component, and the functions of the other components
    (only those with a module: a bare function name could be anything). A name two of
    them claim is left out."""
    found: dict[str, _Callable | None] = {}
    for comp in spec.components:
        if _is_class(comp):
            names = [(comp.name, _Callable(comp))]
        elif comp.file_path:
            names = [(m.name, _Callable(comp, m)) for m in comp.interface.methods if m.name]
        else:
            names = []
        for name, what in names:
            found[name] = None if name in found else what
    return {name: what for name, what in found.items() if what is not None}


def _is_class(comp: Component) -> bool:
    return comp.name.isidentifier() and (
        comp.type.lower() == "class" or comp.interface.constructor is not None
    )


def _modules(comp: Component) -> frozenset[str]:
    return frozenset(module_names(comp.file_path)) if comp.file_path else frozenset()


def _judge(use: Use, what: _Callable) -> list[SpecMismatch]:
    comp = what.component
    if not use.member:
        method = what.function or comp.interface.constructor
        label = method.name if what.function and method else comp.name
        return _keywords(use, comp, method, label)
    if what.function is not None or (use.member.startswith("__") and use.member.endswith("__")):
        return []
    declared = comp.interface.member_names()
    if not declared:
        return []  # the spec lists no members: nothing to hold the tests to
    if use.on_class:
        declared |= {e.name.rsplit(".", 1)[-1] for e in comp.errors}
    if use.member not in declared:
        kind = METHOD if use.called else ATTRIBUTE
        shown = f"{comp.name}.{use.member}{'()' if use.called else ''}"
        listed = ", ".join(sorted(declared))
        message = f"{shown} is not in the spec's interface of {comp.name} (it declares {listed})"
        return [_mismatch(use, comp, kind, use.member, message)]
    methods = {m.name: m for m in comp.interface.methods}
    if use.called and use.member in methods:
        return _keywords(use, comp, methods[use.member], f"{comp.name}.{use.member}")
    return []


def _keywords(use: Use, comp: Component, method: Method | None, label: str) -> list[SpecMismatch]:
    """The keywords of a call that the spec's signature does not have."""
    params = method.parameters if method else None
    if method is None or params is None or any(p.kind == "var_keyword" for p in params):
        return []
    accepted = {p.name for p in params if p.kind not in _NOT_BY_KEYWORD}
    return [
        _mismatch(
            use,
            comp,
            KEYWORD,
            keyword,
            f"{label}({keyword}=...): the spec's signature has no parameter {keyword!r}"
            f" (spec: {method.signature})",
        )
        for keyword in use.keywords
        if keyword not in accepted
    ]


def _mismatch(use: Use, comp: Component, kind: str, name: str, message: str) -> SpecMismatch:
    return SpecMismatch(
        use.path, use.line, comp.name, kind, name, f"{use.path}:{use.line}: {message}"
    )
