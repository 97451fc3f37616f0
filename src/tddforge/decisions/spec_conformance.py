"""Does what the tests use, and what the code defines, match the spec's interface?

``check_tests`` (RED): a keyword argument, method or attribute the tests
use on a spec'd component that the spec does not declare. The uses come from
``analysis.usage`` (only what is clearly the component), and a component is
checked only where the spec says something: a constructor's keywords when it
gives the constructor's signature, members when it lists methods or
attributes. A ``**kwargs`` in a signature accepts every keyword.

``check_signatures`` (after GREEN): the implementation's public signatures, as
the project's interpreter reads them (``signature_request`` says what to read),
against the spec: a component, method, error or export that is missing, a
constructor or method whose parameters differ (a name missing or added, another
order, a default dropped), a public method the spec does not list.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tddforge.analysis.usage import Target, Use, find_uses
from tddforge.spec import Component, Method, Param, Spec, module_names
from tddforge.target.signatures import ModuleInfo, ObjectInfo, ParamInfo

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


@dataclass(frozen=True)
class SignatureMismatch:
    """One way the code's public interface differs from the spec's."""

    component: str
    name: str  # what differs: ``Bucket``, ``Bucket.take``, ``rate.bucket``
    kind: str  # not_imported, missing, parameters, extra
    message: str


def signature_request(spec: Spec) -> dict[str, list[str]]:
    """Module → the names to read there: each component with a module, its functions (for a
    component that is not a class), its errors and its exports."""
    request: dict[str, list[str]] = {}
    for comp in spec.components:
        if not comp.module:
            continue
        names = request.setdefault(comp.module, [])
        own = [comp.name] if _is_class(comp) else [m.name for m in comp.interface.methods]
        errors = [e.name.rsplit(".", 1)[-1] for e in comp.errors]
        for name in [*own, *errors, *comp.exports]:
            if name and name.isidentifier() and name not in names:
                names.append(name)
    return request


def check_signatures(spec: Spec, found: Mapping[str, ModuleInfo]) -> list[SignatureMismatch]:
    """How the code ``found`` (``signature_request``'s answer) differs from the spec."""
    mismatches: list[SignatureMismatch] = []
    for comp in spec.components:
        module = found.get(comp.module) if comp.module else None
        if module is None:
            continue
        if module["error"]:
            message = f"{comp.module} does not import: {module['error']}"
            mismatches.append(SignatureMismatch(comp.name, comp.module, "not_imported", message))
            continue
        objects = module["objects"]
        if _is_class(comp):
            mismatches += _check_class(comp, objects.get(comp.name))
        else:
            for method in comp.interface.methods:
                mismatches += _check_callable(comp, method, objects.get(method.name), method.name)
        mismatches += _check_names(comp, objects)
    return mismatches


def _missing(comp: Component, name: str, what: str) -> SignatureMismatch:
    message = f"{name}: the spec declares this {what}, the code has none"
    return SignatureMismatch(comp.name, name, "missing", message)


def _check_class(comp: Component, info: ObjectInfo | None) -> list[SignatureMismatch]:
    if info is None or info["kind"] not in ("class", "exception"):
        return [_missing(comp, f"{comp.module}.{comp.name}", "class")]
    found: list[SignatureMismatch] = []
    if comp.interface.constructor is not None:
        found += _check_params(comp, comp.interface.constructor, info["parameters"], comp.name)
    for method in comp.interface.methods:
        name = f"{comp.name}.{method.name}"
        if method.name in info["properties"]:
            message = f"{name}: the spec declares a method, the code has a property"
            found.append(SignatureMismatch(comp.name, name, "parameters", message))
        elif method.name in info["methods"]:
            found += _check_params(comp, method, info["methods"][method.name], name)
        else:
            found.append(_missing(comp, name, "method"))
    declared = comp.interface.member_names()
    if declared:
        for extra in sorted(set(info["methods"]) - declared):
            message = f"{comp.name}.{extra}: a public method the spec does not declare"
            found.append(SignatureMismatch(comp.name, f"{comp.name}.{extra}", "extra", message))
    return found


def _check_callable(
    comp: Component, method: Method, info: ObjectInfo | None, name: str
) -> list[SignatureMismatch]:
    if info is None or info["kind"] != "function":
        return [_missing(comp, f"{comp.module}.{name}", "function")]
    return _check_params(comp, method, info["parameters"], name)


def _check_names(comp: Component, objects: Mapping[str, ObjectInfo]) -> list[SignatureMismatch]:
    """The errors and exports the spec names, where the code has none."""
    found: list[SignatureMismatch] = []
    for error in comp.errors:
        name = error.name.rsplit(".", 1)[-1]
        info = objects.get(name)
        if info is None or info["kind"] in ("exception", "builtin"):
            continue
        if info["kind"] == "missing":
            found.append(_missing(comp, f"{comp.module}.{name}", "error"))
        else:
            message = (
                f"{comp.module}.{name}: the spec declares an error, the code's is no exception"
            )
            found.append(
                SignatureMismatch(comp.name, f"{comp.module}.{name}", "parameters", message)
            )
    for export in comp.exports:
        info = objects.get(export)
        if info is not None and info["kind"] == "missing":
            found.append(_missing(comp, f"{comp.module}.{export}", "export"))
    return found


def _check_params(
    comp: Component, method: Method, code: list[ParamInfo] | None, name: str
) -> list[SignatureMismatch]:
    spec = method.parameters
    if spec is None or code is None:
        return []  # one side has no signature to compare
    problems = parameter_differences(spec, code)
    if not problems:
        return []
    shown = ", ".join(_shown(p) for p in code)
    message = f"{name}: {'; '.join(problems)} (spec: {method.signature}; code: ({shown}))"
    return [SignatureMismatch(comp.name, name, "parameters", message)]


def parameter_differences(spec: tuple[Param, ...], code: list[ParamInfo]) -> list[str]:
    """How the code's parameters differ from the spec's, in words ([] when they agree)."""
    named = ("var_positional", "var_keyword")
    spec_names = [p.name for p in spec if p.kind not in named]
    code_names = [p["name"] for p in code if p["kind"] not in named]
    takes_any = any(p["kind"] == "var_keyword" for p in code)
    problems = [f"no parameter {n!r}" for n in spec_names if n not in code_names and not takes_any]
    problems += [f"parameter {n!r} is not in the spec" for n in code_names if n not in spec_names]
    shared = [n for n in code_names if n in spec_names]
    if shared != [n for n in spec_names if n in shared]:
        problems.append("the parameters are in another order")
    defaults = {p.name for p in spec if p.has_default}
    problems += [
        f"{p['name']!r} has no default (the spec gives one)"
        for p in code
        if p["name"] in defaults and not p["has_default"]
    ]
    return problems


def _shown(param: ParamInfo) -> str:
    prefix = {"var_positional": "*", "var_keyword": "**"}.get(param["kind"], "")
    return f"{prefix}{param['name']}{'=...' if param['has_default'] else ''}"
