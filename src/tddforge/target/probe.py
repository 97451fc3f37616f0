"""The discovery probe: runs under the TARGET project's interpreter, with only the stdlib.

It is shipped in the target package and started as its ``probe`` entry
(``MODULE OUT.json PATH...``), so the project under test never needs tddforge
installed. It imports ``MODULE``
and writes one JSON object to ``OUT.json``: either ``{"ok": true, "module": ...}``
with the module's public functions and classes, or ``{"ok": false, "error": ...}``
saying why the import failed (the exception, and the line of the module's own
code that raised it when there is one).

Runs inside the sandbox: with no network and a read-only file system outside
the work dir, a module with such side effects at import time fails to import,
and that is reported, not hidden. Keep it compatible with Python 3.8+.
"""

from __future__ import annotations

import contextlib
import doctest
import enum
import functools
import importlib
import inspect
import json
import math
import os
import re
import sys
import traceback
from typing import Any

from . import type_aliases
from .implementations import implementations, is_abstract, is_interface

# the special methods tests reach through an operator or a builtin, and how they are spelled
# (the runner calls them the same way, so ``NotImplemented`` and reflection behave as in a test)
OPERATORS = {
    "__add__": "({self} + {0})",
    "__sub__": "({self} - {0})",
    "__mul__": "({self} * {0})",
    "__truediv__": "({self} / {0})",
    "__floordiv__": "({self} // {0})",
    "__mod__": "({self} % {0})",
    "__pow__": "({self} ** {0})",
    "__eq__": "({self} == {0})",
    "__ne__": "({self} != {0})",
    "__lt__": "({self} < {0})",
    "__le__": "({self} <= {0})",
    "__gt__": "({self} > {0})",
    "__ge__": "({self} >= {0})",
    "__and__": "({self} & {0})",
    "__or__": "({self} | {0})",
    "__xor__": "({self} ^ {0})",
    "__lshift__": "({self} << {0})",
    "__rshift__": "({self} >> {0})",
    "__matmul__": "({self} @ {0})",
    "__neg__": "(-{self})",
    "__pos__": "(+{self})",
    "__invert__": "(~{self})",
    "__abs__": "abs({self})",
    "__len__": "len({self})",
    "__str__": "str({self})",
    "__format__": "format({self}, {0})",
    "__repr__": "repr({self})",
    "__bool__": "bool({self})",
    "__getitem__": "{self}[{0}]",
    "__contains__": "({0} in {self})",
    "__iter__": "list({self})",
    "__radd__": "({0} + {self})",
    "__rsub__": "({0} - {self})",
    "__rmul__": "({0} * {self})",
    "__rand__": "({0} & {self})",
    "__ror__": "({0} | {self})",
    "__rxor__": "({0} ^ {self})",
    # in place: a statement that may bind the name to another object (the runner follows)
    "__iadd__": "{self} += {0}",
    "__isub__": "{self} -= {0}",
    "__imul__": "{self} *= {0}",
    "__iand__": "{self} &= {0}",
    "__ior__": "{self} |= {0}",
    "__ixor__": "{self} ^= {0}",
    "__setitem__": "{self}[{0}] = {1}",
    "__delitem__": "del {self}[{0}]",
    "__hash__": "hash({self})",
    "__int__": "int({self})",
    "__float__": "float({self})",
    "__reversed__": "list(reversed({self}))",
    # attribute syntax: the writer spells a name as ``box.name`` (``box.name = 1``, ``del
    # box.name``); the runner goes through the builtins, which take any string
    "__getattr__": "getattr({self}, {0})",
    "__setattr__": "setattr({self}, {0}, {1})",
    "__delattr__": "delattr({self}, {0})",
    # the copy and pickle protocols, through the functions a test calls (their arguments,
    # such as ``__deepcopy__``'s memo, are the protocol's to give)
    "__copy__": "copy.copy({self})",
    "__deepcopy__": "copy.deepcopy({self})",
    "__getstate__": "pickle.loads(pickle.dumps({self}))",
    "__setstate__": "pickle.loads(pickle.dumps({self}))",
    "__reduce__": "pickle.loads(pickle.dumps({self}))",
    "__reduce_ex__": "pickle.loads(pickle.dumps({self}))",
}
#: Calling an instance (``query(document)``): any arguments, so no template; the runner
#: calls the bound ``__call__`` and the writer spells it ``query(...)``.
CALL = "__call__"
#: in-place operators: ``suite += other`` binds ``suite`` to what ``__iadd__`` returns
IN_PLACE = frozenset({"__iadd__", "__isub__", "__imul__", "__iand__", "__ior__", "__ixor__"})
# run with exec, written as a line
STATEMENTS = frozenset({"__setitem__", "__delitem__", "__setattr__", "__delattr__", *IN_PLACE})
#: Special methods reached through the name of an attribute (their first argument).
ATTRIBUTE_METHODS = frozenset({"__getattr__", "__setattr__", "__delattr__"})
#: Special methods a round trip reaches (``copy.copy(box)``): called with no argument.
ROUND_TRIPS = frozenset(
    {"__copy__", "__deepcopy__", "__getstate__", "__setstate__", "__reduce__", "__reduce_ex__"}
)

#: How ``inspect`` names a parameter's kind, as the host reads it.
PARAM_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "positional_only",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional_or_keyword",
    inspect.Parameter.VAR_POSITIONAL: "var_positional",
    inspect.Parameter.KEYWORD_ONLY: "keyword_only",
    inspect.Parameter.VAR_KEYWORD: "var_keyword",
}


def is_literal(value: Any, depth: int = 0) -> bool:
    """Whether ``repr(value)`` is a literal that evaluates back to an equal value."""
    if depth > 4:
        return False
    # exact types: an IntFlag or a str-mixin Enum is an int or str whose repr is not a literal
    if value is None or type(value) in (bool, int, str, bytes):
        return True
    if type(value) is float:
        return math.isfinite(value)
    if type(value) in (tuple, list, set, frozenset):
        if type(value) is frozenset:  # frozenset({...}) is a call, not a literal
            return False
        return all(is_literal(item, depth + 1) for item in value)
    if type(value) is dict:
        return all(is_literal(k, depth + 1) and is_literal(v, depth + 1) for k, v in value.items())
    return False


def annotation_text(annotation: Any) -> str | None:
    """A type hint as written (strings stay strings), or None when there is none."""
    if annotation is inspect.Parameter.empty:
        return None
    if isinstance(annotation, str):
        return annotation
    text = inspect.formatannotation(annotation)
    if text.startswith("<class '") and text.endswith("'>"):
        # a class of ``typing`` is written as its repr (``<class 'BinaryIO'>``, for
        # ``typing.BinaryIO`` and ``typing.TextIO``): its name, as a hint is written
        return text[len("<class '") : -len("'>")]
    return text


def hint_text(annotation: Any, namespace: dict[str, Any]) -> str | None:
    """A hint as text, with the names the namespace binds to a type written as that type."""
    return type_aliases.resolve(annotation_text(annotation), namespace, annotation_text)


def describe_parameter(
    param: inspect.Parameter, namespace: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One parameter: kind, hint, and its default as a literal repr when it is one.
    ``namespace``: where the hint was written; the type aliases it binds are resolved."""
    has_default = param.default is not inspect.Parameter.empty
    literal = has_default and is_literal(param.default)
    return {
        "name": param.name,
        "kind": PARAM_KINDS[param.kind],
        "annotation": hint_text(param.annotation, namespace or {}),
        "has_default": has_default,
        "default": repr(param.default) if literal else None,
        "default_is_literal": literal,
    }


def doctest_examples(doc: str | None) -> list[dict[str, Any]]:
    """The ``>>>`` examples of a docstring, with their expected output."""
    if not doc:
        return []
    try:
        examples = doctest.DocTestParser().get_examples(doc)
    except ValueError:  # malformed doctest layout: no examples rather than a crash
        return []
    return [
        {"source": ex.source, "want": ex.want, "exc_msg": ex.exc_msg, "lineno": ex.lineno}
        for ex in examples
    ]


def source_lines(obj: Any) -> list[int] | None:
    """First and last line of ``obj``'s definition, or None when it has no source."""
    try:
        lines, first = inspect.getsourcelines(inspect.unwrap(obj))
    except (OSError, TypeError):
        return None
    return [first, first + len(lines) - 1]


def describe_callable(name: str, qualname: str, kind: str, func: Any) -> dict[str, Any] | None:
    """A function, method or constructor, or None when it has no signature.

    A plain method is read from its class, unbound: its first parameter (``self``)
    is dropped, as it already is for constructors and class methods.
    """
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):  # builtins and some C callables
        return None
    if kind == "method":
        sig = sig.replace(parameters=list(sig.parameters.values())[1:])
    target = inspect.unwrap(func)
    doc = inspect.getdoc(func)
    namespace = type_aliases.namespace_of(func)
    return {
        "name": name,
        "qualname": qualname,
        "kind": kind,
        "parameters": [describe_parameter(p, namespace) for p in sig.parameters.values()],
        "returns": hint_text(sig.return_annotation, namespace),
        "docstring": doc,
        "doctests": doctest_examples(doc),
        "is_async": inspect.iscoroutinefunction(target) or inspect.isasyncgenfunction(target),
        "is_generator": inspect.isgeneratorfunction(target) and not made_by_contextlib(func),
        "lines": source_lines(func),
    }


def made_by_contextlib(func: Any) -> bool:
    """Whether ``func`` is ``contextlib.contextmanager``'s wrapper of a generator function:
    it returns a context manager (entered, never iterated), though it unwraps to a
    generator function as a decorator that keeps one does."""
    code = getattr(func, "__code__", None)
    return code is not None and code.co_filename == contextlib.__file__


def hint_from_init(constructor: dict[str, Any], cls: type) -> None:
    """Give the constructor's unhinted parameters the hints ``__init__`` writes for them.

    ``inspect.signature`` reads a class that defines ``__new__`` from it, and ``__new__``
    often takes its arguments bare while ``__init__`` hints them (multimethod's
    ``__new__(cls, func)`` and ``__init__(self, func: Callable)``).
    """
    init = getattr(cls, "__init__", None)
    if not inspect.isfunction(init):
        return
    try:
        found = inspect.signature(init).parameters
    except (TypeError, ValueError):
        return
    namespace = type_aliases.namespace_of(init)
    for param in constructor["parameters"]:
        other = found.get(param["name"])
        if param["annotation"] is None and other is not None:
            param["annotation"] = hint_text(other.annotation, namespace)


def method_kind(raw: Any) -> str | None:
    """What a class attribute is, as a callable: method, static, class; else None."""
    if isinstance(raw, staticmethod):
        return "staticmethod"
    if isinstance(raw, classmethod):
        return "classmethod"
    if inspect.isfunction(raw):
        return "method"
    if inspect.isfunction(getattr(raw, "__wrapped__", None)) and hasattr(type(raw), "__get__"):
        return "method"  # a decorated method that still binds: ``@lru_cache``
    return None


def class_attributes(cls: type) -> list[tuple[str, Any]]:
    """The attributes a class defines, then those it inherits from classes of its own
    module (an override first); never the builtins' (``dict.update``)."""
    found: dict[str, Any] = {}
    for klass in cls.__mro__:
        if klass is cls or getattr(klass, "__module__", None) == cls.__module__:
            for attr, raw in vars(klass).items():
                found.setdefault(attr, raw)
    return list(found.items())


def describe_class(name: str, cls: type) -> dict[str, Any]:
    """A class: its constructor, public methods and properties (its own, and those of its
    bases in the same module)."""
    methods = []
    properties = []
    for attr, raw in class_attributes(cls):
        if attr.startswith("_") and attr not in OPERATORS and attr != CALL:
            continue
        if isinstance(raw, (property, functools.cached_property)):  # a tuple: runs on 3.8
            properties.append(attr)
            continue
        kind = method_kind(raw)
        if kind is not None:
            described = describe_callable(attr, name + "." + attr, kind, getattr(cls, attr))
            if described is not None:
                methods.append(described)
    constructor = describe_constructor(name, cls)
    return {
        "name": name,
        "docstring": inspect.getdoc(cls),
        "doctests": doctest_examples(inspect.getdoc(cls)),
        "constructor": constructor,
        "methods": methods,
        "properties": properties,
        "is_abstract": is_abstract(cls),
        "is_exception": issubclass(cls, BaseException),
        "lines": source_lines(cls),
    }


def describe_constructor(name: str, cls: type) -> dict[str, Any] | None:
    """How ``cls`` is built, named ``name``; None when nothing but ``object`` builds it."""
    if "__init__" not in vars(cls) and "__new__" not in vars(cls) and not _inherits_init(cls):
        return None
    constructor = describe_callable(name, name, "constructor", cls)
    if constructor is not None:
        hint_from_init(constructor, cls)
    return constructor


def _inherits_init(cls: type) -> bool:
    return cls.__init__ is not object.__init__  # type: ignore[misc]


def public_names(module: Any) -> list[str]:
    """Names in ``__all__`` first, then the others not starting with ``_``: ``__all__``
    says what a star import takes, and a module's other unprefixed functions are still
    its API (imported by name, documented, its tests call them) and its lines to cover."""
    declared = getattr(module, "__all__", None)
    listed = (
        [n for n in declared if isinstance(n, str)] if isinstance(declared, (list, tuple)) else []
    )
    others = sorted(n for n in vars(module) if not n.startswith("_") and n not in listed)
    return [*listed, *others]


def private_names(module: Any) -> list[str]:
    """The names with one leading underscore (not dunders): a module whose whole API is
    private (click's ``parser.py``: ``_OptionParser``, ``_split_opt``) is still code to test."""
    return sorted(n for n in vars(module) if n.startswith("_") and not n.startswith("__"))


def code_files(obj: Any) -> list[str]:
    """The files the code of a function, or of a class's own methods, was compiled from."""
    raws = list(vars(obj).values()) if inspect.isclass(obj) else [obj]
    found = []
    for raw in raws:
        function = getattr(raw, "__func__", None) or getattr(raw, "fget", None) or raw
        code = getattr(inspect.unwrap(function), "__code__", None) if callable(function) else None
        if code is not None:
            found.append(code.co_filename)
    return found


def defined_in(obj: Any, module: Any) -> bool:
    """Whether ``obj`` is defined in ``module``, not imported into it. A package may rename
    where its objects say they live (cbor2 sets ``__module__ = "cbor2"`` on its decoder's
    classes): code compiled from the module's file is still defined there."""
    if getattr(obj, "__module__", None) == module.__name__:
        return True
    path = getattr(module, "__file__", None)
    if not path or not (inspect.isclass(obj) or inspect.isroutine(obj)):
        return False
    real = os.path.realpath(path)
    return any(os.path.realpath(f) == real for f in code_files(obj))


def describe_module(module: Any) -> dict[str, Any]:
    """The public functions and classes *defined* in ``module`` (not imported into it); the
    private ones when it defines no public one. Its private classes are described too, as
    hidden: never built by name, their methods are called on the instances the module
    holds or its calls return."""
    described = _described(module, public_names(module))
    if not described["functions"] and not described["classes"]:
        return _described(module, private_names(module))
    named = {c["name"] for c in described["classes"]}
    for name in private_names(module):  # what the public calls may hand out (inject's
        obj = getattr(module, name, None)  # ``param("db")`` gives a ``_ParameterInjection``)
        if not inspect.isclass(obj) or obj.__name__ != name or name in named:
            continue
        if defined_in(obj, module):
            described["classes"].append(dict(describe_class(name, obj), hidden=True))
    hinted = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", _hints(described)))
    try:
        described["imported"] = imported_classes(module, hinted)
    except Exception:  # a module ``__getattr__`` raising: the arguments' makers are extras
        described["imported"] = []
    try:
        described["enums"] = hinted_enums(module, hinted)
    except Exception:  # members are extras: the module's description stands without them
        described["enums"] = []
    for cls in [*described["classes"], *described["imported"]]:
        # an abstract class of the module's own is built as an implementation too: pykka's
        # ``Actor`` only as the package's ``ThreadingActor``
        own_abstract = cls["is_abstract"] and cls in described["classes"]
        if (cls["name"] in hinted or own_abstract) and not cls.get("hidden"):
            try:
                cls.update(implemented(module, cls["name"]))
            except Exception:  # an argument's makers are extras; the description stands
                continue
    return described


def implemented(module: Any, name: str) -> dict[str, Any]:
    """For the class ``module`` binds as ``name``: the constructors of its implementations
    (``implementations.implementations``), each named by its path, and whether it looks
    like an interface, whose implementations go first."""
    cls = getattr(module, name, None)
    if not inspect.isclass(cls):
        return {}
    found = [
        {"path": path, "constructor": describe_constructor(path, sub)}
        for path, sub in implementations(cls, module)
    ]
    if not found:
        return {}
    return {"implementations": found, "interface": is_interface(cls)}


def _hints(described: dict[str, Any]) -> str:
    """Every parameter hint of the described functions, constructors and methods, as text."""
    callables = list(described["functions"])
    for cls in described["classes"]:
        callables += [*([cls["constructor"]] if cls["constructor"] else []), *cls["methods"]]
    return " ".join(p["annotation"] or "" for c in callables for p in c["parameters"])


#: Members offered per enumeration a hint names (a long one's first ones, in order).
ENUM_MEMBERS = 16


def hinted_enums(module: Any, hinted: set[str]) -> list[dict[str, Any]]:
    """The enumerations of the module's package that the module binds and a hint names,
    each with its members' names and the name the module binds it by, which a test imports
    from the module (its own, else an alias: graphemeu's ``GraphemePropertyGroup as GCB``).
    A parameter hinted with one takes its members (``GCB.CR``); no literal stands for one,
    and a call of the class (``GCB("CR")``) needs its values."""
    package = module.__name__.split(".")[0]
    bound: dict[Any, str] = {}
    for name, value in sorted(vars(module).items()):
        if not inspect.isclass(value) or name[:1] == "_":
            continue
        if not issubclass(value, enum.Enum) and not constant_names(value):
            continue
        if value not in bound or name == value.__name__:  # its own name over an alias
            bound[value] = name
    found = []
    for cls, name in bound.items():
        home = getattr(cls, "__module__", None) or ""
        if cls.__name__ not in hinted or home.split(".")[0] != package:
            continue
        if issubclass(cls, enum.Enum):
            members = [member.name for member in cls][:ENUM_MEMBERS]  # aliases left out
        else:
            members = constant_names(cls)[:ENUM_MEMBERS]
        if members:
            found.append({"name": cls.__name__, "path": name, "members": members})
    return found


def constant_names(cls: type) -> list[str]:
    """The names of a plain class used as an enumeration, as code older than ``enum``
    writes one (pathfinding's ``class DiagonalMovement: always = 1; never = 2``): two or
    more public class attributes, each an ``int`` or a ``str``, and nothing else of its
    own (no method, no base but ``object``). Empty for any other class."""
    if cls.__bases__ != (object,):
        return []
    own = vars(cls)
    if any(
        callable(v) or isinstance(v, (staticmethod, classmethod, property)) for v in own.values()
    ):
        return []
    public = [k for k, v in own.items() if k[:1] != "_"]
    if len(public) < 2 or any(type(own[k]) not in (int, str) for k in public):
        return []
    return public


def imported_classes(module: Any, hinted: set[str]) -> list[dict[str, Any]]:
    """Classes of the module's own package that it imports by name and names in a hint
    (pyrate-limiter's ``Limiter(*rates: RequestRate)``, ``RequestRate`` from
    ``.request_rate``): their constructors build the arguments those hints ask for. Only
    the constructor is described; their methods are another module's to test. An
    abstract one is described only when it has implementations to build instead."""
    package = module.__name__.split(".")[0]
    if "." not in module.__name__:
        return []
    found = []
    for name in sorted(hinted):
        obj = getattr(module, name, None)
        if not inspect.isclass(obj) or obj.__name__ != name or defined_in(obj, module):
            continue
        home = getattr(obj, "__module__", None) or ""
        if home.split(".")[0] != package:
            continue
        if inspect.isabstract(obj) and not implementations(obj, module):
            continue
        if issubclass(obj, (BaseException, enum.Enum)):
            continue
        try:  # only an argument's maker: a class that cannot be described is left out
            found.append(dict(describe_class(name, obj), methods=[], properties=[]))
        except Exception:  # the module's own description must not fail for it
            continue
    return found


def _described(module: Any, names: list[str]) -> dict[str, Any]:
    functions = []
    classes = []
    for name in names:
        obj = getattr(module, name, None)
        if not defined_in(obj, module):
            continue
        if inspect.isclass(obj):
            classes.append(describe_class(name, obj))
        elif inspect.isroutine(obj):
            described = describe_callable(name, name, "function", obj)
            if described is not None:
                functions.append(described)
    instances = module_instances(module, names)
    named = {c["name"] for c in classes}
    for _, cls in instances:  # a private class the module offers only through its instances
        if cls.__name__ not in named:
            classes.append(dict(describe_class(cls.__name__, cls), hidden=True))
            named.add(cls.__name__)
    return {
        "name": module.__name__,
        "file": getattr(module, "__file__", None),
        "docstring": inspect.getdoc(module),
        "doctests": doctest_examples(inspect.getdoc(module)),
        "functions": functions,
        "classes": classes,
        "instances": [{"name": name, "class_name": cls.__name__} for name, cls in instances],
    }


#: Instances reported per class: a module of constants of its own type (``SHA256 =
#: Algorithm(...)``, thirty times) needs no more receivers than this.
INSTANCES_PER_CLASS = 2


def module_instances(module: Any, names: list[str]) -> list[tuple[str, type]]:
    """The names among ``names`` bound to an instance of a class the module defines and
    binds by its own name (iso3166's ``countries = _CountryLookup()``): objects the module
    offers as its API, whose methods a test reaches only through that name. Enum members
    and exceptions are left out (their classes are described)."""
    found: list[tuple[str, type]] = []
    per_class: dict[type, int] = {}
    for name in names:
        obj = getattr(module, name, None)
        if inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj):
            continue
        cls = type(obj)
        if isinstance(obj, (enum.Enum, BaseException)) or not defined_in(cls, module):
            continue
        if (
            getattr(module, cls.__name__, None) is not cls
            or per_class.get(cls, 0) >= INSTANCES_PER_CLASS
        ):
            continue
        per_class[cls] = per_class.get(cls, 0) + 1
        found.append((name, cls))
    return found


def import_failure(exc: BaseException, module_name: str) -> dict[str, Any]:
    """Why the import failed: the exception and the deepest frame in the project."""
    frames = traceback.extract_tb(exc.__traceback__)
    here = os.path.abspath(__file__)
    own = [f for f in frames if os.path.abspath(f.filename) != here and "<frozen" not in f.filename]
    installed = tuple({sys.prefix, sys.base_prefix, sys.exec_prefix})
    project = [f for f in own if not os.path.abspath(f.filename).startswith(installed)]
    chosen = project or own
    where = chosen[-1] if chosen else None
    if isinstance(exc, SyntaxError) and exc.filename:
        location = {"file": exc.filename, "line": exc.lineno}
    elif where is not None:
        location = {"file": where.filename, "line": where.lineno}
    else:
        location = None
    return {
        "type": type(exc).__name__,
        "message": str(exc).splitlines()[0] if str(exc) else "",
        "module": module_name,
        "location": location,
    }


def main(argv: list[str]) -> int:
    """Import ``argv[1]`` with ``argv[3:]`` on the path; write what was found to ``argv[2]``.

    The project's directories join ``sys.path`` only now, after the probe's own
    imports: a project module named ``json.py`` or ``inspect.py`` must not
    replace the stdlib module the probe relies on.
    """
    module_name, out = argv[1], argv[2]
    sys.path[0:0] = argv[3:]
    try:
        module = importlib.import_module(module_name)
    except BaseException as exc:  # SystemExit and KeyboardInterrupt at import are failures too
        result: dict[str, Any] = {"ok": False, "error": import_failure(exc, module_name)}
    else:
        result = {"ok": True, "module": describe_module(module)}
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return 0
