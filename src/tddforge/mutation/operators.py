"""Mutation operators: a table of small functions over ``ast``.

Each operator takes a node and the module's ``Source`` and yields ``Edit``s:
an operator name, an exact character span and the replacement text. Operator
tokens (``+``, ``<=``, ``not in``, ``and``, ``+=``) have no position in the AST,
so they are located among the tokenizer's tokens between the operands.

Skipped (by ``generate``): bare string statements (docstrings and the like) and
assignments to ``__doc__``, type annotations, assignments to names read only for
typing, f-string internals, the body of ``if __name__ == "__main__":`` and ``if
TYPE_CHECKING:``, every line carrying ``# pragma: no mutate``, every statement
(with its body) whose first line carries coverage.py's ``# pragma: no cover``,
and ``__all__`` when nothing star-imports the module.
"""

from __future__ import annotations

import ast
import bisect
import io
import re
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass

Span = tuple[int, int, int, int]


@dataclass(frozen=True)
class Edit:
    """One change an operator proposes."""

    operator: str
    span: Span
    replacement: str
    # the lines of the expression an operator token belongs to: running that expression
    # may show no line event on the token's own line (``a\n and b``'s jump is on a's line)
    reach: tuple[int, int] | None = None


class Source:
    """A module's text with the position helpers operators need."""

    def __init__(self, text: str):
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self._bytes = [line.encode("utf-8") for line in self.lines]
        every = list(tokenize.generate_tokens(io.StringIO(text).readline))
        self.tokens = [t for t in every if t.type in (tokenize.OP, tokenize.NAME)]
        self._starts = [t.start for t in self.tokens]
        comments = [t for t in every if t.type == tokenize.COMMENT]
        self.no_mutate = frozenset(t.start[0] for t in comments if NO_MUTATE.search(t.string))
        self.no_cover = frozenset(t.start[0] for t in comments if NO_COVER.search(t.string))

    def col(self, line: int, byte_col: int) -> int:
        """Character column of an AST byte column."""
        return len(self._bytes[line - 1][:byte_col].decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> Span:
        """The character span of ``node``."""
        line, end = node.lineno, node.end_lineno  # type: ignore[attr-defined]
        assert end is not None
        return (
            line,
            self.col(line, node.col_offset),  # type: ignore[attr-defined]
            end,
            self.col(end, node.end_col_offset),  # type: ignore[attr-defined]
        )

    def text_of(self, span: Span) -> str:
        """The source text inside ``span``."""
        (l1, c1, l2, c2) = span
        if l1 == l2:
            return self.lines[l1 - 1][c1:c2]
        middle = "".join(self.lines[l1 : l2 - 1])
        return self.lines[l1 - 1][c1:] + middle + self.lines[l2 - 1][:c2]

    def operator_between(self, left: ast.AST, right: ast.AST) -> tuple[Span, str] | None:
        """The operator tokens between two operands (parentheses skipped), as span and text."""
        after = self.span(left)[2:]
        before = self.span(right)[:2]
        lo = bisect.bisect_left(self._starts, after)
        hi = bisect.bisect_left(self._starts, before)
        found = [t for t in self.tokens[lo:hi] if t.string not in "()"]
        if not found:
            return None
        span = (*found[0].start, *found[-1].end)
        return span, " ".join(t.string for t in found)


NO_MUTATE = re.compile(r"pragma: no mutate")
NO_COVER = re.compile(r"#\s*(pragma|PRAGMA)[:\s]?\s*(no|NO)\s*(cover|COVER)")  # coverage.py's


# -- tables of swaps -----------------------------------------------------------

ARITHMETIC = {
    "+": "-",
    "-": "+",
    "*": "/",
    "/": "*",
    "//": "/",
    "%": "*",
    "**": "*",
    "<<": ">>",
    ">>": "<<",
    "&": "|",
    "|": "&",
    "^": "&",
}
AUGMENTED = {f"{k}=": f"{v}=" for k, v in ARITHMETIC.items()}
COMPARISON = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
BOUNDARY = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
IDENTITY = {"is": "is not", "is not": "is"}
MEMBERSHIP = {"in": "not in", "not in": "in"}
BOOLEAN = {"and": "or", "or": "and"}


def _swap(
    operator: str, table: dict[str, str], found: tuple[Span, str] | None, node: ast.AST
) -> Iterator[Edit]:
    if found is not None and found[1] in table:
        first, last = node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]
        yield Edit(operator, found[0], table[found[1]], (first, last))


def op_arithmetic(node: ast.BinOp, src: Source) -> Iterator[Edit]:
    """``a + b`` → ``a - b`` and the other arithmetic/bitwise swaps."""
    yield from _swap("arithmetic", ARITHMETIC, src.operator_between(node.left, node.right), node)


def op_augmented(node: ast.AugAssign, src: Source) -> Iterator[Edit]:
    """``x += 1`` → ``x -= 1`` and the other augmented-assignment swaps."""
    yield from _swap(
        "augmented_assignment", AUGMENTED, src.operator_between(node.target, node.value), node
    )


def op_compare(node: ast.Compare, src: Source) -> Iterator[Edit]:
    """Comparison negation, boundary shifts, ``is``/``is not`` and ``in``/``not in``."""
    left: ast.AST = node.left
    for right in node.comparators:
        found = src.operator_between(left, right)
        yield from _swap("comparison", COMPARISON, found, node)
        yield from _swap("boundary", BOUNDARY, found, node)
        yield from _swap("identity", IDENTITY, found, node)
        yield from _swap("membership", MEMBERSHIP, found, node)
        left = right


def op_boolean(node: ast.BoolOp, src: Source) -> Iterator[Edit]:
    """``a and b`` → ``a or b`` (and back), once per operator occurrence."""
    for left, right in zip(node.values, node.values[1:], strict=False):
        yield from _swap("boolean", BOOLEAN, src.operator_between(left, right), node)


def op_not_removal(node: ast.UnaryOp, src: Source) -> Iterator[Edit]:
    """``not x`` → ``x``."""
    if isinstance(node.op, ast.Not):
        whole = src.span(node)
        operand = src.span(node.operand)
        # Keep any parentheses written around the operand: take the text after "not".
        inner = src.text_of((whole[0], whole[1] + 3, whole[2], whole[3])).strip()
        yield Edit("not_removal", whole, inner if inner else src.text_of(operand))


def op_not_insertion(node: ast.If | ast.While | ast.IfExp, src: Source) -> Iterator[Edit]:
    """``if x:`` → ``if not (x):`` (also ``while`` and conditional expressions)."""
    test = node.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return
    span = src.span(test)
    yield Edit("not_insertion", span, f"not ({src.text_of(span)})")


def op_constant(node: ast.Constant, src: Source) -> Iterator[Edit]:
    """Numbers ±1 and 0, strings emptied (or filled when empty), ``True`` ↔ ``False``."""
    value, span = node.value, src.span(node)
    if isinstance(value, bool):
        yield Edit("boolean_literal", span, str(not value))
    elif isinstance(value, (int, float)):
        for new in dict.fromkeys((value + 1, value - 1, 0)):
            if new != value:
                yield Edit("number", span, repr(new))
    elif isinstance(value, str):
        yield Edit("string", span, repr("" if value else "XX"))
    elif isinstance(value, bytes):
        yield Edit("string", span, repr(b"" if value else b"XX"))


def op_return_none(node: ast.Return, src: Source) -> Iterator[Edit]:
    """``return x`` → ``return None``."""
    value = node.value
    if value is not None and not (isinstance(value, ast.Constant) and value.value is None):
        yield Edit("return_none", src.span(value), "None")


def op_call_removal(node: ast.Expr, src: Source) -> Iterator[Edit]:
    """A call used as a statement is replaced by ``None``."""
    value = node.value.value if isinstance(node.value, ast.Await) else node.value
    if isinstance(value, ast.Call):
        yield Edit("call_removal", src.span(node), "None")


def _is_none(node: ast.AST | None) -> bool:
    return node is None or (isinstance(node, ast.Constant) and node.value is None)


def op_assignment_none(node: ast.Assign | ast.AnnAssign, src: Source) -> Iterator[Edit]:
    """``x = value`` → ``x = None`` (the value is what the assignment is for)."""
    if not _is_none(node.value):
        assert node.value is not None
        yield Edit("assignment_none", src.span(node.value), "None")


def op_keyword_none(node: ast.Call, src: Source) -> Iterator[Edit]:
    """``f(key=value)`` → ``f(key=None)``, once per keyword argument."""
    for keyword in node.keywords:
        if keyword.arg is not None and not _is_none(keyword.value):
            yield Edit("keyword_none", src.span(keyword.value), "None")


def op_loop_control(node: ast.Break | ast.Continue, src: Source) -> Iterator[Edit]:
    """``break`` ↔ ``continue``."""
    yield Edit(
        "loop_control", src.span(node), "continue" if isinstance(node, ast.Break) else "break"
    )


Operator = Callable[..., Iterator[Edit]]

OPERATORS: dict[type[ast.AST], tuple[Operator, ...]] = {
    ast.BinOp: (op_arithmetic,),
    ast.AugAssign: (op_augmented,),
    ast.Compare: (op_compare,),
    ast.BoolOp: (op_boolean,),
    ast.UnaryOp: (op_not_removal,),
    ast.If: (op_not_insertion,),
    ast.While: (op_not_insertion,),
    ast.IfExp: (op_not_insertion,),
    ast.Constant: (op_constant,),
    ast.Return: (op_return_none,),
    ast.Assign: (op_assignment_none,),
    ast.AnnAssign: (op_assignment_none,),
    ast.Call: (op_keyword_none,),
    ast.Expr: (op_call_removal,),
    ast.Break: (op_loop_control,),
    ast.Continue: (op_loop_control,),
}

OPERATOR_NAMES = (
    "arithmetic",
    "augmented_assignment",
    "comparison",
    "boundary",
    "identity",
    "membership",
    "boolean",
    "not_removal",
    "not_insertion",
    "number",
    "string",
    "boolean_literal",
    "return_none",
    "call_removal",
    "loop_control",
    "default_argument",
    "assignment_none",
    "keyword_none",
)
