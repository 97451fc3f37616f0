"""The mutant-directed phase's decisions (pure): which calls to try on which mutant, which to keep.

After the coverage search, the loop measures the suite and some mutants
survive it. A call *can kill* a mutant when what the written test would
assert about the call (:func:`observed`) differs between the original module
and the mutant. ``plan`` pairs each surviving mutant with the deterministic
calls that ran its lines (or, for code run at import time, which no call
traces, with any calls); ``choose`` then keeps few calls that kill as many
mutants as possible, greedily (a call that kills three mutants beats three
calls that kill one each). For mutants that no traced call reaches
(import-time tables), ``inputs_from_lines`` and ``calls_with_inputs`` make
new calls from the mutated line's own literals.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import zip_longest

from tddforge.builtin.constants import scoped_functions
from tddforge.builtin.explore import Call, CallResult, Outcome
from tddforge.builtin.regex_example import examples_for
from tddforge.mutation.mutant import Mutant

Observed = tuple[object, ...]
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
MAX_INPUT = 60  # a longer literal is text, not an input worth trying


@dataclass(frozen=True)
class MutantPlan:
    """One surviving mutant and the indexes (into the pool) of the calls to run against it."""

    mutant: Mutant
    calls: tuple[int, ...]


def observed(outcome: Outcome, like: Outcome | None = None) -> Observed:
    """What the writer's assertions pin down about an outcome (see ``writer._assertions``);
    of its type only, when ``like`` (the original's) or itself is one whose value varies."""
    if outcome.kind == "return" and (outcome.varies or (like is not None and like.varies)):
        return ("return", outcome.type, outcome.type_module)
    if outcome.kind == "raise":
        return ("raise", outcome.type, outcome.message)
    if outcome.kind != "return":
        return (outcome.kind,)  # a timeout or crash: no test would pass
    # the object's repr after the call is asserted when the original's call changed it
    after = outcome.after_repr if like is None or like.after_repr else ""
    if outcome.literal:
        return ("return", outcome.repr, outcome.after, after)
    shown = "" if "0x" in outcome.repr else outcome.repr  # asserted when it is stable
    return ("return", outcome.type, outcome.state, outcome.after, shown, after)


def plan(
    survivors: Sequence[Mutant],
    pool: Sequence[CallResult],
    *,
    per_mutant: int = 12,
    source: str | None = None,
) -> list[MutantPlan]:
    """For each mutant, up to ``per_mutant`` deterministic calls worth trying, nearest first.

    With the module's ``source``, the calls whose arguments hold one of the mutated
    lines' constants (``line_literals``) come first, up to half of them: ``x % 100 in
    (11, 12, 13)`` mutated to ``(11, 13, 13)`` is told apart by ``12``, which a table's
    first rows may not hold; and the plans take each function (or top-level statement)
    in turn (``interleaved``), so that a run the time cuts short has tried some mutants
    of each, not only the file's first ones."""
    literals = line_literals(source) if source is not None else {}
    usable = [i for i, r in enumerate(pool) if r.deterministic]
    deterministic = set(usable)
    by_line: dict[int, set[int]] = {}  # line → the pool calls whose arcs start or end there
    for index, result in enumerate(pool):
        for arc in result.arcs:
            for line in arc:
                by_line.setdefault(line, set()).add(index)
    plans = []
    for mutant in survivors:
        reached = set().union(*(by_line.get(line, ()) for line in mutant.lines))
        touching = sorted(reached & deterministic)
        if not reached:
            touching = usable  # import-time code: any call may see it
        if not touching:
            continue
        wanted = [text for line in mutant.lines for text in literals.get(line, ())]
        first = _spread(_mentioning(touching, pool, wanted), pool, per_mutant // 2)
        rest = [i for i in touching if i not in set(first)]
        calls = [*first, *_spread(rest, pool, per_mutant - len(first))]
        plans.append(MutantPlan(mutant, tuple(calls)))
    return interleaved(plans, source) if source is not None else plans


def interleaved(plans: Sequence[MutantPlan], source: str) -> list[MutantPlan]:
    """``plans`` taking each region of ``source`` in turn (the innermost function holding
    the mutant, else its top-level statement): every region's first, then the seconds."""
    spans = _regions(source)
    by_region: dict[tuple[int, int], list[MutantPlan]] = {}
    for p in plans:
        holding = [s for s in spans if s[0] <= p.mutant.line <= s[1]]
        region = min(holding, key=lambda s: s[1] - s[0]) if holding else (p.mutant.line, 0)
        by_region.setdefault(region, []).append(p)
    turns = zip_longest(*(by_region[r] for r in sorted(by_region)))
    return [p for turn in turns for p in turn if p is not None]


@functools.lru_cache(maxsize=4)
def _regions(source: str) -> tuple[tuple[int, int], ...]:
    """The line spans of every function and of every top-level statement."""
    tree = _parsed(source)
    found = [(s.lineno, s.end_lineno or s.lineno) for s in tree.body]
    found += [
        (n.lineno, n.end_lineno or n.lineno)
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    return tuple(found)


def _mentioning(
    indexes: Sequence[int], pool: Sequence[CallResult], texts: Sequence[str]
) -> list[int]:
    """The calls (of ``indexes``) with one of ``texts`` as a whole word of an argument."""
    if not texts:
        return []
    words = re.compile(
        "|".join(rf"(?<![\w.]){re.escape(t)}(?![\w.])" for t in dict.fromkeys(texts))
    )
    found = []
    for i in indexes:
        call = pool[i].call
        arguments = " ".join([*call.args, *(value for _, value in call.kwargs)])
        if words.search(arguments):
            found.append(i)
    return found


def line_literals(source: str) -> dict[int, list[str]]:
    """The constants on each line of ``source`` as they would show in an argument: a
    number's digits (``12``; ``-12`` is a minus applied to it), a short string's value."""
    found: dict[int, list[str]] = {}
    for node in ast.walk(_parsed(source)):
        if not isinstance(node, ast.Constant) or isinstance(node.value, bool):
            continue
        if isinstance(node.value, int | float):
            text = repr(node.value)
        elif isinstance(node.value, str) and node.value.strip() and len(node.value) <= MAX_INPUT:
            text = node.value
        else:
            continue
        found.setdefault(node.lineno, []).append(text)
    return found


def _spread(indexes: list[int], pool: Sequence[CallResult], limit: int) -> list[int]:
    """Up to ``limit`` indexes, taking each target's calls in turn so no target crowds out others."""
    by_target: dict[str, list[int]] = {}
    for i in indexes:
        by_target.setdefault(pool[i].call.target, []).append(i)
    rounds = zip_longest(*by_target.values())  # each target's first call, then the seconds
    return [i for round_ in rounds for i in round_ if i is not None][:limit]


def kills(
    pool: Sequence[CallResult], runs: Mapping[str, Mapping[int, Outcome]]
) -> dict[int, set[str]]:
    """Pool index → the mutant ids whose outcome for that call differs from the original's."""
    found: dict[int, set[str]] = {}
    for mutant_id, outcomes in runs.items():
        for index, outcome in outcomes.items():
            original = pool[index].outcome
            # a call that hangs on the mutant makes a timeout, which the score does not count
            if outcome.kind != "timeout" and observed(outcome, original) != observed(original):
                found.setdefault(index, set()).add(mutant_id)
    return found


def choose(killers: Mapping[int, set[str]]) -> list[int]:
    """Greedy cover: calls in the order that kills the most not-yet-killed mutants."""
    left = {index: set(ids) for index, ids in killers.items()}
    chosen: list[int] = []
    while left:
        best = max(sorted(left), key=lambda i: len(left[i]))
        if not left[best]:
            break
        chosen.append(best)
        done = left.pop(best)
        left = {i: ids - done for i, ids in left.items() if ids - done}
    return chosen


def line_strings(source: str) -> dict[int, list[str]]:
    """The string literals on each line of ``source`` (docstrings included: they are rare on
    a mutated line)."""
    found: dict[int, list[str]] = {}
    for node in ast.walk(_parsed(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                found.setdefault(line, []).append(node.value)
    return found


def inputs_from_lines(
    mutant: Mutant, strings: Mapping[int, list[str]], limit: int = 4
) -> list[str]:
    """Strings that exercise the mutated line's own literals: what its patterns match first
    (a rule table's regex gives the word that rule applies to), then the literals."""
    literals = [s for line in mutant.lines for s in strings.get(line, ())]
    found = [example for s in literals for example in examples_for(s, limit=2)]
    found += [s for s in literals if s.strip() and len(s) <= MAX_INPUT]
    return list(dict.fromkeys(found))[:limit]


def calls_with_inputs(
    pool: Sequence[CallResult], inputs: Sequence[str], targets: set[str] | None = None
) -> list[Call]:
    """Deterministic pool calls (one per target, of ``targets`` when given) with their first
    string argument swapped for each input."""
    by_target: dict[str, CallResult] = {}
    for result in pool:
        call = result.call
        wanted = targets is None or call.target in targets
        if wanted and result.deterministic and _string_positions(call):
            by_target.setdefault(call.target, result)
    calls: list[Call] = []
    for text in inputs:
        for result in by_target.values():
            call = result.call
            index = _string_positions(call)[0]
            calls.append(
                replace(call, args=(*call.args[:index], repr(text), *call.args[index + 1 :]))
            )
    return list(dict.fromkeys(calls))


def users_of_line(source: str, line: int) -> set[str] | None:
    """The functions and methods that read the data the top-level statement at ``line`` makes.

    For an assignment (``PLURALS = [...]``), the names it assigns; for a module
    function only run at import (``_irregular``, called to fill ``PLURALS``), the
    module names it reads. The function itself is left out. None when nobody reads them.
    """
    tree = _parsed(source)
    statement = _statement_at(tree, line)
    if statement is None:
        return None
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        data = _names(statement) & _module_names(source)
    else:
        data = _assigned(statement)
    users = {
        qualname
        for qualname, func in scoped_functions(tree)
        if func is not statement and not data.isdisjoint(_names(func))
    }
    return users or None


def call_site_strings(source: str, line: int) -> list[str]:
    """For a mutant in a module function the module calls while importing (``_irregular``):
    the strings those calls pass (``'person'``, ``'people'``), each also capitalised."""
    tree = _parsed(source)
    statement = _statement_at(tree, line)
    if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    found: list[str] = []
    for top in tree.body:
        call = top.value if isinstance(top, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
            continue
        if call.func.id == statement.name:
            for arg in call.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found += [arg.value, arg.value.capitalize()]
    return list(dict.fromkeys(s for s in found if s.strip()))


def public_data(source: str) -> list[str]:
    """Names the module binds to data at its top level, public by their spelling (and
    ``__version__``), in source order: values a test can check where they live."""
    return list(dict.fromkeys(name for name, _ in _public_assignments(source)))


def public_data_lines(source: str) -> frozenset[int]:
    """The lines of the top-level assignments ``public_data`` names: a mutant there
    changes a value a read of that name shows (a table's row), whoever else reads it."""
    return frozenset(
        line
        for _, statement in _public_assignments(source)
        for line in range(statement.lineno, (statement.end_lineno or statement.lineno) + 1)
    )


def _public_assignments(source: str) -> Iterator[tuple[str, ast.stmt]]:
    for statement in _parsed(source).body:
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets = [statement.target]
        else:
            continue
        for node in targets:
            if isinstance(node, ast.Name) and (
                not node.id.startswith("_") or node.id == "__version__"
            ):
                yield node.id, statement


@functools.lru_cache(maxsize=4)
def _parsed(source: str) -> ast.Module:
    """The module's tree, parsed once for all the mutants asked about (read, never changed)."""
    return ast.parse(source)


@functools.lru_cache(maxsize=4)
def _module_names(source: str) -> frozenset[str]:
    """The names the module's top-level code (outside definitions) assigns."""
    return frozenset(
        n.id
        for s in _parsed(source).body
        if not isinstance(s, _DEFS)
        for n in ast.walk(s)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    )


@functools.lru_cache(maxsize=256)
def _names(node: ast.AST) -> frozenset[str]:
    """Every name ``node`` mentions (nodes of a cached tree, so asked about again and again)."""
    return frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))


@functools.lru_cache(maxsize=256)
def _assigned(node: ast.AST) -> frozenset[str]:
    """Every name ``node`` assigns (a node of a cached tree, asked about per mutant)."""
    return frozenset(
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    )


def _statement_at(tree: ast.Module, line: int) -> ast.stmt | None:
    return next((s for s in tree.body if s.lineno <= line <= (s.end_lineno or s.lineno)), None)


def _string_positions(call: Call) -> tuple[int, ...]:
    return _string_args(call.args)


@functools.lru_cache(maxsize=4096)
def _string_args(args: tuple[str, ...]) -> tuple[int, ...]:
    positions = []
    for index, source in enumerate(args):
        try:
            if isinstance(ast.literal_eval(source), str):
                positions.append(index)
        except (ValueError, SyntaxError):
            continue
    return tuple(positions)
