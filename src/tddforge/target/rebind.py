"""Rebind: a module-level data mutant switched on in a collected process, without re-importing.

Mutants in simple module-level statements (data: ``RULES = [...]``, a
registering call) run again in the live module's namespace; functions and
classes keep their identity, containers change in place. What cannot be
carried over faithfully (a changed class body, an import-time closure, an
instance of the module's class) raises ``LookupError``: the fresh path runs it.
"""

from __future__ import annotations

import functools
import os
import sys
import types
from collections.abc import Callable, Sequence
from typing import Any

from .protocol import Replay
from .purity import root
from .tracing import SameFile

_SIMPLE_STATEMENTS = ("Assign", "AnnAssign", "AugAssign", "Expr")


@functools.lru_cache(maxsize=64)
def data_lines(source: str, called: frozenset[str] = frozenset()) -> dict[int, set[int]]:
    """Lines of simple top-level statements (assignments and calls, not defs, classes or
    imports), where a mutant only changes the module's data, which ``rebind`` can switch on;
    each mapped to the lines of the functions that read that data.

    A statement's data is the names it mentions, and for a call of one of the module's
    functions (``_irregular("person", "people")``), the module names that function reads.
    That function's own lines count too: a mutant there changes what the call made while
    the module was imported, and ``rebind`` runs the call again with the mutant on.
    Only the order in which tests run depends on this: every test still runs.
    ``called``: the module's functions another file calls while it is imported
    (``Replay``): rebind runs those calls again, so their lines count the same way.
    Computed once per source (the plan asks again after the baseline): read it, never
    change it.
    """
    import ast

    tree = ast.parse(source)
    functions = _module_functions(tree)
    simple = [s for s in tree.body if type(s).__name__ in _SIMPLE_STATEMENTS]
    data = {
        n.id
        for s in simple
        for n in ast.walk(s)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    found: dict[int, set[int]] = {}
    for statement in simple:
        # ``__all__`` decides what star imports elsewhere took: import it fresh
        if not _assigns_dunder(statement) and not _foreign_call(statement, functions, data):
            _add_statement(found, statement, functions)
    for name in sorted(called & functions.keys()):
        _add_called(found, functions[name], name, functions)
    return found


def _add_called(
    found: dict[int, set[int]], called: Any, name: str, functions: dict[str, Any]
) -> None:
    """Map the lines of a function another file calls at import to the module's functions
    that read what it reads."""
    readers = _readers(_reads(called), functions, name)
    for line in _span(called):
        found.setdefault(line, set()).update(readers)


def _readers(names: set[str], functions: dict[str, Any], skipped: str | None) -> set[int]:
    """The body lines of the module's functions (but ``skipped``) that mention ``names``."""
    readers: set[int] = set()
    for name, function in functions.items():
        if name != skipped and _reads(function) & names:
            readers |= _body_lines(function)
    return readers


def _foreign_call(statement: Any, functions: dict[str, Any], data: set[str]) -> bool:
    """A bare call of something neither the module's function nor a method of its data
    (``other._registry.fill()``): what it did elsewhere at import cannot be undone by
    running the module again, so its mutants are imported fresh."""
    import ast

    call = getattr(statement, "value", None)
    if not isinstance(statement, ast.Expr) or not isinstance(call, ast.Call):
        return False
    func = call.func
    if isinstance(func, ast.Name):
        return func.id not in functions
    return root(func) not in data  # a method of the data, or of an item (``TABLE[k].update``)


def _add_statement(found: dict[int, set[int]], statement: Any, functions: dict[str, Any]) -> None:
    """Map the statement's lines (and those of a module function it calls) to their readers."""
    import ast

    names = _reads(statement)  # what it assigns, and what it changes (``RULES.append``)
    call = getattr(statement, "value", None)
    called = None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
        called = functions.get(call.func.id)
        names |= _reads(called) if called is not None else set()
    caller = getattr(getattr(call, "func", None), "id", None)
    readers = _readers(names, functions, caller)
    for line in _span(statement):
        found[line] = readers
    if called is not None:  # the function it runs at import
        for line in _span(called):
            found.setdefault(line, set()).update(readers)


def _reads(node: Any) -> set[str]:
    import ast

    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _body_lines(node: Any) -> set[int]:
    import ast

    return {n.lineno for n in ast.walk(node) if isinstance(n, ast.stmt)}


def _span(node: Any) -> range:
    return range(node.lineno, (node.end_lineno or node.lineno) + 1)


def _assigns_dunder(statement: Any) -> bool:
    import ast

    return any(
        isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id.startswith("__")
        for n in ast.walk(statement)
    )


def _module_functions(tree: Any) -> dict[str, Any]:
    """Top-level functions and methods of top-level classes, by qualified name."""
    import ast

    kinds = (ast.FunctionDef, ast.AsyncFunctionDef)
    functions: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, kinds):
            functions[node.name] = node
        elif isinstance(node, ast.ClassDef):
            functions.update(
                {f"{node.name}.{m.name}": m for m in node.body if isinstance(m, kinds)}
            )
    return functions


def rebind(
    mutated_source: str,
    target: str,
    original_source: str | None = None,
    replays: Sequence[Replay] = (),
    run: Callable[[dict[str, Any]], None] | None = None,
) -> None:
    """Switch on a module-level data mutant in a collected process, without re-importing.

    The mutated source runs again in the live module's namespace. The module's functions and classes keep their identity
    (tests hold them) and read the new data through their globals; a function's
    defaults are re-evaluated, and one that is the module's list, dict or set is
    the kept object, as in a fresh import; a list, dict or set changed in place;
    any other changed value is also rebound in the modules that imported it by
    name. Raises ``LookupError`` when it cannot be done faithfully (the fresh
    path then runs the mutant), among others when, given ``original_source``,
    the module's data is no longer what running that source makes of it
    (``drifted``). ``replays``: the calls other files made into the module while
    they were imported, run again last (a fresh import runs them too). ``run``: runs
    the mutated module in the namespace given (``Statements.run``), instead of
    compiling ``mutated_source`` whole.
    """
    from .preimported import NOT_SWITCHABLE, RUNNING  # it imports what imports this module

    is_target = SameFile(target)
    module = _live_module(is_target)
    if str(getattr(module, "__name__", "")).partition(".")[0] in RUNNING:
        raise LookupError(NOT_SWITCHABLE)  # pytest's own objects were made from its data
    namespace = module.__dict__
    if original_source is not None:
        drifted(original_source, target, namespace, replays)
    bound = set(namespace)  # before ``_bind_submodules``: what other modules could take
    _bind_submodules(namespace)
    before = dict(namespace)
    if run is None:
        code = compile(mutated_source, target, "exec", dont_inherit=True)
        exec(code, namespace)  # an exception here is the mutant breaking the import
    else:
        run(namespace)  # the same, the module's statements compiled ahead (``statements``)
    gone = [n for n in bound if n not in namespace]
    if gone:  # a module that imported it still holds it; a fresh import would fail there
        raise LookupError(f"the mutated module no longer binds {gone[0]}")
    pairs = [(n, before.get(n, namespace), new) for n, new in list(namespace.items())]
    # the module's objects, then containers, then functions and classes: a default or an
    # entry that is one of the kept ones must become that one
    pairs.sort(key=lambda pair: _rank(pair[1], pair[2], is_target))
    kept: dict[int, Any] = {}  # id of a container the mutated run made -> the live one kept
    changed: list[tuple[str, Any, Any]] = []
    for name, old, new in pairs:
        if old is namespace or old is new:
            continue
        if not _kept(name, old, new, namespace, is_target, kept):
            changed.append((name, old, new))
    if changed:
        _rebind_elsewhere(module, changed)
    replay(replays, is_target)


def _bind_submodules(namespace: dict[str, Any]) -> None:
    """In a package's namespace, bind each of its submodules already imported to its name,
    where the name is not bound: what importing them bound the first time, which running
    the package again does not (they are imported already), and which its code may
    ``del`` (toolz.curried ends with ``del exceptions``)."""
    name, path = namespace.get("__name__"), namespace.get("__path__")
    if not isinstance(name, str) or path is None:
        return
    prefix = name + "."
    for key, module in list(sys.modules.items()):
        child = key[len(prefix) :]
        if key.startswith(prefix) and "." not in child and module is not None:
            namespace.setdefault(child, module)


def _merged_in_place(old: Any, new: Any) -> bool:
    return type(old) is type(new) and type(old) in (list, dict, set) and old is not new


def _rank(old: Any, new: Any, is_target: SameFile) -> int:
    if _defined_in(type(new), is_target) and not isinstance(new, type):
        return 0
    if _merged_in_place(old, new):
        return 1
    return 3 if _defined_in(old, is_target) else 2


def drifted_targets(
    sources: dict[str, str], replays: dict[str, list[Replay]] | None = None
) -> list[str]:
    """The targets (of ``sources``: target -> its text, as imported) whose data ``rebind``
    must refuse in this process (``drifted``), or that are not imported.

    Whether a module drifted is the same for every mutant of it, and checking it runs
    the module's source again (tens of milliseconds for a large table), so the worker
    asks once, right after collection, in a forked child: what running the source
    changes, this process must not keep. A child that fails refuses them all.
    """
    import json

    from .processes import in_fork

    def check() -> bytes:
        refused = []
        for target, source in sources.items():
            try:
                live = _live_module(SameFile(target)).__dict__
                drifted(source, target, live, (replays or {}).get(target, ()))
            except LookupError:
                refused.append(target)
        return json.dumps(refused).encode()

    data, _ = in_fork(check, lambda exc: json.dumps(sorted(sources)).encode(), None)
    try:
        found = json.loads(data) if data else sorted(sources)
    except ValueError:
        found = sorted(sources)
    return sorted(str(t) for t in found)


def drifted(
    original_source: str,
    target: str,
    namespace: dict[str, Any],
    replays: Sequence[Replay] = (),
) -> None:
    """``LookupError`` when the live module's data is not what its source makes: code that
    ran after the module was imported changed it (another module filled a registry of
    its, or rebound a value), and re-running the source would undo that while a fresh
    import would redo it from the mutated data (toolz fills ``_signatures.signatures``
    from ``module_info`` in its ``__init__``).

    The source runs in a copy of the namespace, so the live module is left as it is,
    and then the calls other files made into it while imported (``replays``: what
    ``rebind`` runs again) go to the copy's functions; dicts are compared by keys,
    lists and sets by size, plain values by equality.
    """
    scratch = dict(namespace)
    _bind_submodules(scratch)
    try:
        exec(compile(original_source, target, "exec", dont_inherit=True), scratch)
        replay(replays, SameFile(target), scratch)
    except LookupError:
        raise
    except Exception as exc:
        raise LookupError(f"the module cannot run again: {type(exc).__name__}") from exc
    for name, made in scratch.items():
        live = namespace.get(name, scratch)
        if live is not scratch and live is not made and _differs(live, made):
            raise LookupError(f"{name} changed after the module was imported")


def replay(
    replays: Sequence[Replay], is_target: SameFile, scratch: dict[str, Any] | None = None
) -> None:
    """Run again each call another file made into the target while it was imported, in
    that file's namespace, in order. A call whose file is not imported here made none;
    one whose name is not the target's function there is left alone.

    With ``scratch`` (``drifted``: the source ran in that copy of the namespace), the
    call goes to the copy's function of that name instead, its arguments read in the
    caller's namespace as before. ``LookupError`` when a call cannot be run again.
    """
    for call in replays:
        try:
            caller = _live_module(SameFile(call["file"])).__dict__
        except LookupError:
            continue
        callee, statement, redirected = _compiled_call(call["source"], call["file"], call["line"])
        try:
            func = eval(callee, caller)
        except Exception as exc:
            raise LookupError(f"{call['name']} cannot be found again: {exc!r}") from exc
        if not isinstance(func, types.FunctionType) or not is_target(func.__code__.co_filename):
            continue
        if scratch is None:
            exec(statement, caller)
            continue
        made = scratch.get(func.__name__)
        if func.__qualname__ != func.__name__ or not isinstance(made, types.FunctionType):
            raise LookupError(f"{func.__qualname__} is not one of the module's functions")
        eval(redirected, caller, {"__tddforge_replay__": made})


@functools.lru_cache(maxsize=256)
def _compiled_call(source: str, file: str, line: int) -> tuple[Any, Any, Any]:
    """A replayed call statement, compiled once (every rebound mutant runs it again): the
    expression naming the called function, the statement, and the call redirected to
    ``__tddforge_replay__`` with the same arguments (``drifted``'s copy)."""
    import ast

    statement = ast.parse(source).body[0]
    ast.increment_lineno(statement, line - 1)
    expression = statement.value  # type: ignore[attr-defined]
    callee = compile(ast.Expression(expression.func), file, "eval")
    whole = compile(ast.Module([statement], []), file, "exec")
    redirected = ast.Call(
        ast.Name("__tddforge_replay__", ast.Load()), expression.args, expression.keywords
    )
    ast.copy_location(redirected, expression)
    made = compile(ast.fix_missing_locations(ast.Expression(redirected)), file, "eval")
    return callee, whole, made


def _differs(live: Any, made: Any) -> bool:
    if type(live) is not type(made):
        return False  # a function or class made again, an object of its own: not data
    if isinstance(live, dict):
        return bool(live.keys() != made.keys())
    if isinstance(live, (list, set)):
        return len(live) != len(made)
    if isinstance(live, (str, bytes, int, float, tuple, frozenset)):
        return not _same_value(live, made)
    return False


def live_module(target: str) -> Any:
    """The module loaded from ``target`` (LookupError when none is)."""
    return _live_module(SameFile(target))


def _live_module(is_target: SameFile) -> Any:
    """The module loaded from the target file (LookupError when none is)."""
    modules = list(sys.modules.values())
    for module in modules:  # the usual case, without a real path per module (ms each time)
        if getattr(module, "__file__", None) == is_target.target:
            return module
    for module in modules:
        if is_target(getattr(module, "__file__", None) or ""):
            return module
    raise LookupError("the target was not imported during collection")


def _kept(
    name: str,
    old: Any,
    new: Any,
    namespace: dict[str, Any],
    is_target: SameFile,
    kept: dict[int, Any],
) -> bool:
    """Keep the live ``old`` under ``name``, given what the mutated run made of it; False when
    the ``new`` value must replace it (and be rebound where others imported it).
    ``kept``: the containers kept so far, by the id of the one the mutated run made."""
    if _defined_in(old, is_target):
        _carry_over(old, new, kept)
    elif _defined_in(type(new), is_target):
        # the module's class made again: the live object stays (tests hold it) if the
        # mutated run made its equal, or one that differs only in its items
        if not _same_member(old, new):
            if not _items_only(old, new):
                raise LookupError(f"{name} is an instance of the module's own class")
            _update_in_place(old, new, kept)
        kept[id(new)] = old
    elif not _same_value(old, new):
        if type(old) is not type(new) or type(old) not in (list, dict, set):
            return False
        _update_in_place(old, new, kept)
        kept[id(new)] = old
    namespace[name] = old
    return True


def _carry_over(old: Any, new: Any, kept: dict[int, Any]) -> None:
    """Give a kept function what the mutated run changed in it (a lambda's code, defaults,
    a default that is one of the module's kept containers being that container);
    refuse what cannot be carried over faithfully."""
    if isinstance(old, types.FunctionType) and isinstance(new, types.FunctionType):
        if old.__closure__ or new.__closure__:
            if not _same_member(old, new):
                raise LookupError(f"{old.__name__} is a closure made at import time")
            return  # made again unchanged
        if old.__code__ != new.__code__:
            old.__code__ = new.__code__  # a module-level lambda's body was mutated
        defaults, keywords = new.__defaults__, new.__kwdefaults__
        if defaults is not None:
            defaults = tuple(kept.get(id(value), value) for value in defaults)
        if keywords is not None:
            keywords = {key: kept.get(id(value), value) for key, value in keywords.items()}
        old.__defaults__, old.__kwdefaults__ = defaults, keywords
    elif isinstance(old, type) and isinstance(new, type):
        changed = _changed_member(old, new, _Compared())
        if changed is not None:
            raise LookupError(f"class {old.__name__} changed: {changed}")
    else:
        raise LookupError(f"{type(old).__name__} is not a function or class")


class _Compared:
    """The pairs of objects compared so far (a pair met again is taken as the same: only
    the rest of the structure decides) and how many more may be."""

    def __init__(self, budget: int = 20_000) -> None:
        self.pairs: set[tuple[int, int]] = set()
        self.budget = budget

    def first(self, before: Any, value: Any) -> bool:
        """Whether the pair is new here; ``LookupError`` when the budget is spent."""
        key = (id(before), id(value))
        if key in self.pairs:
            return False
        self.budget -= 1
        if self.budget < 0:
            raise LookupError("too large to compare")
        self.pairs.add(key)
        return True


def _same_member(before: Any, value: Any, compared: _Compared | None = None) -> bool:
    """Whether an object the mutated run made (a class attribute, a module's object) is the
    same as the live one: equal values, functions with the same code and defaults, the
    module's class made again unchanged, objects of the same class with the same state.
    What cannot be compared (a lock, a structure too large or too deep) is not the same."""
    if before is value or _same_value(before, value) or (before is None and value is None):
        return True
    compared = compared or _Compared()
    try:
        if isinstance(before, type) and isinstance(value, type):
            return _same_class(before, value, compared)
        if not compared.first(before, value):
            return True
        if not _same_class(type(before), type(value), compared):
            return False
        if isinstance(value, types.FunctionType):
            return bool(
                value.__code__ == before.__code__
                and _same_member(before.__defaults__, value.__defaults__, compared)
                and _same_member(before.__kwdefaults__, value.__kwdefaults__, compared)
                and _same_cells(before.__closure__, value.__closure__, compared)
            )
        if isinstance(value, (staticmethod, classmethod)):
            return _same_member(before.__func__, value.__func__, compared)
        if isinstance(value, (types.MemberDescriptorType, types.GetSetDescriptorType)):
            return bool(before.__name__ == value.__name__)  # a slot of the class compared
        if isinstance(value, property):
            return all(
                _same_member(getattr(before, f), getattr(value, f), compared)
                for f in ("fget", "fset", "fdel")
            )
        return _same_items(before, value, compared) and _same_attributes(before, value, compared)
    except Exception:  # the budget spent, a structure too deep, an attribute that raises
        return False


def _same_cells(before: Any, value: Any, compared: _Compared) -> bool:
    """The same variables closed over (a function made by another function)."""
    if not before or not value:
        return not before and not value
    try:
        mine = [c.cell_contents for c in before]
        theirs = [c.cell_contents for c in value]
    except ValueError:  # a cell not filled yet
        return False
    return _same_member(tuple(mine), tuple(theirs), compared)


def _same_class(before: type, value: type, compared: _Compared) -> bool:
    """The same class, or the module's class made again with the same bases and members."""
    if before is value:
        return True
    if (before.__module__, before.__qualname__) != (value.__module__, value.__qualname__):
        return False
    if len(before.__bases__) != len(value.__bases__):
        return False
    if not compared.first(before, value):
        return True
    if not all(_same_class(b, v, compared) for b, v in zip(before.__bases__, value.__bases__)):
        return False
    return _changed_member(before, value, compared) is None


def _changed_member(before: type, value: type, compared: _Compared) -> str | None:
    """The name of a member of the class made again that is not the same, if any."""
    names = (set(vars(before)) | set(vars(value))) - {"__dict__", "__weakref__"}
    if _unregistered(before) and _unregistered(value):
        names.discard("_abc_impl")  # an abstract class's caches, nothing registered
    for name in sorted(names):
        if not _same_member(vars(before).get(name), vars(value).get(name), compared):
            return name
    return None


def _unregistered(cls: type) -> bool:
    """An abstract base class with no class registered as its virtual subclass."""
    if "_abc_impl" not in vars(cls):
        return False
    import abc

    dump = getattr(abc, "_get_dump", None)  # the C implementation's
    try:
        return dump is not None and not dump(cls)[0]
    except TypeError:
        return False


_ITEMS = (dict, list, tuple, set, frozenset, str, bytes, int, float, complex)
_POINTER = 8 if sys.maxsize > 2**32 else 4


def _plain(cls: type) -> bool:
    """Whether all of an object's state is in its items (at most one built-in container
    or value base, which ``_same_items`` reads) and its attributes: no class of its MRO
    keeps more in C than its ``__slots__``, ``__dict__`` and ``__weakref__`` (a lock, a
    compiled pattern, an ``OrderedDict`` do)."""
    if cls is object or sum(1 for c in cls.__mro__ if c in _ITEMS) > 1:
        return False
    for c in cls.__mro__:
        if c is object or c in _ITEMS:
            continue
        slots = vars(c).get("__slots__", ())
        count = 1 if isinstance(slots, str) else len(slots)
        if c.__basicsize__ - (c.__base__ or object).__basicsize__ > _POINTER * (count + 2):
            return False
    return True


def _same_items(before: Any, value: Any, compared: _Compared) -> bool:
    """The same items (of a container's subclass), member by member; True for an object
    that holds none. An object whose state is not all there (``_plain``) is not the same."""
    if not _plain(type(before)):
        return False
    if isinstance(before, dict):
        return dict.keys(before) == dict.keys(value) and all(
            _same_member(dict.__getitem__(before, k), dict.__getitem__(value, k), compared)
            for k in dict.keys(before)
        )
    if isinstance(before, (list, tuple)):
        return len(before) == len(value) and all(
            _same_member(b, v, compared) for b, v in zip(before, value)
        )
    if isinstance(before, (set, frozenset)):
        return set(before) == set(value)
    base = next((c for c in _ITEMS if isinstance(before, c)), None)
    return base is None or base.__eq__(before, value) is True


def _same_attributes(before: Any, value: Any, compared: _Compared) -> bool:
    """The same instance attributes (``__dict__``, and ``__slots__`` when it has them)."""
    names: set[str] = set()
    for cls in type(before).__mro__:
        slots = vars(cls).get("__slots__", ())
        names.update([slots] if isinstance(slots, str) else slots)
    missing = object()
    for name in names - {"__dict__", "__weakref__"}:
        mine, theirs = getattr(before, name, missing), getattr(value, name, missing)
        if not _same_member(mine, theirs, compared):
            return False
    mine, theirs = getattr(before, "__dict__", {}), getattr(value, "__dict__", {})
    if not isinstance(mine, dict) or not isinstance(theirs, dict) or mine.keys() != theirs.keys():
        return False
    return all(_same_member(mine[k], theirs[k], compared) for k in mine)


def _items_only(before: Any, value: Any) -> bool:
    """Whether two objects of the module's class (made again unchanged) differ only in
    their items, those of a list, dict or set subclass, which can change in place."""
    if not isinstance(before, (list, dict, set)) or not _plain(type(before)):
        return False
    compared = _Compared()
    try:
        return _same_class(type(before), type(value), compared) and _same_attributes(
            before, value, compared
        )
    except Exception:
        return False


def _defined_in(value: Any, is_target: SameFile) -> bool:
    if isinstance(value, types.FunctionType):
        return is_target(value.__code__.co_filename)
    if isinstance(value, type):
        module = sys.modules.get(getattr(value, "__module__", ""))
        return module is not None and is_target(getattr(module, "__file__", None) or "")
    return False


# immutable values of the standard library, equal when their values are
_VALUES = frozenset(
    {
        ("builtins", "complex"),
        ("builtins", "range"),
        ("datetime", "date"),
        ("datetime", "datetime"),
        ("datetime", "time"),
        ("datetime", "timedelta"),
        ("datetime", "timezone"),
        ("decimal", "Decimal"),
        ("fractions", "Fraction"),
        ("re", "Pattern"),
    }
)


def _same_value(old: Any, new: Any) -> bool:
    if type(old) is not type(new):
        return False
    if not isinstance(old, (str, bytes, int, float, tuple, frozenset)) and (
        (type(old).__module__, type(old).__qualname__) not in _VALUES
    ):
        return False
    try:
        return bool(old == new)
    except Exception:
        return False


def _update_in_place(old: Any, new: Any, kept: dict[int, Any]) -> None:
    """Give ``old`` the items of ``new``, by the built-in methods (a subclass may change
    them); an item that is a kept object becomes that one."""
    if isinstance(old, list):
        list.__setitem__(old, slice(None), [kept.get(id(v), v) for v in new])
    elif isinstance(old, dict):
        dict.clear(old)
        dict.update(old, {k: kept.get(id(v), v) for k, v in dict.items(new)})
    else:
        set.clear(old)
        set.update(old, new)


def _rebind_elsewhere(module: Any, changed: list[tuple[str, Any, Any]]) -> None:
    """``from target import NAME`` in the project's other modules (tests, conftests): point
    NAME at the new value. Matched by name and identity: identity alone would also catch
    cached small ints and interned strings everywhere. A class or function the target took
    from another module is refused (``LookupError``): a module holding it under the same name
    may have taken it from there, where the mutant changes nothing."""
    root = os.getcwd() + os.sep
    is_target = SameFile(getattr(module, "__file__", None) or "")
    for other in list(sys.modules.values()):
        names = getattr(other, "__dict__", None)
        where = getattr(other, "__file__", None) or ""
        if other is module or not isinstance(names, dict) or not where.startswith(root):
            continue
        if "site-packages" in where:
            continue
        for name, old, new in changed:
            if names.get(name, module) is old:
                if isinstance(old, (type, types.FunctionType)) and not _defined_in(old, is_target):
                    raise LookupError(f"{name} is {old.__qualname__}, held elsewhere too")
                names[name] = new
