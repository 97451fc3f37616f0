"""Inputs of the length a module checks for: ``if len(binary) != 16: raise ValueError``.

A codec or validator refuses every input but one of an exact length, and no
mutation of short strings reaches it: the length is a number the module (or a
sibling module it imports, ``constants.BYTES_LEN``) names, compared with
``len`` of a value. For each such comparison this gives a text and a bytes
value of that length (and of one more or less, for ``<``/``>`` checks), as
constants of the function the comparison is in. Pure: source text in,
constants out; a sibling's source is asked for by name.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from tddforge.builtin.constants import MODULE_SCOPE, Constant, Scalar, scoped_functions

#: Longest length an input is made for (a longer one is data, not a field).
MAX_LENGTH = 256
#: The characters a text of a checked length is made of: digits first (a code, a
#: number, an encoding's alphabet mostly has them), then lowercase letters.
_FILL = "0123456789abcdefghijklmnopqrstuvwxyz"


def named_literals(
    source: str, sibling: Callable[[str], str | None], package: str = ""
) -> dict[str, Scalar]:
    """The numbers and strings the module can name: its own top-level ``NAME = literal``
    constants, and those of the sibling modules it imports (``from . import constants``
    gives ``constants.BYTES_LEN``; ``from .constants import BYTES_LEN`` gives
    ``BYTES_LEN``; ``package``, the module's package, spelled out: ``from ulid import
    constants``). ``sibling``: a sibling module's source by its name, or None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found = _literals(tree)
    for local, module, name in sibling_imports(tree, package):
        names = _parsed_literals(sibling(module))
        if name is None:
            found.update({f"{local}.{k}": v for k, v in names.items()})
        elif name in names:
            found[local] = names[name]
    return found


def sibling_imports(tree: ast.Module, package: str = "") -> Iterator[tuple[str, str, str | None]]:
    """What the module imports from the modules beside it, as (the name it binds, the
    sibling module, the name imported from it or None for the module itself):
    ``from . import constants`` is ``("constants", "constants", None)``, ``from
    .constants import BYTES_LEN as N`` is ``("N", "constants", "BYTES_LEN")``; an
    absolute import spelled with ``package``, the module's package, counts too."""
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        within = node.module or ""
        if node.level == 0 and package and (within + ".").startswith(package + "."):
            within = within[len(package) + 1 :]
        elif node.level != 1:
            continue
        for alias in node.names:
            if not within:  # ``from . import constants``
                yield alias.asname or alias.name, alias.name, None
            elif "." not in within:  # ``from .constants import BYTES_LEN``
                yield alias.asname or alias.name, within, alias.name


def _parsed_literals(source: str | None) -> dict[str, Scalar]:
    if source is None:
        return {}
    try:
        return _literals(ast.parse(source))
    except SyntaxError:
        return {}


def _literals(tree: ast.Module) -> dict[str, Scalar]:
    """Top-level ``NAME = literal`` (an int, a string or bytes)."""
    found: dict[str, Scalar] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        literal = _value(value, found)
        if isinstance(literal, bool) or not isinstance(literal, (int, str, bytes)):
            continue
        if isinstance(target, ast.Name):
            found[target.id] = literal
    return found


def _value(node: ast.expr, found: dict[str, Scalar]) -> object:
    """A literal, a name found before, or integer arithmetic of those
    (``BYTES_LEN = TIMESTAMP_LEN + RANDOMNESS_LEN``); None otherwise."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return found.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        left, right = _value(node.left, found), _value(node.right, found)
        if type(left) is int and type(right) is int and abs(left) < 2**31 and abs(right) < 2**31:
            if isinstance(node.op, ast.Add):
                return left + right
            return left - right if isinstance(node.op, ast.Sub) else left * right
    return None


def sized_constants(
    source: str, named: dict[str, Scalar] | None = None
) -> dict[str, tuple[Constant, ...]]:
    """Per scope (as ``mine_constants`` names them), a text and a bytes value of each
    length the scope compares ``len(...)`` with (``named``: what names stand for)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, list[Constant]] = {}
    for scope, node in _scoped(tree):
        params = _parameters(node)
        for compare in (n for n in ast.walk(node) if isinstance(n, ast.Compare)):
            for length in _lengths(compare, named or {}, params):
                made = found.setdefault(scope, [])
                for value in _of_length(length):
                    constant = Constant(value, "compare")
                    if constant not in made:
                        made.append(constant)
    return {scope: tuple(made) for scope, made in found.items()}


def _scoped(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    """Each top-level function and method with its scope name; the module's other code."""
    yield from scoped_functions(tree)
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield MODULE_SCOPE, node


def _parameters(node: ast.AST) -> set[str]:
    """The parameters of a function (none for the module's other code)."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    return {a.arg for a in every} - {"self", "cls"}


def _lengths(compare: ast.Compare, named: dict[str, Scalar], params: set[str]) -> list[int]:
    """The lengths ``compare`` tests ``len(param)`` of one of ``params`` against: equal to
    the number for ``==`` and ``!=``; one past it too, for an ordering. The length of a
    value the function made itself (``len(parts) < 2``) is not an input's."""
    operands = [compare.left, *compare.comparators]
    found: list[int] = []
    for index, op in enumerate(compare.ops):
        left, right = operands[index], operands[index + 1]
        if _is_len(right):
            left, right = right, left
        if not _is_len(left) or not _names_one_of(left, params):
            continue
        number = _number(right, named)
        if number is None or not 0 < number <= MAX_LENGTH:
            continue
        found.append(number)
        if isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)):
            found += [n for n in (number - 1, number + 1) if 0 < n <= MAX_LENGTH]
    return found


def _is_len(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "len"
        and len(node.args) == 1
    )


def _names_one_of(call: ast.expr, params: set[str]) -> bool:
    argument = call.args[0] if isinstance(call, ast.Call) else None
    return isinstance(argument, ast.Name) and argument.id in params


def _number(node: ast.expr, named: dict[str, Scalar]) -> int | None:
    if isinstance(node, ast.Constant):
        value: object = node.value
    elif isinstance(node, (ast.Name, ast.Attribute)):
        value = named.get(ast.unparse(node))
    else:
        return None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _of_length(length: int) -> tuple[str, bytes]:
    text = (_FILL * (length // len(_FILL) + 1))[:length]
    return text, bytes(i % 256 for i in range(length))


def with_sized(
    mined: dict[str, tuple[Constant, ...]], sized: dict[str, tuple[Constant, ...]]
) -> dict[str, tuple[Constant, ...]]:
    """``mined`` with each scope's values of a checked length first: without them, the
    check refuses everything the other constants make."""
    merged = dict(mined)
    for scope, made in sized.items():
        own = merged.get(scope, ())
        merged[scope] = (*made, *(c for c in own if c not in made))
    return merged
