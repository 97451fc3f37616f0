"""The parameters that bound a function's loops, and calls that give them small values (pure).

``retry_call(f, tries=-1)`` retries ``f`` until it returns: with an ``f`` that always
raises, the call never ends, and the search sees a timeout. That timeout says the
input reached the loop; the retry path it ran is what a test wants, and a small
``tries`` lets the same call end. :func:`loop_bounds` finds, for each function and
method of the module, the parameters its loops test: names in a ``while`` condition
or in the arguments of a ``for ... in range(...)``, traced back through plain
assignments (``_tries, _delay = tries, delay``) and through calls of the module's
own functions (``retry_call`` passes ``tries`` on to ``__retry_internal``, whose
loop tests it). :func:`bounded` gives the calls that timed out those parameters set
to small values, one parameter at a time.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import replace

from tddforge.builtin.constants import Function, scoped_functions
from tddforge.builtin.discover import CallableInfo
from tddforge.builtin.explore import Call, CallResult

#: The values a loop's bound is given: one pass, and one more (a retry, a second item).
BOUND_VALUES = ("1", "2")
MAX_STUCK = 6  # timed-out calls given bounded variants per round
_ROUNDS = 4  # passes propagating bounds through the module's own calls


def loop_bounds(source: str) -> dict[str, frozenset[str]]:
    """Each function's qualname (``Class.method`` for a method) → the names of its
    parameters that bound one of its loops, directly or through a call of the module's
    own function; functions with none are left out."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    functions = dict(scoped_functions(tree))
    bounds = {name: _direct(function) for name, function in functions.items()}
    for _ in range(_ROUNDS):
        grown = False
        for name, function in functions.items():
            passed = _passed_on(function, functions, bounds)
            if not passed <= bounds[name]:
                bounds[name] = bounds[name] | passed
                grown = True
        if not grown:
            break
    return {name: frozenset(found) for name, found in bounds.items() if found}


def _parameters(function: Function) -> list[str]:
    arguments = function.args
    return [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]


def _aliases(function: Function) -> dict[str, set[str]]:
    """Local name → the parameters it was assigned from (``a = tries``, ``a, b = t, d``,
    ``a = tries - 1``), over the whole body, nested functions included."""
    params = set(_parameters(function))
    found: dict[str, set[str]] = {p: {p} for p in params}
    for node in ast.walk(function):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        pairs: list[tuple[ast.expr, ast.expr]] = [(target, value)]
        if (
            isinstance(target, ast.Tuple)
            and isinstance(value, ast.Tuple)
            and len(target.elts) == len(value.elts)
        ):
            pairs = list(zip(target.elts, value.elts, strict=True))
        for name, expr in pairs:
            if isinstance(name, ast.Name):
                sources = set().union(*(found.get(n, set()) for n in _names(expr)))
                if sources:
                    found.setdefault(name.id, set()).update(sources)
    return found


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _direct(function: Function) -> set[str]:
    """The parameters a ``while`` condition or a ``range(...)`` of a ``for`` reads."""
    aliases = _aliases(function)
    tested: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.While):
            tested |= _names(node.test)
        elif (
            isinstance(node, ast.For)
            and isinstance(node.iter, ast.Call)
            and isinstance(node.iter.func, ast.Name)
            and node.iter.func.id == "range"
        ):
            tested |= set().union(*(_names(a) for a in node.iter.args))
    return set().union(*(aliases.get(name, set()) for name in tested))


def _passed_on(
    function: Function,
    functions: Mapping[str, Function],
    bounds: Mapping[str, set[str]],
) -> set[str]:
    """The parameters of ``function`` it passes to a bound of the module's own function."""
    aliases = _aliases(function)
    found: set[str] = set()
    for node in ast.walk(function):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        callee = functions.get(node.func.id)
        if callee is None or not bounds.get(node.func.id):
            continue
        wanted = bounds[node.func.id]
        params = _parameters(callee)
        given = [(params[i], arg) for i, arg in enumerate(node.args[: len(params)])]
        given += [(k.arg, k.value) for k in node.keywords if k.arg]
        for param, arg in given:
            if param in wanted:
                found |= set().union(*(aliases.get(n, set()) for n in _names(arg)))
    return found


def bounded(
    stuck: Sequence[CallResult],
    funcs: Mapping[str, CallableInfo],
    bounds: Mapping[str, frozenset[str]],
) -> list[Call]:
    """The calls among ``stuck`` that timed out (the first ``MAX_STUCK``), each with one
    parameter bounding its loops set to each of ``BOUND_VALUES``."""
    found: list[Call] = []
    timed_out = [r for r in stuck if r.outcome.kind == "timeout"]
    for result in timed_out[:MAX_STUCK]:
        func = funcs.get(result.call.target)
        if func is None:
            continue
        for name in sorted(bounds.get(func.qualname, ())):
            found += [c for v in BOUND_VALUES if (c := _with(result.call, func, name, v))]
    return list(dict.fromkeys(found))


def _with(call: Call, func: CallableInfo, name: str, value: str) -> Call | None:
    """``call`` with the parameter ``name`` given ``value``: where it was given, or by
    keyword; None when it can only be given by position after arguments left out."""
    index = next((i for i, p in enumerate(func.parameters) if p.name == name), None)
    if index is None:
        return None
    if index < len(call.args):
        args = (*call.args[:index], value, *call.args[index + 1 :])
        return replace(call, args=args)
    if func.parameters[index].kind == "positional_only":
        return None
    kwargs = tuple((k, v) for k, v in call.kwargs if k != name)
    return replace(call, kwargs=(*kwargs, (name, value)))
