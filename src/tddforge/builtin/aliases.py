"""Type aliases the module defines, read statically, so that a hint naming one means its types.

``def ordinal(value: NumberOrString)`` with ``NumberOrString: TypeAlias = float | str``
under ``if TYPE_CHECKING:`` reaches the generator as the bare name ``NumberOrString``:
the alias never exists at run time. Taken for an unknown class, it would get no literal
input at all. Pure: source text in, ``{alias: type expression}`` out, and ``info`` with
its parameters' hints written out.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from tddforge.builtin.discover import CallableInfo, ModuleInfo

#: Generic names whose subscription is a type (``Union[int, str]``, ``list[str]``).
_GENERICS = frozenset(
    {
        "Union",
        "Optional",
        "List",
        "Dict",
        "Tuple",
        "Set",
        "FrozenSet",
        "Sequence",
        "Mapping",
        "Iterable",
        "Callable",
        "Literal",
        "list",
        "dict",
        "tuple",
        "set",
        "frozenset",
        "type",
    }
)
_ROUNDS = 3  # an alias of an alias, written out


def type_aliases(source: str) -> dict[str, str]:
    """Module-level aliases, also under ``if TYPE_CHECKING:`` or ``try:``: annotated with
    ``TypeAlias``, or a value that can only be a type (``float | str``, ``Optional[X]``)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    found: dict[str, str] = {}
    for node in _top_level(tree.body):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            if ast.unparse(node.annotation).split(".")[-1] == "TypeAlias":
                found[node.target.id] = ast.unparse(node.value)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and _is_type(node.value):
                found[target.id] = ast.unparse(node.value)
            elif (  # another name for an alias found above (inject's ``Provider = Constructor``)
                isinstance(target, ast.Name)
                and isinstance(node.value, ast.Name)
                and node.value.id in found
            ):
                found[target.id] = node.value.id
            elif isinstance(target, ast.Name) and (bound := _type_var(node.value)):
                found[target.id] = bound
    return {name: text for name, text in found.items() if name not in classes}


def _type_var(node: ast.expr) -> str | None:
    """What a ``TypeVar`` stands for: its bound, the union of its constraints, or ``Any``
    (``T = TypeVar("T", bound=Injectable)`` reaches the generator as the bare name ``T``
    where the module postpones its annotations); None when ``node`` is not one."""
    if not (isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == "TypeVar"):
        return None
    bound = next((k.value for k in node.keywords if k.arg == "bound"), None)
    if bound is not None:
        return ast.unparse(bound)
    constraints = [ast.unparse(arg) for arg in node.args[1:]]
    return " | ".join(constraints) if constraints else "Any"


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for node in body:
        yield node
        if isinstance(node, ast.If | ast.Try):
            yield from _top_level([*node.body, *node.orelse])


def _is_type(node: ast.expr) -> bool:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _is_type_part(node.left) and _is_type_part(node.right)
    if isinstance(node, ast.Subscript):
        return ast.unparse(node.value).split(".")[-1] in _GENERICS
    return False


def _is_type_part(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value is None
    return isinstance(node, ast.Name | ast.Attribute) or _is_type(node)


def written_out(annotation: str, aliases: dict[str, str]) -> str:
    """``annotation`` with each alias it names replaced by its types."""
    names = {name: re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)") for name in aliases}
    for _ in range(_ROUNDS):
        before = annotation
        for name, pattern in names.items():
            annotation = pattern.sub(aliases[name].replace("\\", "\\\\"), annotation)
        if annotation == before:
            break
    return annotation


def with_aliases(info: ModuleInfo, aliases: dict[str, str]) -> ModuleInfo:
    """``info`` with every parameter hint's aliases written out."""
    if not aliases:
        return info

    def fill(func: CallableInfo, _key: str) -> CallableInfo:
        params = tuple(
            p.model_copy(update={"annotation": written_out(p.annotation, aliases)})
            if p.annotation
            else p
            for p in func.parameters
        )
        return func.model_copy(update={"parameters": params})

    return info.with_each(fill)
