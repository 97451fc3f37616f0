"""What test files use of named classes and functions, read statically (never imported).

The spec check asks: with which keywords is a constructor or a function
called, and which members are read, written or called on a class or on its
instances? Only what is *clearly* the named thing counts, so that nothing
else is ever reported:

- a name is the target only when the file imports it from one of the
  target's modules and binds that name in no other way;
- a variable is an instance only when every binding of it in its function
  constructs the class (``x = Bucket(...)``, ``with Bucket(...) as x``);
- a test parameter is an instance only when it names a fixture every
  definition of which returns or yields only such instances (and the test
  does not parametrize it); a fixture that returns a function (or lambda)
  that only constructs the class is a factory, and what a call of it gives
  is an instance too.

Anything else (``self.x = Bucket()``, an instance passed through a helper, a
closure) is not looked at.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class Target:
    """A class or function to look for, and the modules it may be imported from (empty: any)."""

    name: str
    modules: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Use:
    """One use of a target: a call of it, or a member reached through it or its instance."""

    path: str
    line: int
    target: str
    member: str = ""  # "" when the target itself is called
    called: bool = True
    on_class: bool = False  # the member is reached through the class, not an instance
    keywords: tuple[str, ...] = ()


def find_uses(sources: Mapping[str, str], targets: Sequence[Target]) -> list[Use]:
    """Every clear use of ``targets`` in ``sources`` (path → text); unparsable files are skipped."""
    wanted = {t.name: t for t in targets}
    trees = {path: tree for path, text in sources.items() if (tree := _parse(text)) is not None}
    bound = {path: _imported(tree, wanted) for path, tree in trees.items()}
    fixtures = _fixtures(trees, bound)
    uses: list[Use] = []
    for path, tree in trees.items():
        for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, _SCOPES[:2]))]:
            uses += _Scope(path, bound[path], fixtures, scope).uses()
    return sorted(uses, key=lambda u: (u.path, u.line, u.target, u.member))


def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


@dataclass(frozen=True)
class _Bound:
    """What a file's names are: local name → target, and local name → imported module."""

    targets: Mapping[str, str]
    modules: Mapping[str, str]
    wanted: Mapping[str, Target]

    def resolve(self, node: ast.expr) -> str:
        """The target ``node`` names (``Bucket``, ``rate.bucket.Bucket``), or ""."""
        if isinstance(node, ast.Name):
            return self.targets.get(node.id, "")
        dotted = _dotted(node)
        if dotted is None or dotted[0] not in self.modules:
            return ""
        module = ".".join([self.modules[dotted[0]], *dotted[1:-1]])
        target = self.wanted.get(dotted[-1])
        allowed = target is not None and (not target.modules or module in target.modules)
        return dotted[-1] if allowed else ""


def _imported(tree: ast.Module, wanted: Mapping[str, Target]) -> _Bound:
    """The file's imports of targets and of modules, minus names it also binds otherwise."""
    targets: dict[str, str] = {}
    modules: dict[str, str] = {}
    other: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                local = alias.asname or alias.name
                target = wanted.get(alias.name)
                ok = node.level == 0 and target is not None and _from(target, node.module)
                if ok and targets.get(local, alias.name) == alias.name:
                    targets[local] = alias.name
                else:
                    other.add(local)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                module = alias.name if alias.asname else local
                if modules.get(local, module) != module:
                    other.add(local)
                modules[local] = module
        else:
            other.update(_bound_names(node))
    return _Bound(
        {k: v for k, v in targets.items() if k not in other and k not in modules},
        {k: v for k, v in modules.items() if k not in other and k not in targets},
        wanted,
    )


def _from(target: Target, module: str | None) -> bool:
    """Whether ``target`` may be imported from ``module``."""
    return not target.modules or module in target.modules


def _bound_names(node: ast.AST) -> list[str]:
    """The names ``node`` binds, other than by an import."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        return [node.id]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, _SCOPES):
        return [node.name]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    if isinstance(node, ast.Global | ast.Nonlocal):
        return list(node.names)
    return []


def _dotted(node: ast.expr) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``; None for anything but names and attributes."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or not parts:
        return None
    return [node.id, *reversed(parts)]


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``scope``'s own body: nested functions and classes are scopes of their own."""
    body = (
        scope.body if isinstance(scope, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef) else []
    )
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _constructed(
    node: ast.AST | None, bound: _Bound, factories: Mapping[str, str] | None = None
) -> str:
    """The target ``node`` constructs (``Bucket(...)``, or ``make(...)`` for a factory
    fixture ``make`` of ``factories``), or ""."""
    if not isinstance(node, ast.Call):
        return ""
    if factories and isinstance(node.func, ast.Name) and node.func.id in factories:
        return factories[node.func.id]
    return bound.resolve(node.func)


def _fixtures(trees: Mapping[str, ast.Module], bound: Mapping[str, _Bound]) -> dict[str, str]:
    """Fixture name → the target every one of its definitions gives instances of (``Bucket``),
    or gives a factory of (``Bucket()``: a function whose every call constructs one)."""
    found: dict[str, set[str]] = {}
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                name = _fixture_name(node)
                if name:
                    found.setdefault(name, set()).add(_gives(node, bound[path]))
    return {
        name: next(iter(gives))
        for name, gives in found.items()
        if len(gives) == 1 and "" not in gives
    }


def _fixture_name(func: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The fixture's name when ``func`` is a ``@pytest.fixture`` (``name=`` honoured), else ""."""
    for decorator in func.decorator_list:
        call = decorator if isinstance(decorator, ast.Call) else None
        if _last_name(call.func if call else decorator) != "fixture":
            continue
        for keyword in call.keywords if call else []:
            if keyword.arg == "name":
                value = keyword.value
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    return value.value
                return ""
        return func.name
    return ""


def _last_name(node: ast.expr) -> str:
    """``fixture`` for ``fixture`` and ``pytest.fixture``; "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ""


def _gives(func: ast.FunctionDef | ast.AsyncFunctionDef, bound: _Bound) -> str:
    """The target every value ``func`` returns or yields is an instance of (``Bucket``), or a
    factory of (``Bucket()``: a nested function or lambda that only constructs one), or ""."""
    instances = _instances(func, bound, {})
    nested = {n.name: n for n in _own_nodes(func) if isinstance(n, _SCOPES[:2])}
    gives = set()
    for node in _own_nodes(func):
        if isinstance(node, ast.Return | ast.Yield):
            gives.add(_given(node.value, bound, instances, nested))
    return next(iter(gives)) if len(gives) == 1 else ""


def _given(
    value: ast.expr | None,
    bound: _Bound,
    instances: Mapping[str, str],
    nested: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef],
) -> str:
    """What one returned or yielded value is (see ``_gives``)."""
    if isinstance(value, ast.Lambda):
        made = _constructed(value.body, bound)
        return f"{made}()" if made else ""
    if isinstance(value, ast.Name) and value.id in nested:
        made = _gives(nested[value.id], bound)
        return f"{made}()" if made and not made.endswith("()") else ""
    if isinstance(value, ast.Name):
        return instances.get(value.id, "")
    return _constructed(value, bound)


def _instances(scope: ast.AST, bound: _Bound, fixtures: Mapping[str, str]) -> dict[str, str]:
    """Name → target, for the names of ``scope`` that are only ever instances of one target."""
    kinds = _kinds(scope, bound, fixtures, {})
    factories = {n: k[:-2] for n, k in kinds.items() if k.endswith("()")}
    if factories:  # again, now that calls of the factory fixtures construct instances
        kinds = _kinds(scope, bound, fixtures, factories)
    return {name: kind for name, kind in kinds.items() if not kind.endswith("()")}


def _factories(scope: ast.AST, bound: _Bound, fixtures: Mapping[str, str]) -> dict[str, str]:
    """Name → target, for the factory fixtures ``scope`` takes and never rebinds."""
    kinds = _kinds(scope, bound, fixtures, {})
    return {n: k[:-2] for n, k in kinds.items() if k.endswith("()")}


def _kinds(
    scope: ast.AST, bound: _Bound, fixtures: Mapping[str, str], factories: Mapping[str, str]
) -> dict[str, str]:
    """Name → what it always is in ``scope`` (an instance ``T`` or a factory ``T()``)."""
    kinds: dict[str, set[str]] = {}
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        parametrized = _parametrized(scope)
        args = scope.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            given = "" if arg.arg in parametrized else fixtures.get(arg.arg, "")
            kinds.setdefault(arg.arg, set()).add(given)
    alone: set[int] = set()  # the names bound by a plain ``=`` or ``with ... as``: judged by value
    for node in _own_nodes(scope):
        value, name = _single_binding(node)
        if name is not None:
            kinds.setdefault(name.id, set()).add(_constructed(value, bound, factories))
            alone.add(id(name))
        elif id(node) not in alone:
            for other in _bound_names(node):
                kinds.setdefault(other, set()).add("")
    return {name: next(iter(k)) for name, k in kinds.items() if len(k) == 1 and "" not in k}


def _single_binding(node: ast.AST) -> tuple[ast.expr | None, ast.Name | None]:
    """``(value, name)`` when ``node`` binds one name to one value (``x = v``, ``x: T = v``,
    ``with v as x``); ``(None, None)`` otherwise."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return (node.value, target) if isinstance(target, ast.Name) else (None, None)
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return node.value, node.target
    if isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name):
        return node.context_expr, node.optional_vars
    return None, None


def _parametrized(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The argument names a ``parametrize`` mark of ``func`` gives values to."""
    names: set[str] = set()
    for decorator in func.decorator_list:
        if isinstance(decorator, ast.Call) and _last_name(decorator.func) == "parametrize":
            first = decorator.args[0] if decorator.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                names.update(n.strip() for n in first.value.split(","))
            elif isinstance(first, ast.List | ast.Tuple):
                names.update(str(e.value) for e in first.elts if isinstance(e, ast.Constant))
    return names


class _Scope:
    """The uses in one scope's own body."""

    def __init__(
        self, path: str, bound: _Bound, fixtures: Mapping[str, str], scope: ast.AST
    ) -> None:
        self.path = path
        self.bound = bound
        self.scope = scope
        self.instances = _instances(scope, bound, fixtures)
        self.factories = _factories(scope, bound, fixtures)

    def uses(self) -> list[Use]:
        found: list[Use] = []
        calls: set[int] = set()
        for node in _own_nodes(self.scope):
            if isinstance(node, ast.Call):
                keywords = tuple(k.arg for k in node.keywords if k.arg is not None)
                target = self.bound.resolve(node.func)
                if target:
                    found.append(Use(self.path, node.lineno, target, keywords=keywords))
                elif isinstance(node.func, ast.Attribute):
                    use = self._member(node.func, True, keywords)
                    if use is not None:
                        found.append(use)
                        calls.add(id(node.func))
            elif isinstance(node, ast.Attribute) and id(node) not in calls:
                use = self._member(node, False, ())
                if use is not None:
                    found.append(use)
        return found

    def _member(self, node: ast.Attribute, called: bool, keywords: tuple[str, ...]) -> Use | None:
        owner = node.value
        target = self.instances.get(owner.id, "") if isinstance(owner, ast.Name) else ""
        target = target or _constructed(owner, self.bound, self.factories)
        on_class = not target
        if on_class:
            target = self.bound.resolve(owner)
        if not target:
            return None
        return Use(self.path, node.lineno, target, node.attr, called, on_class, keywords)
