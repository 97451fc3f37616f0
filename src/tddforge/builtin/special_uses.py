"""Where a test reaches an object's special methods through syntax (pure, over ``ast``).

People test a mapping with ``d["a.b"]``, ``"a" in d`` and ``d["a"] = 1``, a set type
with ``a | b`` and ``a == b``, a sized one with ``len(s)``; none of those is a call of
``__getitem__``, ``__contains__`` or ``__or__`` in the test's source. ``special_uses``
names, for one node of a test, each special method it calls, the expression whose
object receives it and the operands it is given, so that ``from_tests`` can keep the
call as it keeps ``d.get("a.b")``, when the receiver is an instance of the module's class.
Spelled back by the writer through the same table (``target.probe.OPERATORS``).
"""

from __future__ import annotations

import ast
from typing import NamedTuple


class SpecialUse(NamedTuple):
    """``method`` called on what ``receiver`` evaluates to, given ``operands``."""

    method: str
    receiver: ast.expr
    operands: tuple[ast.expr, ...] = ()


_BINARY: dict[type[ast.operator], str] = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "truediv",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.Pow: "pow",
    ast.BitAnd: "and",
    ast.BitOr: "or",
    ast.BitXor: "xor",
    ast.LShift: "lshift",
    ast.RShift: "rshift",
    ast.MatMult: "matmul",
}
_COMPARE: dict[type[ast.cmpop], str] = {
    ast.Eq: "__eq__",
    ast.NotEq: "__ne__",
    ast.Lt: "__lt__",
    ast.LtE: "__le__",
    ast.Gt: "__gt__",
    ast.GtE: "__ge__",
}
_UNARY: dict[type[ast.unaryop], str] = {
    ast.USub: "__neg__",
    ast.UAdd: "__pos__",
    ast.Invert: "__invert__",
}
#: builtins that call one special method of their only argument
_BUILTINS = {
    "len": "__len__",
    "str": "__str__",
    "repr": "__repr__",
    "bool": "__bool__",
    "hash": "__hash__",
    "int": "__int__",
    "float": "__float__",
    "abs": "__abs__",
    "list": "__iter__",
    "reversed": "__reversed__",
}


def special_uses(node: ast.AST) -> list[SpecialUse]:
    """The special methods ``node`` (an expression or a statement of a test) calls itself,
    in the order a reader meets them; its sub-expressions are other nodes. A binary
    operator names both its method on the left operand and the reflected one on the
    right (``2 * v``: ``__rmul__``), since which one runs depends on the objects."""
    if isinstance(node, ast.Assign | ast.Delete):
        return _item_statement(node)
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        return [SpecialUse("__getitem__", node.value, (node.slice,))]
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        op, right = node.ops[0], node.comparators[0]
        if isinstance(op, ast.In | ast.NotIn):
            return [SpecialUse("__contains__", right, (node.left,))]
        method = _COMPARE.get(type(op))
        return [SpecialUse(method, node.left, (right,))] if method else []
    if isinstance(node, ast.BinOp):
        name = _BINARY.get(type(node.op))
        if name is None:
            return []
        return [
            SpecialUse(f"__{name}__", node.left, (node.right,)),
            SpecialUse(f"__r{name}__", node.right, (node.left,)),
        ]
    if isinstance(node, ast.UnaryOp):
        method = _UNARY.get(type(node.op))
        return [SpecialUse(method, node.operand)] if method else []
    return _builtin_call(node) if isinstance(node, ast.Call) else []


def _item_statement(node: ast.Assign | ast.Delete) -> list[SpecialUse]:
    """``d[k] = v`` and ``del d[k]``."""
    if isinstance(node, ast.Assign):
        return [
            SpecialUse("__setitem__", target.value, (target.slice, node.value))
            for target in node.targets
            if isinstance(target, ast.Subscript)
        ]
    return [
        SpecialUse("__delitem__", target.value, (target.slice,))
        for target in node.targets
        if isinstance(target, ast.Subscript)
    ]


def _builtin_call(node: ast.Call) -> list[SpecialUse]:
    """``len(s)``, ``self.assertIn(k, d)`` (``format`` is ``from_tests._formatted``'s)."""
    if _is_membership_assert(node):
        return [SpecialUse("__contains__", node.args[1], (node.args[0],))]
    if isinstance(node.func, ast.Name) and not node.keywords:
        method = _BUILTINS.get(node.func.id)
        if method and len(node.args) == 1 and not isinstance(node.args[0], ast.Starred):
            return [SpecialUse(method, node.args[0])]
    return []


def _is_membership_assert(node: ast.Call) -> bool:
    """``self.assertIn(member, container)`` (or ``assertNotIn``): a membership test."""
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in ("assertIn", "assertNotIn")
        and len(node.args) >= 2
        and not any(isinstance(arg, ast.Starred) for arg in node.args[:2])
    )
