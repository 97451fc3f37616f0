"""The Enhancer's instruction block: a critique said so that the model can act on it (pure).

``instruction_block`` lists the critique's instructions, then what they point
at: the static checks' findings in the suite, and, quoted from the module so
that no line number is left bare, the lines not
run yet (CoverUp) with the function each is in, the branches not taken, the
mutants left to kill with their ids and diffs (MuTAP, ACH; how many there are,
those not shown before first, timeouts included, the ones set aside as
equivalent only counted), how to claim a mutant equivalent, and the tests that
fail.
"""

from __future__ import annotations

import ast
import contextlib
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from tddforge.decisions.critique import MAX_LINES, Critique, FailingTest, Survivor

DEFAULT_INSTRUCTION = "- Improve coverage and robustness without breaking existing passing tests."
#: How a reply claims a mutant equivalent: ``EQUIVALENT: <mutant id>: <reason>``.
EQUIVALENT = "EQUIVALENT"
_VERDICT_NOTES = {
    "no-coverage": "no test runs this line",
    "timeout": "timed out: with this change the tests ran out of time, as in an endless loop",
}


def instruction_block(
    c: Critique, source: str = "", *, max_survivors: int = 10, shown: Collection[str] = ()
) -> str:
    """The Enhancer's instructions: the critique's list, then the lines, branches,
    mutants and failing tests it points at. ``shown``: ids of mutants shown before."""
    parts = [f"- {item}" for item in c.instructions if item]
    if c.findings:
        parts.append(_findings(c.findings))
    lines = _Lines(source)
    if c.missing_lines and source:
        parts.append(lines.quote_missing(c.missing_lines))
    if c.missing_branches:
        parts.append(lines.quote_branches(c.missing_branches))
    if c.survivors or c.likely_equivalent or c.claimed_equivalent:
        parts.append(_mutants(c, survivors_to_show(c.survivors, max_survivors, shown), shown))
    if c.failing:
        parts.append(_failing(c.failing[:max_survivors]))
    block = "\n".join(parts).strip("\n")
    return block if block.strip() else DEFAULT_INSTRUCTION


def survivors_to_show(
    survivors: Sequence[Survivor], limit: int, shown: Collection[str] = ()
) -> tuple[Survivor, ...]:
    """At most ``limit`` of ``survivors``: those not shown before first, each group by line."""
    fresh = [s for s in survivors if s.id not in shown]
    again = [s for s in survivors if s.id in shown]
    return tuple([*fresh, *again][:limit])


def _mutants(c: Critique, chosen: tuple[Survivor, ...], shown: Collection[str]) -> str:
    total = len(c.survivors)
    out: list[str] = []
    if total:
        which = (
            f"all {total} shown" if len(chosen) == total else f"showing {len(chosen)} of {total}"
        )
        again = len(chosen) < total and any(s.id in shown for s in c.survivors)
        order = ", the ones not shown before first" if again else ""
        out.append(
            f"- {total} mutant(s) survived the tests ({which}{order}): the tests still pass"
            " when the module is changed as shown. Add assertions that fail on each change"
            " (mutant id, line, then the line before → after):"
        )
        out += [f"    {_survivor(s)}" for s in chosen]
    aside = [
        f"{len(c.likely_equivalent)} likely equivalent" if c.likely_equivalent else "",
        f"{len(c.claimed_equivalent)} you claimed equivalent" if c.claimed_equivalent else "",
    ]
    if any(aside):
        out.append(f"- Not listed: {' and '.join(a for a in aside if a)}.")
    if chosen:
        out.append(
            "- If a change shown cannot alter anything a caller can observe (an equivalent"
            " mutant), write no test for it; instead add a line"
            f" `{EQUIVALENT}: <mutant id>: <reason>` after the test module. A claim is"
            " recorded for review, not trusted: the mutant still counts as a survivor."
        )
    return "\n".join(out)


def _survivor(s: Survivor) -> str:
    note = f" ({_VERDICT_NOTES[s.verdict]})" if s.verdict in _VERDICT_NOTES else ""
    change = f"`{_one_line(s.before)}` → `{_one_line(s.after)}`"
    return f"{s.id or s.operator}, line {s.line}{note}: {change}"


def _one_line(code: str) -> str:
    return re.sub(r"\s*\n\s*", " ", code.strip())


def _findings(findings: Sequence[str]) -> str:
    some = list(findings[:MAX_LINES])
    count = "" if len(some) == len(findings) else f" (the first {len(some)} of {len(findings)})"
    return "\n".join(
        [f"- What the static checks found in the current suite{count}:"]
        + [f"    {f}" for f in some]
    )


def _failing(tests: Sequence[FailingTest]) -> str:
    out = [
        "- These tests fail against the current module. Fix each expectation to match"
        " the module's actual behaviour unless the module is clearly wrong:"
    ]
    for t in tests:
        first = t.message.splitlines()[0][:200] if t.message else ""
        out.append(f"    {t.name}: {t.kind or 'error'}: {first}")
    return "\n".join(out)


@dataclass(frozen=True)
class _Scope:
    start: int
    end: int
    name: str


class _Lines:
    """The module's lines, and the function or class each belongs to."""

    def __init__(self, source: str) -> None:
        self.lines = source.splitlines()
        self.scopes: list[_Scope] = []
        with contextlib.suppress(SyntaxError):
            self._collect(ast.parse(source).body, "")

    def _collect(self, body: list[ast.stmt], prefix: str) -> None:
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        for node in body:
            if isinstance(node, kinds):
                name = f"{prefix}{node.name}"
                self.scopes.append(_Scope(node.lineno, node.end_lineno or node.lineno, name))
                self._collect(node.body, f"{name}.")

    def owner(self, line: int) -> str:
        """The innermost function or class holding ``line``, or "module level"."""
        inside = [s for s in self.scopes if s.start <= line <= s.end]
        return max(inside, key=lambda s: s.start).name if inside else "module level"

    def text(self, line: int) -> str:
        return self.lines[line - 1].rstrip() if 0 < line <= len(self.lines) else ""

    def quote_missing(self, missing: Sequence[int]) -> str:
        """The first lines not run, numbered, under the function each is in."""
        some = list(missing[:MAX_LINES])
        count = "" if len(some) == len(missing) else f" (the first {len(some)} of {len(missing)})"
        out = [f"- The lines not run yet{count}, as they stand in the module (number | code):"]
        owner = None
        for n in some:
            if self.owner(n) != owner:
                owner = self.owner(n)
                out.append(f"    in {owner}:" if owner != "module level" else "    module level:")
            out.append(f"    {n:>5} | {self.text(n)}")
        return "\n".join(out)

    def quote_branches(self, arcs: Sequence[tuple[int, int]]) -> str:
        """The first branches not taken: from which line to which, with both lines' code."""
        some = list(arcs[:MAX_LINES])
        count = "" if len(some) == len(arcs) else f" (the first {len(some)} of {len(arcs)})"
        out = [
            f"- Take these branches{count}: from a line to the line that should run next"
            " (exit: leave the function):"
        ]
        for start, end in some:
            frm = f"line {start} `{self.text(start).strip()}`" if self.lines else f"line {start}"
            if end < 0:
                to = f"exit from {self.owner(start)}"
            else:
                to = f"line {end} `{self.text(end).strip()}`" if self.lines else f"line {end}"
            out.append(f"    {frm} → {to}")
        return "\n".join(out)
