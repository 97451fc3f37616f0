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
    is_target = SameFile(target)
    module = _live_module(is_target)
    namespace = module.__dict__
    if original_source is not None:
        drifted(original_source, target, namespace, replays)
    _bind_submodules(namespace)
    before = dict(namespace)
    if run is None:
        code = compile(mutated_source, target, "exec", dont_inherit=True)
        exec(code, namespace)  # an exception here is the mutant breaking the import
    else:
        run(namespace)  # the same, the module's statements compiled ahead (``statements``)
    pairs = [(n, before.get(n, namespace), new) for n, new in list(namespace.items())]
    # containers first: a function's default that is one of them must become the kept one
    pairs.sort(key=lambda pair: not _merged_in_place(pair[1], pair[2]))
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
        raise LookupError(f"{name} is an instance of the module's own class")
    elif not _same_value(old, new):
        if type(old) is not type(new) or type(old) not in (list, dict, set):
            return False
        _update_in_place(old, new)
        kept[id(new)] = old
    namespace[name] = old
    return True


def _carry_over(old: Any, new: Any, kept: dict[int, Any]) -> None:
    """Give a kept function what the mutated run changed in it (a lambda's code, defaults,
    a default that is one of the module's kept containers being that container);
    refuse what cannot be carried over faithfully."""
    if isinstance(old, types.FunctionType) and isinstance(new, types.FunctionType):
        if old.__closure__ or new.__closure__:
            raise LookupError(f"{old.__name__} is a closure made at import time")
        if old.__code__ != new.__code__:
            old.__code__ = new.__code__  # a module-level lambda's body was mutated
        defaults, keywords = new.__defaults__, new.__kwdefaults__
        if defaults is not None:
            defaults = tuple(kept.get(id(value), value) for value in defaults)
        if keywords is not None:
            keywords = {key: kept.get(id(value), value) for key, value in keywords.items()}
        old.__defaults__, old.__kwdefaults__ = defaults, keywords
    elif isinstance(old, type) and isinstance(new, type):
        for key, value in vars(new).items():
            if key not in ("__dict__", "__weakref__") and not _same_member(
                vars(old).get(key), value
            ):
                raise LookupError(f"class {old.__name__} changed: {key}")
    else:
        raise LookupError(f"{type(old).__name__} is not a function or class")


def _same_member(before: Any, value: Any) -> bool:
    """Whether a class attribute made by the mutated run is the same as the live one."""
    if before is value or _same_value(before, value) or (before is None and value is None):
        return True
    if type(before) is not type(value):
        return False
    if isinstance(value, types.FunctionType):
        return bool(
            value.__code__ == before.__code__
            and value.__defaults__ == before.__defaults__
            and not value.__closure__
        )
    if isinstance(value, (staticmethod, classmethod)):
        return _same_member(before.__func__, value.__func__)
    if isinstance(value, property):
        return all(
            _same_member(getattr(before, f), getattr(value, f)) for f in ("fget", "fset", "fdel")
        )
    return False


def _defined_in(value: Any, is_target: SameFile) -> bool:
    if isinstance(value, types.FunctionType):
        return is_target(value.__code__.co_filename)
    if isinstance(value, type):
        module = sys.modules.get(getattr(value, "__module__", ""))
        return module is not None and is_target(getattr(module, "__file__", None) or "")
    return False


def _same_value(old: Any, new: Any) -> bool:
    if type(old) is not type(new) or not isinstance(
        old, (str, bytes, int, float, tuple, frozenset)
    ):
        return False
    try:
        return bool(old == new)
    except Exception:
        return False


def _update_in_place(old: Any, new: Any) -> None:
    if isinstance(old, list):
        old[:] = new
    else:
        old.clear()
        old.update(new)


def _rebind_elsewhere(module: Any, changed: list[tuple[str, Any, Any]]) -> None:
    """``from target import NAME`` in the project's other modules (tests, conftests): point
    NAME at the new value. Matched by name and identity: identity alone would also catch
    cached small ints and interned strings everywhere."""
    root = os.getcwd() + os.sep
    for other in list(sys.modules.values()):
        names = getattr(other, "__dict__", None)
        where = getattr(other, "__file__", None) or ""
        if other is module or not isinstance(names, dict) or not where.startswith(root):
            continue
        if "site-packages" in where:
            continue
        for name, old, new in changed:
            if names.get(name, module) is old:
                names[name] = new
